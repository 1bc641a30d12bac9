package io.github.agentlb.loadgen.stats;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The phases of a fault run, split at the agent's kill and its restart. A request belongs to the
 * phase in which it was <em>sent</em>: {@link Phase#BEFORE} when sent before the kill,
 * {@link Phase#DOWN} from the kill (inclusive) until the restart, {@link Phase#AFTER} from the
 * restart (inclusive). So every request is in exactly one phase, and a request in flight at the
 * kill counts where the balancer chose its agent. Immutable.
 *
 * @param killNanos    when the kill began, ns on the run's clock
 * @param restartNanos when the restarted agent listened, ns on the same clock, >= {@code killNanos}
 */
public record FailurePhases(long killNanos, long restartNanos) {

    /** A phase of a fault run. */
    public enum Phase {
        /** All agents up. */
        BEFORE,
        /** One agent down. */
        DOWN,
        /** The agent back on its port. */
        AFTER;

        /** The name in reports, e.g. {@code down}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** @throws IllegalArgumentException if the restart comes before the kill */
    public FailurePhases {
        if (restartNanos - killNanos < 0) {
            throw new IllegalArgumentException("restartNanos must be >= killNanos (" + killNanos + "), was "
                    + restartNanos);
        }
    }

    /** The phase of a request sent at {@code sentAtNanos}. */
    public Phase phaseOf(long sentAtNanos) {
        return phases().phaseOf(sentAtNanos);
    }

    /**
     * The outcomes of each phase, every phase present (possibly empty), each list in the order of
     * {@code outcomes}; unmodifiable.
     */
    public Map<Phase, List<TimedOutcome>> split(List<TimedOutcome> outcomes) {
        return phases().split(outcomes);
    }

    /**
     * The wall time of each phase within a run from {@code startNanos} to {@code endNanos}, ns:
     * before = start to kill, down = kill to restart, after = restart to end (0 when negative).
     */
    public Map<Phase, Long> durations(long startNanos, long endNanos) {
        return phases().durations(startNanos, endNanos);
    }

    private PhaseSplit<Phase> phases() {
        return new PhaseSplit<>(Phase.class, killNanos, restartNanos);
    }
}
