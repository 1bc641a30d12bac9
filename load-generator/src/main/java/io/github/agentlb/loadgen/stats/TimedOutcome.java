package io.github.agentlb.loadgen.stats;

/**
 * A request's outcome with the time it was sent, for figures over time (phases, timelines).
 *
 * @param outcome     what happened to the request
 * @param sentAtNanos when it was sent, {@link System#nanoTime()} ns (or an injected clock's)
 */
public record TimedOutcome(RequestOutcome outcome, long sentAtNanos) {

    /** When the answer or the failure came: send time plus latency, ns. */
    public long completedAtNanos() {
        return sentAtNanos + outcome.latencyNanos();
    }
}
