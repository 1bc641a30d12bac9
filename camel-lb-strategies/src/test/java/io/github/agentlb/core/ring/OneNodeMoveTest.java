package io.github.agentlb.core.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class OneNodeMoveTest {

    /** Positions 0..4 only: most points collide, so the tie order (agent, then virtual node) matters. */
    private static final HashFunction COARSE = input -> Long.remainderUnsigned(HashAlgorithm.FNV1A_64.hash(input), 5);

    @Test
    void answersAsTheRingWithTheNodeMovedCollisionsAndWrapIncluded() {
        SplittableRandom random = new SplittableRandom(11);
        for (HashFunction function : List.of(COARSE, HashAlgorithm.MD5, HashAlgorithm.FNV1_64_MIXED)) {
            for (int trial = 0; trial < 200; trial++) {
                Map<String, Integer> counts = new TreeMap<>();
                int agents = 2 + random.nextInt(4);
                for (int a = 0; a < agents; a++) {
                    counts.put("agent-" + a, 1 + random.nextInt(6));
                }
                HashRing ring = HashRing.of(counts, function);
                List<String> donors = ring.agents().stream().filter(a -> counts.get(a) > 1).toList();
                if (donors.isEmpty()) {
                    continue;
                }
                String from = donors.get(random.nextInt(donors.size()));
                List<String> receivers = ring.agents().stream().filter(a -> !a.equals(from)).toList();
                String to = receivers.get(random.nextInt(receivers.size()));
                Map<String, Integer> moved = new HashMap<>(counts);
                moved.merge(from, -1, Integer::sum);
                moved.merge(to, 1, Integer::sum);
                HashRing built = HashRing.of(moved, function);
                OneNodeMove move = OneNodeMove.of(ring, from, to);

                long[] positions = positions(random, ring, built);
                for (long position : positions) {
                    assertThat(move.agentAt(position)).as("%s %s -> %s at %s", counts, from, to,
                            Long.toUnsignedString(position)).isEqualTo(built.agentAt(position));
                }
                Map<String, Long> delta = new HashMap<>();
                int looked = move.countChanges(OneNodeMove.sortedUnsigned(positions), delta);
                assertThat(withoutZeros(delta)).isEqualTo(replayDifference(ring, built, positions));
                assertThat(looked).isLessThanOrEqualTo(positions.length);
            }
        }
    }

    @Test
    void looksUpOnlyThePositionsOnTheTwoArcs() {
        HashRing ring = HashRing.uniform(List.of("a", "b", "c"), 50, HashAlgorithm.FNV1_64_MIXED);
        long[] positions = new SplittableRandom(3).longs(2000).toArray();
        Map<String, Long> delta = new HashMap<>();
        int looked = OneNodeMove.of(ring, "a", "c").countChanges(OneNodeMove.sortedUnsigned(positions), delta);
        // Two arcs of 150: about 2 * 2000 / 150 = 27 positions expected, not 2000; these two arcs hold 7.
        assertThat(looked).isEqualTo(7);
        assertThat(withoutZeros(delta)).isEqualTo(replayDifference(ring,
                ring.withVirtualNodes(Map.of("a", 49, "b", 50, "c", 51)), positions));
    }

    @Test
    void rejectsAMoveThatCannotBeMade() {
        HashRing ring = HashRing.of(Map.of("a", 1, "b", 2), HashAlgorithm.MD5);
        assertThatThrownBy(() -> OneNodeMove.of(ring, "a", "b")).hasMessage("virtualNodes of a must stay >= 1, was 1");
        assertThatThrownBy(() -> OneNodeMove.of(ring, "b", "b"))
                .hasMessage("a move needs two distinct agents of the ring, was b -> b");
        assertThatThrownBy(() -> OneNodeMove.of(ring, "b", "x"))
                .hasMessage("a move needs two distinct agents of the ring, was b -> x");
    }

    @Test
    void sortsPositionsAsUnsignedValues() {
        assertThat(OneNodeMove.sortedUnsigned(new long[] {-1, 5, Long.MIN_VALUE, 0, Long.MAX_VALUE}))
                .containsExactly(0, 5, Long.MAX_VALUE, Long.MIN_VALUE, -1);
    }

    /** Random positions, every point of both rings, one either side of each, and the extremes. */
    private static long[] positions(SplittableRandom random, HashRing ring, HashRing built) {
        List<Long> all = new ArrayList<>(List.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE));
        for (long point : concat(ring.pointsForTest(), built.pointsForTest())) {
            all.add(point);
            all.add(point - 1);
            all.add(point + 1);
        }
        for (int i = 0; i < 50; i++) {
            all.add(random.nextLong());
        }
        return all.stream().mapToLong(Long::longValue).toArray();
    }

    private static long[] concat(long[] a, long[] b) {
        long[] both = new long[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static Map<String, Long> replayDifference(HashRing before, HashRing after, long[] positions) {
        Map<String, Long> difference = new HashMap<>();
        for (long position : positions) {
            difference.merge(after.agentAt(position), 1L, Long::sum);
            difference.merge(before.agentAt(position), -1L, Long::sum);
        }
        return withoutZeros(difference);
    }

    private static Map<String, Long> withoutZeros(Map<String, Long> counts) {
        Map<String, Long> nonZero = new TreeMap<>(counts);
        nonZero.values().removeIf(v -> v == 0);
        return nonZero;
    }
}
