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

    private final boolean clientLeft;

    /** @param message what was cancelled, e.g. which agent and why: not the client leaving ({@link #clientLeft()} false) */
    public AgentCallCancelledException(String message) {
        this(message, false);
    }

    private AgentCallCancelledException(String message, boolean clientLeft) {
        super(message);
        this.clientLeft = clientLeft;
    }

    /** @return a cancellation because the client closed its connection (nginx's 499), {@code message} saying which call */
    public static AgentCallCancelledException clientLeft(String message) {
        return new AgentCallCancelledException(message, true);
    }

    /**
     * @return whether the client closed its connection, an everyday event; false for a call the proxy
     *         itself ended (a client that took none of the answer for the idle timeout, a stop, a hedge lost)
     */
    public boolean clientLeft() {
        return clientLeft;
    }

    /** @return {@link AttemptOutcome#CANCELLED} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.CANCELLED;
    }
}
