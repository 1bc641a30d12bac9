package io.github.agentlb.loadgen;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
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
        if (sentAtNanos - killNanos < 0) {
            return Phase.BEFORE;
        }
        return sentAtNanos - restartNanos < 0 ? Phase.DOWN : Phase.AFTER;
    }

    /**
     * The outcomes of each phase, every phase present (possibly empty), each list in the order of
     * {@code outcomes}; unmodifiable.
     */
    public Map<Phase, List<TimedOutcome>> split(List<TimedOutcome> outcomes) {
        Map<Phase, List<TimedOutcome>> byPhase = new EnumMap<>(Phase.class);
        for (Phase p : Phase.values()) {
            byPhase.put(p, new ArrayList<>());
        }
        outcomes.forEach(o -> byPhase.get(phaseOf(o.sentAtNanos())).add(o));
        byPhase.replaceAll((p, list) -> List.copyOf(list));
        return Collections.unmodifiableMap(byPhase);
    }

    /**
     * The wall time of each phase within a run from {@code startNanos} to {@code endNanos}, ns:
     * before = start to kill, down = kill to restart, after = restart to end (0 when negative).
     */
    public Map<Phase, Long> durations(long startNanos, long endNanos) {
        Map<Phase, Long> d = new EnumMap<>(Phase.class);
        d.put(Phase.BEFORE, Math.max(0, killNanos - startNanos));
        d.put(Phase.DOWN, restartNanos - killNanos);
        d.put(Phase.AFTER, Math.max(0, endNanos - restartNanos));
        return Collections.unmodifiableMap(d);
    }
}
