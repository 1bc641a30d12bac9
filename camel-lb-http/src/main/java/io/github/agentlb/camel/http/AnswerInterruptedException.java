package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.ClassifiedFailure;
import java.io.IOException;

/**
 * The agent failed after the first byte of its answer had gone to the client (it closed the
 * connection, went silent longer than the idle timeout, sent something that is not HTTP, ran past
 * the total timeout; an answer past the size limit is an {@link AnswerTooLargeException}): the client's connection was closed without the
 * terminating chunk, so it sees the answer cut. The attempt ends
 * {@link AttemptOutcome#FAILED_AFTER_FIRST_BYTE}, which counts against the agent and never fails
 * over, as the client already holds part of an answer. Nothing more can be written to the client.
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
