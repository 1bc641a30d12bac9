package io.github.agentlb.core.ring;

import java.util.Arrays;
import java.util.Map;

/**
 * A ring with one virtual node moved, seen through the ring it comes from, without building it:
 * {@code from} loses its last label {@code from:(n-1)} (point R), {@code to} gains its next one
 * {@code to:m} (point A). {@link #agentAt} answers as
 * {@code ring.withVirtualNodes(...)} would, collisions and their tie order included, and
 * {@link #countChanges} counts how the owners of a set of positions change.
 *
 * <h2>Why only two arcs</h2>
 * A position changes owner only if its first point at or after it was R (the arc ending at R on
 * the ring) or is A (the arc ending at A on the moved ring, which starts at A's predecessor
 * among the points other than R). {@link #countChanges} looks up only the positions on those two
 * arcs: O(log w + a log v) for w sorted positions, a of them on the arcs and v points, where a
 * replay of every position costs O(w log v). Adaptive virtual nodes try many candidate moves per
 * evaluation; this keeps each try to the positions it can change.
 *
 * <p>Immutable and thread-safe. Building one costs two hashes and O(log v).
 */
public final class OneNodeMove {

    private final HashRing ring;
    private final String to;
    /** The index of R among the ring's points. */
    private final int removed;
    private final long addedPosition;
    private final int addedIndex;

    private OneNodeMove(HashRing ring, String from, String to) {
        this.ring = ring;
        this.to = to;
        int last = ring.virtualNodes().get(from) - 1;
        long position = ring.hash(HashRing.label(from, last));
        int i = ring.firstAtOrAfter(position);
        while (!(ring.ownerAt(i).equals(from) && ring.indexAt(i) == last)) {
            i++;
        }
        this.removed = i;
        this.addedIndex = ring.virtualNodes().get(to);
        this.addedPosition = ring.hash(HashRing.label(to, addedIndex));
    }

    /**
     * One virtual node of {@code from} moved to {@code to} on {@code ring}.
     *
     * @throws IllegalArgumentException if an agent is not on the ring, they are the same, or
     *                                  {@code from} has a single virtual node
     */
    public static OneNodeMove of(HashRing ring, String from, String to) {
        Integer donor = ring.virtualNodes().get(from);
        if (donor == null || !ring.virtualNodes().containsKey(to) || from.equals(to)) {
            throw new IllegalArgumentException("a move needs two distinct agents of the ring, was " + from + " -> " + to);
        }
        if (donor < 2) {
            throw new IllegalArgumentException("virtualNodes of " + from + " must stay >= 1, was " + donor);
        }
        return new OneNodeMove(ring, from, to);
    }

    /** The positions in unsigned order, as {@link #countChanges} takes them; a new array. O(w log w). */
    public static long[] sortedUnsigned(long[] positions) {
        long[] sorted = new long[positions.length];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = positions[i] ^ Long.MIN_VALUE;
        }
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] ^= Long.MIN_VALUE;
        }
        return sorted;
    }

    /** The agent owning {@code position} once the node has moved. O(log v). */
    public String agentAt(long position) {
        int size = ring.size();
        int i = ring.firstAtOrAfter(position);
        if (i == removed) {
            i++;
        }
        boolean addedAtOrAfter = Long.compareUnsigned(addedPosition, position) >= 0;
        if (i == size) {
            if (addedAtOrAfter) {
                return to;
            }
            // Nothing at or after the position: the first point of the moved ring owns it.
            int first = removed == 0 ? 1 : 0;
            return first < size && precedesAdded(first) ? ring.ownerAt(first) : to;
        }
        return !addedAtOrAfter || precedesAdded(i) ? ring.ownerAt(i) : to;
    }

    /**
     * Adds to {@code delta}, per agent, the change in the number of {@code sortedPositions} it
     * owns once the node has moved (+1 for the new owner, -1 for the old one per position that
     * changes); agents without a change are left alone.
     *
     * @param sortedPositions positions in unsigned order ({@link #sortedUnsigned})
     * @return the positions looked up: those on the two arcs that can change owner
     */
    public int countChanges(long[] sortedPositions, Map<String, Long> delta) {
        int size = ring.size();
        if (size == 1) {
            return count(sortedPositions, new Arc(0, 0, true), null, delta);
        }
        Arc removedArc = new Arc(ring.pointAt(removed == 0 ? size - 1 : removed - 1), ring.pointAt(removed), removed == 0);
        int predecessor = ring.firstAtOrAfter(addedPosition) - 1;
        if (predecessor == removed) {
            predecessor--;
        }
        boolean addedWraps = predecessor < 0;
        if (addedWraps) {
            predecessor = removed == size - 1 ? size - 2 : size - 1;
        }
        Arc addedArc = new Arc(ring.pointAt(predecessor), addedPosition, addedWraps);
        return count(sortedPositions, removedArc, null, delta) + count(sortedPositions, addedArc, removedArc, delta);
    }

    /** Looks up the positions on {@code arc}, except those on {@code skip}. */
    private int count(long[] sorted, Arc arc, Arc skip, Map<String, Long> delta) {
        if (!arc.wraps) {
            return count(sorted, firstAbove(sorted, arc.low), firstAbove(sorted, arc.high), skip, delta);
        }
        // A wrapping arc has low >= high, so the two runs do not overlap.
        return count(sorted, 0, firstAbove(sorted, arc.high), skip, delta)
                + count(sorted, firstAbove(sorted, arc.low), sorted.length, skip, delta);
    }

    private int count(long[] sorted, int start, int end, Arc skip, Map<String, Long> delta) {
        int looked = 0;
        for (int i = start; i < end; i++) {
            long p = sorted[i];
            if (skip != null && skip.contains(p)) {
                continue;
            }
            looked++;
            String before = ring.agentAt(p);
            String after = agentAt(p);
            if (!before.equals(after)) {
                delta.merge(before, -1L, Long::sum);
                delta.merge(after, 1L, Long::sum);
            }
        }
        return looked;
    }

    /** The index of the first sorted position above {@code low} (unsigned). */
    private static int firstAbove(long[] sorted, long low) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(sorted[mid], low) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Whether the ring's point {@code i} comes before A in the ring's order (position, agent, virtual node). */
    private boolean precedesAdded(int i) {
        int c = Long.compareUnsigned(ring.pointAt(i), addedPosition);
        if (c == 0) {
            c = ring.ownerAt(i).compareTo(to);
        }
        return c != 0 ? c < 0 : ring.indexAt(i) < addedIndex;
    }

    /** The positions in (low, high], unsigned, past the largest position to 0 if {@code wraps}. */
    private record Arc(long low, long high, boolean wraps) {
        boolean contains(long p) {
            boolean aboveLow = Long.compareUnsigned(p, low) > 0;
            boolean atMostHigh = Long.compareUnsigned(p, high) <= 0;
            return wraps ? aboveLow || atMostHigh : aboveLow && atMostHigh;
        }
    }
}
