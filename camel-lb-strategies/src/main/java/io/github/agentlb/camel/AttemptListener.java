package io.github.agentlb.camel;

/**
 * Told of every attempt's outcome, for example by a metrics binder. Called on the request path:
 * must be fast and not block; one that throws is logged at DEBUG and does not stop the others.
 */
@FunctionalInterface
public interface AttemptListener {

    /**
     * @param strategy     the strategy's short name, e.g. {@code rr}
     * @param agentId      the agent tried
     * @param outcome      how the attempt ended
     * @param elapsedNanos the time from sending to the end of the answer, ns
     */
    void attemptCompleted(String strategy, String agentId, AttemptOutcome outcome, long elapsedNanos);
}
