package io.github.agentlb.loadgen.stats;

import java.util.ArrayList;
import java.util.List;

/**
 * Consecutive phases of a run, split at its changes (an agent killed, a fault switched on, an agent
 * added): phase {@code i} from change {@code i - 1} (inclusive) to the next. A request belongs to the
 * phase it was <em>sent</em> in, where the balancer chose its agent. Immutable.
 *
 * @param names  the phases' names in order, e.g. {@code before, down, after}
 * @param starts when each phase after the first began, ns of the outcomes' clock, one per such phase
 */
public record Phases(List<String> names, List<Long> starts) {

    /** @throws IllegalArgumentException if there is not one start per phase after the first, or they are out of order */
    public Phases {
        names = List.copyOf(names);
        starts = List.copyOf(starts);
        if (starts.size() != names.size() - 1) {
            throw new IllegalArgumentException("need " + (names.size() - 1) + " change times for " + names.size()
                    + " phases, were " + starts.size());
        }
        for (int i = 1; i < starts.size(); i++) {
            if (starts.get(i) - starts.get(i - 1) < 0) {
                throw new IllegalArgumentException("change times must be in order, were " + starts);
            }
        }
    }

    /** The index of the phase of a request sent at {@code sentAtNanos}. */
    public int indexOf(long sentAtNanos) {
        return (int) starts.stream().filter(start -> sentAtNanos - start >= 0).count();
    }

    /** The outcomes of each phase, by index, every phase present (possibly empty), each in the order of {@code outcomes}. */
    public List<List<TimedOutcome>> split(List<TimedOutcome> outcomes) {
        List<List<TimedOutcome>> byPhase = new ArrayList<>();
        names.forEach(n -> byPhase.add(new ArrayList<>()));
        outcomes.forEach(o -> byPhase.get(indexOf(o.sentAtNanos())).add(o));
        return byPhase.stream().map(List::copyOf).toList();
    }

    /** The wall time of each phase of a run from {@code startNanos} to {@code endNanos}, ns (first and last at least 0). */
    public long[] durations(long startNanos, long endNanos) {
        long[] d = new long[names.size()];
        for (int i = 0; i < d.length; i++) {
            long from = i == 0 ? startNanos : starts.get(i - 1);
            long to = i == starts.size() ? endNanos : starts.get(i);
            d[i] = i == 0 || i == starts.size() ? Math.max(0, to - from) : to - from;
        }
        return d;
    }
}
