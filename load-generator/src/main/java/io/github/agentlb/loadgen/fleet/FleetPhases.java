package io.github.agentlb.loadgen.fleet;

import io.github.agentlb.loadgen.TimedOutcome;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The phases of a fleet run, split where each change was applied to the balancer. As in a fault
 * run, a request belongs to the phase in which it was <em>sent</em>: {@link FleetPhase#JOINED}
 * from the join (inclusive) until the drain, and so on; so every request is in exactly one
 * phase. Immutable.
 *
 * @param joinNanos   when A4's addition had been applied, ns on the run's clock
 * @param drainNanos  when A2's drain had been applied, ns, >= {@code joinNanos}
 * @param returnNanos when A2's return had been applied, ns, >= {@code drainNanos}
 */
public record FleetPhases(long joinNanos, long drainNanos, long returnNanos) {

    /** @throws IllegalArgumentException if the changes are out of order */
    public FleetPhases {
        if (drainNanos - joinNanos < 0 || returnNanos - drainNanos < 0) {
            throw new IllegalArgumentException("changes must be in order join <= drain <= return, were " + joinNanos
                    + ", " + drainNanos + ", " + returnNanos);
        }
    }

    /** When {@code phase} began, ns; {@code Long.MIN_VALUE} for {@link FleetPhase#BEFORE}. */
    public long startNanos(FleetPhase phase) {
        return switch (phase) {
            case BEFORE -> Long.MIN_VALUE;
            case JOINED -> joinNanos;
            case DRAINED -> drainNanos;
            case RETURNED -> returnNanos;
        };
    }

    /** The phase of a request sent at {@code sentAtNanos}. */
    public FleetPhase phaseOf(long sentAtNanos) {
        if (sentAtNanos - joinNanos < 0) {
            return FleetPhase.BEFORE;
        }
        if (sentAtNanos - drainNanos < 0) {
            return FleetPhase.JOINED;
        }
        return sentAtNanos - returnNanos < 0 ? FleetPhase.DRAINED : FleetPhase.RETURNED;
    }

    /** The outcomes of each phase, every phase present (possibly empty), in the order of {@code outcomes}; unmodifiable. */
    public Map<FleetPhase, List<TimedOutcome>> split(List<TimedOutcome> outcomes) {
        Map<FleetPhase, List<TimedOutcome>> byPhase = new EnumMap<>(FleetPhase.class);
        for (FleetPhase p : FleetPhase.values()) {
            byPhase.put(p, new ArrayList<>());
        }
        outcomes.forEach(o -> byPhase.get(phaseOf(o.sentAtNanos())).add(o));
        byPhase.replaceAll((p, list) -> List.copyOf(list));
        return Collections.unmodifiableMap(byPhase);
    }

    /** The wall time of each phase of a run from {@code startNanos} to {@code endNanos}, ns (0 when negative). */
    public Map<FleetPhase, Long> durations(long startNanos, long endNanos) {
        Map<FleetPhase, Long> d = new EnumMap<>(FleetPhase.class);
        d.put(FleetPhase.BEFORE, Math.max(0, joinNanos - startNanos));
        d.put(FleetPhase.JOINED, drainNanos - joinNanos);
        d.put(FleetPhase.DRAINED, returnNanos - drainNanos);
        d.put(FleetPhase.RETURNED, Math.max(0, endNanos - returnNanos));
        return Collections.unmodifiableMap(d);
    }
}
