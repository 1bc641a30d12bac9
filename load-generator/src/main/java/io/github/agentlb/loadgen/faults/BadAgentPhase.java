package io.github.agentlb.loadgen.faults;

import java.util.Locale;

/**
 * The three phases of a {@link BadAgentScenario} run, split where A1's answers were switched
 * ({@link io.github.agentlb.loadgen.stats.PhaseSplit}): a request belongs to the phase in which it was sent.
 */
public enum BadAgentPhase {

    /** A1 answers normally. */
    BEFORE,
    /** A1 answers its {@link BadAnswer}. */
    DURING,
    /** A1 answers normally again. */
    AFTER;

    /** The name in reports, e.g. {@code during}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The 1-based count of started requests at which this phase begins in a run of
     * {@code requests}: just before request {@code k n / 3 + 1} is sent, for phase {@code k}.
     *
     * @throws IllegalArgumentException if {@code requests < 3}
     */
    public int startsAtRequest(int requests) {
        if (requests < 3) {
            throw new IllegalArgumentException("requests must be >= 3 for three phases, was " + requests);
        }
        return ordinal() * requests / 3 + 1;
    }
}
