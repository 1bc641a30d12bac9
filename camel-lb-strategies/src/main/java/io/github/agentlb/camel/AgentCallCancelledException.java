package io.github.agentlb.camel;

/**
 * An agent call cancelled because its caller gave up (the client closed its connection): the
 * attempt ends {@link AttemptOutcome#CANCELLED}, which neither counts against the agent nor
 * fails over.
 */
public class AgentCallCancelledException extends Exception implements ClassifiedFailure {
    private static final long serialVersionUID = 1L;

    /** @param message what was cancelled, e.g. which agent and why */
    public AgentCallCancelledException(String message) {
        super(message);
    }

    /** @return {@link AttemptOutcome#CANCELLED} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.CANCELLED;
    }
}
