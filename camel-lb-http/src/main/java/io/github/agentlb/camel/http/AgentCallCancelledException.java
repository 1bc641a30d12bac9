package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.ClassifiedFailure;

/**
 * An agent call cancelled because its caller gave up (the client closed its connection): the
 * attempt ends {@link AttemptOutcome#CANCELLED}, which neither counts against the agent nor
 * fails over. A route's answer to it is nothing: the client has gone.
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
