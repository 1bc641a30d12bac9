package io.github.agentlb.camel;

import java.io.IOException;

/**
 * The agent failed after the first byte of its answer had gone to the client (it closed the
 * connection, went silent too long, sent something that is not HTTP): the attempt ends
 * {@link AttemptOutcome#FAILED_AFTER_FIRST_BYTE}, which counts against the agent and never fails
 * over, as the client already holds part of an answer.
 */
public class AnswerInterruptedException extends IOException implements ClassifiedFailure {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what broke off, e.g. which agent after how many bytes
     * @param cause   why, e.g. a timeout or a closed channel; may be null
     */
    public AnswerInterruptedException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @return {@link AttemptOutcome#FAILED_AFTER_FIRST_BYTE} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.FAILED_AFTER_FIRST_BYTE;
    }
}
