package io.github.agentlb.loadgen.stats;

/**
 * The clock of the interval-series tests, shared by the series' own tests and the paced runner's:
 * times in nanoseconds, the run starting at {@link #START}, and a plain answer to record.
 */
public final class SeriesClock {

    /** One millisecond, in nanoseconds. */
    public static final long MS = 1_000_000;
    /** Where the run starts on the clock: 5 s after its zero. */
    public static final long START = 5_000 * MS;

    private SeriesClock() {
    }

    /** User 1's request r1, answered 200 by A1 after {@code latencyMs}. */
    public static RequestOutcome ok(long latencyMs) {
        return RequestOutcome.success("r1", 1, "A1", 200, latencyMs * MS);
    }
}
