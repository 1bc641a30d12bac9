package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.ClassifiedFailure;

/**
 * An agent call that failed after part of a streamed request body ({@link BodyRest}) was sent, or
 * an attempt refused because it was: the body is no longer held, so the request can go to no other
 * agent. The attempt ends {@link AttemptOutcome#FAILED_AFTER_FIRST_BYTE}: never retried. A route
 * answers it like any failure before an answer began (the README's route: 502).
 */
public class RequestBodyStreamedException extends Exception implements ClassifiedFailure {
    private static final long serialVersionUID = 1L;

    /** @param message what failed, @param cause why, or null */
    public RequestBodyStreamedException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @return {@link AttemptOutcome#FAILED_AFTER_FIRST_BYTE} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.FAILED_AFTER_FIRST_BYTE;
    }
}
