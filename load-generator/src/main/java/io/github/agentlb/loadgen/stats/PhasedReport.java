package io.github.agentlb.loadgen.stats;

import java.util.Map;

/**
 * A run's report split into phases, each with the {@link RunStatistics} of the requests sent in
 * it, and the totals over those phases. Thread-safe when {@link #phases()} is immutable, as in the
 * reports' records.
 *
 * @param <P> the run's phase
 */
public interface PhasedReport<P> {

    /** Per phase, the statistics of the requests sent in it; every phase present. */
    Map<P, RunStatistics> phases();

    /** Requests of every phase. */
    default int requests() {
        return phases().values().stream().mapToInt(RunStatistics::requests).sum();
    }

    /** Errors and timeouts the client saw in {@code phase}. */
    default long clientErrors(P phase) {
        RunStatistics s = phases().get(phase);
        return s.errors() + s.timeouts();
    }

    /** Errors and timeouts the client saw over the run (goal 0). */
    default long clientErrors() {
        return phases().keySet().stream().mapToLong(this::clientErrors).sum();
    }
}
