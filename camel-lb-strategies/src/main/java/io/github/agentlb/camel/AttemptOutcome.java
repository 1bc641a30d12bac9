package io.github.agentlb.camel;

/**
 * How one attempt on one agent ended, as {@link FailureClassifier} tells it. The balancer fails
 * over on {@link #FAILED_BEFORE_SEND} always, on {@link #FAILED_AFTER_SEND} only for idempotent
 * requests, on {@link #ANSWER_TIMED_OUT} only when the policy says so, and never on
 * {@link #FAILED_AFTER_FIRST_BYTE} ({@link FailoverPolicy}); the four failures count toward
 * outlier ejection. {@link #CANCELLED}, {@link #BUSY} and {@link #EXCEPTION_ANSWER} are neither a
 * success nor a failure; {@link #ERROR_ANSWER} counts only toward ejection by error answers.
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
    /**
     * The attempt ended with an exception that is not a transport failure, taken as the agent's
     * answer turned into an exception by the route (camel-http's {@code HttpOperationFailedException}
     * for an error status, a processor that rejected the answer): passed on, never retried, and
     * neither a success nor a failure for outlier ejection. Named {@code ERROR} before 0.1.0; the
     * metrics tag keeps {@code outcome="error"}.
     */
    EXCEPTION_ANSWER,
    /**
     * The request was sent and no answer began within the answer timeout (a streaming child's
     * {@link ClassifiedFailure}). The agent may still be working on it, at a cost: sent
     * elsewhere only when {@link FailoverPolicy#failOverOnAnswerTimeout()} and the method is idempotent.
     */
    ANSWER_TIMED_OUT,
    /**
     * The answer had begun to reach the client when the agent failed (closed, went idle too long):
     * a failure of the agent, never retried, as the client already holds part of an answer
     * (a streaming child's {@link ClassifiedFailure}).
     */
    FAILED_AFTER_FIRST_BYTE,
    /**
     * The caller gave up (its client disconnected) and the call was cancelled (a streaming child's
     * {@link ClassifiedFailure}): says nothing about the agent, so it neither counts
     * toward ejection nor re-admits an ejected agent, and is never retried.
     */
    CANCELLED,
    /**
     * The agent answered that it is busy (429, or 503 with {@code Retry-After}; {@link AnswerRules}):
     * it rests until its {@code Retry-After} and the request goes to another agent when that is
     * safe. Neither a success nor a failure for outlier ejection, but an answer: an ejected agent
     * whose trial (or last-resort) request is answered busy is alive, re-admitted, and rests.
     */
    BUSY,
    /**
     * The agent answered with one of the error statuses ({@link AnswerRules#errorStatuses()}, 5xx):
     * passed to the client, counted toward ejection by consecutive error answers, never retried.
     */
    ERROR_ANSWER;

    /** @return whether the agent failed ({@link #FAILED_BEFORE_SEND}, {@link #FAILED_AFTER_SEND}, {@link #ANSWER_TIMED_OUT}, {@link #FAILED_AFTER_FIRST_BYTE}) */
    public boolean isFailure() {
        return this == FAILED_BEFORE_SEND || this == FAILED_AFTER_SEND || this == ANSWER_TIMED_OUT
                || this == FAILED_AFTER_FIRST_BYTE;
    }
}
