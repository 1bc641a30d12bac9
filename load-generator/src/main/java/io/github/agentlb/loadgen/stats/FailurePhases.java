package io.github.agentlb.loadgen.stats;

import java.util.Locale;

/**
 * The phases of a fault run, split at the agent's kill and its restart. A request belongs to the
 * phase in which it was <em>sent</em>: {@link Phase#BEFORE} when sent before the kill,
 * {@link Phase#DOWN} from the kill (inclusive) until the restart, {@link Phase#AFTER} from the
 * restart (inclusive). So every request is in exactly one phase, and a request in flight at the
 * kill counts where the balancer chose its agent. A run's phase durations: before = start to kill,
 * down = kill to restart, after = restart to end. Immutable.
 *
 * @param killNanos    when the kill began, ns on the run's clock
 * @param restartNanos when the restarted agent listened, ns on the same clock, >= {@code killNanos}
 */
public record FailurePhases(long killNanos, long restartNanos) implements RunPhases<FailurePhases.Phase> {

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

    /** The split at the kill and the restart. */
    @Override
    public PhaseSplit<Phase> phaseSplit() {
        return new PhaseSplit<>(Phase.class, killNanos, restartNanos);
    }
}
