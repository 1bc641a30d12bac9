package io.github.agentlb.camel;

/**
 * How one attempt on one agent ended, as {@link FailureClassifier} tells it. The balancer fails
 * over on {@link #FAILED_BEFORE_SEND} always and on {@link #FAILED_AFTER_SEND} only for
 * idempotent requests ({@link FailoverPolicy}); both count toward outlier ejection.
 */
public enum AttemptOutcome {
    /** The agent answered and the answer is not an exception. */
    SUCCESS,
    /**
     * The request never reached the agent: connection refused, connect timeout, unknown host, no
     * pooled connection. Safe to send elsewhere.
     */
    FAILED_BEFORE_SEND,
    /**
     * The request may have reached the agent, which did not answer: read timeout, connection reset
     * or closed before the answer. Sent elsewhere only when the method is idempotent.
     */
    FAILED_AFTER_SEND,
    /** The agent answered with a failure (for example an HTTP error status): not retried. */
    ERROR;

    /** @return whether the agent failed to answer (either failure kind) */
    public boolean isFailure() {
        return this == FAILED_BEFORE_SEND || this == FAILED_AFTER_SEND;
    }
}
