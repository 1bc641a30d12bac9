package io.github.agentlb.loadgen.fleet;

import io.github.agentlb.loadgen.stats.PhaseSplit;
import io.github.agentlb.loadgen.stats.RunPhases;

/**
 * The phases of a fleet run, split where each change was applied to the balancer
 * ({@link PhaseSplit}). As in a fault run, a request belongs to the phase in which it was
 * <em>sent</em>: {@link FleetPhase#JOINED} from the join (inclusive) until the drain, and so on;
 * so every request is in exactly one phase. A run's phase durations: before = start to join, then
 * change to change, returned = return to end. Immutable.
 *
 * @param joinNanos   when A4's addition had been applied, ns on the run's clock
 * @param drainNanos  when A2's drain had been applied, ns, >= {@code joinNanos}
 * @param returnNanos when A2's return had been applied, ns, >= {@code drainNanos}
 */
public record FleetPhases(long joinNanos, long drainNanos, long returnNanos) implements RunPhases<FleetPhase> {

    /** @throws IllegalArgumentException if the changes are out of order */
    public FleetPhases {
        if (drainNanos - joinNanos < 0 || returnNanos - drainNanos < 0) {
            throw new IllegalArgumentException("changes must be in order join <= drain <= return, were " + joinNanos
                    + ", " + drainNanos + ", " + returnNanos);
        }
    }

    /** The split at the join, the drain and the return. */
    @Override
    public PhaseSplit<FleetPhase> phaseSplit() {
        return new PhaseSplit<>(FleetPhase.class, joinNanos, drainNanos, returnNanos);
    }
}
