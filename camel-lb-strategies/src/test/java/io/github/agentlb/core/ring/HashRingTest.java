package io.github.agentlb.core.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HashRingTest {

    private static final List<String> AGENTS =
            List.of("http://localhost:8081", "http://localhost:8082", "http://localhost:8083");
    private static final int KEYS = 100_000;

    private static HashRing ring(List<String> agents) {
        return HashRing.uniform(agents, 150, HashAlgorithm.MD5);
    }

    private static Map<String, String> mapping(HashRing ring) {
        Map<String, String> mapping = new HashMap<>();
        for (int key = 0; key < KEYS; key++) {
            mapping.put(Integer.toString(key), ring.agentFor(Integer.toString(key)));
        }
        return mapping;
    }

    @Test
    void sameKeyAlwaysReachesSameAgent() {
        HashRing ring = ring(AGENTS);
        String first = ring.agentFor("42");
        for (int i = 0; i < 5; i++) {
            assertThat(ring.agentFor("42")).isEqualTo(first);
        }
        assertThat(ring(AGENTS).agentFor("42")).isEqualTo(first);
    }

    // Golden keys and hash, pinned so that a refactor of hashing or point order cannot silently move
    // every user. The same agents as the assignment's Python reference gives: int(md5(f"{url}:{i}").hexdigest(), 16).
    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource({
            "1, http://localhost:8081",
            "42, http://localhost:8082",
            "200, http://localhost:8081",
            "-7, http://localhost:8083",
            "user-\u00fc, http://localhost:8081",
            "99999999999999999999, http://localhost:8081",
    })
    void goldenKeysKeepTheirAgents(String key, String agent) {
        assertThat(ring(AGENTS).agentFor(key)).isEqualTo(agent);
    }

    @Test
    void theGoldenHashOfAKeyIsPinned() {
        assertThat(Long.toUnsignedString(ring(AGENTS).hash("42"))).isEqualTo("11660038136054051623");
    }

    @Test
    void hundredThousandKeysSpreadWithinTenPercentOfTheMean() {
        Map<String, Integer> counts = new HashMap<>();
        mapping(ring(AGENTS)).values().forEach(agent -> counts.merge(agent, 1, Integer::sum));
        double mean = KEYS / 3.0;
        assertThat(counts).hasSize(3);
        counts.values().forEach(count -> assertThat(count).isBetween((int) (mean * 0.9), (int) (mean * 1.1)));
        assertThat(counts).as("these keys' counts, pinned").isEqualTo(Map.of(
                "http://localhost:8081", 34_114, "http://localhost:8082", 30_210, "http://localhost:8083", 35_676));
    }

    @Test
    void removingAnAgentMovesOnlyItsKeysAndAddingItBackRestoresTheMapping() {
        HashRing full = ring(AGENTS);
        Map<String, String> before = mapping(full);
        String removed = AGENTS.get(1);
        HashRing smaller = ring(List.of(AGENTS.get(0), AGENTS.get(2)));
        int moved = 0;
        for (Map.Entry<String, String> entry : before.entrySet()) {
            String now = smaller.agentFor(entry.getKey());
            if (!entry.getValue().equals(removed)) {
                assertThat(now).as("key %s", entry.getKey()).isEqualTo(entry.getValue());
            } else {
                moved++;
                // a removed agent's key goes to the next agent clockwise on the full ring
                Iterator<String> clockwise = full.agentsClockwise(full.hash(entry.getKey()));
                assertThat(clockwise.next()).isEqualTo(removed);
                assertThat(now).isEqualTo(clockwise.next());
            }
        }
        assertThat(moved).isPositive();
        assertThat(mapping(ring(AGENTS))).isEqualTo(before);
    }

    @Test
    void agentOrderDoesNotMatter() {
        List<String> shuffled = new ArrayList<>(AGENTS);
        Map<String, String> expected = mapping(ring(AGENTS));
        Random random = new Random(7);
        for (int i = 0; i < 3; i++) {
            Collections.shuffle(shuffled, random);
            assertThat(mapping(ring(shuffled))).isEqualTo(expected);
        }
    }

    @Test
    void collidingPointsAreOrderedByAgentIdWhateverTheInsertionOrder() {
        // A constant hash makes every point collide: the owner must be the smallest agent id.
        HashRing ring = HashRing.of(Map.of("b", 2, "a", 2, "c", 1), input -> 7L);
        assertThat(ring.agentFor("anything")).isEqualTo("a");
        List<String> clockwise = new ArrayList<>();
        ring.agentsClockwise(7L).forEachRemaining(clockwise::add);
        assertThat(clockwise).containsExactly("a", "b", "c");
    }

    @Test
    void lookupWrapsPastTheLargestPoint() {
        HashRing ring = HashRing.of(Map.of("a", 1, "b", 1), input -> input.length == 3 ? 10L : 20L);
        // labels "a:0" and "b:0" both have 3 bytes: both at 10, a first; "key" also hashes to 10
        assertThat(ring.agentAt(10L)).isEqualTo("a");
        assertThat(ring.agentAt(11L)).isEqualTo("a"); // past the last point: wraps to the first
        assertThat(ring.agentAt(-1L)).isEqualTo("a"); // largest unsigned position wraps too
        assertThat(ring.agentAt(0L)).isEqualTo("a");
    }

    @Test
    void clockwiseListsEveryAgentOnceOwnerFirst() {
        HashRing ring = ring(AGENTS);
        long position = ring.hash("42");
        List<String> order = new ArrayList<>();
        ring.agentsClockwise(position).forEachRemaining(order::add);
        assertThat(order).hasSize(3).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(AGENTS);
        assertThat(order.get(0)).isEqualTo(ring.agentFor("42"));
    }

    @Test
    void movingOneVirtualNodeMovesOnlyTheKeysOfOneArc() {
        HashRing ring = HashRing.of(Map.of("a", 5, "b", 5, "c", 5), HashAlgorithm.FNV1_64_MIXED);
        HashRing moved = ring.withVirtualNodes(Map.of("a", 4, "b", 6, "c", 5));
        for (int key = 0; key < 20_000; key++) {
            String before = ring.agentFor(Integer.toString(key));
            String after = moved.agentFor(Integer.toString(key));
            if (!before.equals(after)) {
                // only a's removed point (a:4) loses keys and only b's new point (b:5) gains them
                assertThat(before.equals("a") || after.equals("b")).as("key %d: %s -> %s", key, before, after).isTrue();
            }
        }
        assertThat(moved.size()).isEqualTo(15);
    }

    @Test
    void ownershipSumsToOne() {
        assertThat(ring(AGENTS).ownership().values().stream().mapToDouble(Double::doubleValue).sum())
                .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void invalidConfigurationIsRejectedNamingTheValue() {
        assertThatThrownBy(() -> HashRing.uniform(AGENTS, 0, HashAlgorithm.MD5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("virtualNodes must be >= 1, was 0");
        assertThatThrownBy(() -> HashRing.uniform(List.of(), 150, HashAlgorithm.MD5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("agents must not be empty, was []");
        assertThatThrownBy(() -> HashRing.uniform(List.of("a", "a"), 150, HashAlgorithm.MD5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a appears twice");
        assertThatThrownBy(() -> HashRing.of(Map.of("a", -3), HashAlgorithm.MD5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("virtualNodes of a must be >= 1, was -3");
    }

    @Test
    void aDerivedRingIsTheRingABuildGivesCollisionsIncluded() {
        // Positions 0..4 only: most points collide, so the tie order (agent, then virtual node) matters.
        HashFunction coarse = input -> Long.remainderUnsigned(HashAlgorithm.FNV1A_64.hash(input), 5);
        Random random = new Random(7);
        for (HashFunction function : List.of(coarse, HashAlgorithm.MD5)) {
            HashRing ring = HashRing.of(Map.of("a", 3, "b", 5, "c", 4), function);
            for (int change = 0; change < 50; change++) {
                Map<String, Integer> counts = new HashMap<>(ring.virtualNodes());
                for (String agent : counts.keySet()) {
                    counts.put(agent, Math.max(1, counts.get(agent) + random.nextInt(5) - 2));
                }
                HashRing derived = ring.withVirtualNodes(counts);
                HashRing built = HashRing.of(counts, function);
                assertThat(derived.pointsForTest()).isEqualTo(built.pointsForTest());
                assertThat(derived.virtualNodes()).isEqualTo(built.virtualNodes());
                for (long position : built.pointsForTest()) {
                    List<String> fromDerived = new ArrayList<>();
                    List<String> fromBuilt = new ArrayList<>();
                    derived.agentsClockwise(position).forEachRemaining(fromDerived::add);
                    built.agentsClockwise(position).forEachRemaining(fromBuilt::add);
                    assertThat(fromDerived).isEqualTo(fromBuilt);
                }
                ring = derived;
            }
        }
        HashRing ring = HashRing.of(Map.of("a", 3, "b", 5), HashAlgorithm.MD5);
        assertThatThrownBy(() -> ring.withVirtualNodes(Map.of("a", 0, "b", 5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("virtualNodes of a must be >= 1, was 0");
        assertThat(ring.withVirtualNodes(Map.of("a", 3, "c", 2)).agents()).containsExactly("a", "c");
    }
}
