package io.github.agentlb.loadgen.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Consecutive phases of a run, the constants of an enum in order, split at the times their
 * changes were made: the first phase until the first change, phase {@code i} from change
 * {@code i - 1} (inclusive) until the next. A request belongs to the phase in which it was
 * <em>sent</em>, so every request is in exactly one phase. What {@link FailurePhases} and the fleet
 * scenario's phases compute with. Immutable.
 *
 * @param <P> the phases
 */
public final class PhaseSplit<P extends Enum<P>> {

    private final Class<P> type;
    private final P[] phases;
    private final long[] changes;

    /**
     * @param type    the phases' enum
     * @param changes when each phase after the first began, ns, one per such phase, in order
     * @throws IllegalArgumentException if there are not as many changes as phases after the first,
     *                                  or they are out of order
     */
    public PhaseSplit(Class<P> type, long... changes) {
        this.type = type;
        this.phases = type.getEnumConstants();
        if (changes.length != phases.length - 1) {
            throw new IllegalArgumentException("need " + (phases.length - 1) + " change times for " + phases.length
                    + " phases, were " + changes.length);
        }
        for (int i = 1; i < changes.length; i++) {
            if (changes[i] - changes[i - 1] < 0) {
                throw new IllegalArgumentException("change times must be in order, were " + Arrays.toString(changes));
            }
        }
        this.changes = changes.clone();
    }

    /** The phase of a request sent at {@code sentAtNanos}. */
    public P phaseOf(long sentAtNanos) {
        int i = 0;
        while (i < changes.length && sentAtNanos - changes[i] >= 0) {
            i++;
        }
        return phases[i];
    }

    /** The outcomes of each phase, every phase present (possibly empty), in the order of {@code outcomes}; unmodifiable. */
    public Map<P, List<TimedOutcome>> split(List<TimedOutcome> outcomes) {
        Map<P, List<TimedOutcome>> byPhase = new EnumMap<>(type);
        for (P p : phases) {
            byPhase.put(p, new ArrayList<>());
        }
        outcomes.forEach(o -> byPhase.get(phaseOf(o.sentAtNanos())).add(o));
        byPhase.replaceAll((p, list) -> List.copyOf(list));
        return Collections.unmodifiableMap(byPhase);
    }

    /**
     * The wall time of each phase of a run from {@code startNanos} to {@code endNanos}, ns: the
     * first from the start to the first change, the last from the last change to the end (each 0
     * when negative), the others from change to change.
     */
    public Map<P, Long> durations(long startNanos, long endNanos) {
        Map<P, Long> d = new EnumMap<>(type);
        for (int i = 0; i < phases.length; i++) {
            long from = i == 0 ? startNanos : changes[i - 1];
            long to = i == changes.length ? endNanos : changes[i];
            d.put(phases[i], i == 0 || i == changes.length ? Math.max(0, to - from) : to - from);
        }
        return Collections.unmodifiableMap(d);
    }
}
