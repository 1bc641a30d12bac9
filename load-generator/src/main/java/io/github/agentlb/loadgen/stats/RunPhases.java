package io.github.agentlb.loadgen.stats;

import java.util.List;
import java.util.Map;

/**
 * A run's consecutive phases, split at the times of its changes by a {@link PhaseSplit}: what
 * {@link FailurePhases} and the fleet scenario's phases answer alike. A request belongs to the
 * phase in which it was <em>sent</em>, so every request is in exactly one phase. Implementations
 * are immutable.
 *
 * @param <P> the phases, in the order of the run
 */
public interface RunPhases<P extends Enum<P>> {

    /** The split at this run's change times. */
    PhaseSplit<P> phaseSplit();

    /** The phase of a request sent at {@code sentAtNanos}. */
    default P phaseOf(long sentAtNanos) {
        return phaseSplit().phaseOf(sentAtNanos);
    }

    /**
     * The outcomes of each phase, every phase present (possibly empty), each list in the order of
     * {@code outcomes}; unmodifiable.
     */
    default Map<P, List<TimedOutcome>> split(List<TimedOutcome> outcomes) {
        return phaseSplit().split(outcomes);
    }

    /**
     * The wall time of each phase of a run from {@code startNanos} to {@code endNanos}, ns: the
     * first from the start to the first change, the last from the last change to the end (each 0
     * when negative), the others from change to change.
     */
    default Map<P, Long> durations(long startNanos, long endNanos) {
        return phaseSplit().durations(startNanos, endNanos);
    }
}
