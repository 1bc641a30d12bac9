package io.github.agentlb.loadgen.stats;

/** A request's outcome with when it was sent, {@link System#nanoTime()} ns (or an injected clock's), for figures over time. */
public record TimedOutcome(RequestOutcome outcome, long sentAtNanos) {

    /** When the answer or the failure came: send time plus latency, ns. */
    public long completedAtNanos() {
        return sentAtNanos + outcome.latencyNanos();
    }
}
