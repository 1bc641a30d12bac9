package io.github.agentlb.core.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.hash.HashFunction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/** Lookups on and next to points, at both ends of the unsigned range, on rings whose points are placed by hand. */
class HashRingBoundaryTest {

    /** Places each label at the position given; any other input at 0. */
    private static HashFunction placed(Map<String, Long> positions) {
        return input -> positions.getOrDefault(new String(input, StandardCharsets.UTF_8), 0L);
    }

    private static HashRing ring(Map<String, Long> labelPositions) {
        Map<String, Integer> counts = new HashMap<>();
        labelPositions.keySet().forEach(label -> counts.merge(label.substring(0, label.indexOf(':')), 1, Integer::sum));
        return HashRing.of(counts, placed(labelPositions));
    }

    @Test
    void aPositionOnAPointBelongsToThatPointAndThePositionAfterItToTheNext() {
        HashRing ring = ring(Map.of("a:0", 10L, "b:0", 20L, "c:0", 30L));

        assertThat(ring.agentAt(10)).isEqualTo("a");
        assertThat(ring.agentAt(11)).isEqualTo("b");
        assertThat(ring.agentAt(20)).isEqualTo("b");
        assertThat(ring.agentAt(21)).isEqualTo("c");
        assertThat(ring.agentAt(30)).isEqualTo("c");
        assertThat(ring.agentAt(31)).isEqualTo("a");
        assertThat(ring.agentAt(9)).isEqualTo("a");
    }

    @Test
    void positionsZeroAndTheLargestUnsignedAreOrdinaryPointsAndTheRingWraps() {
        HashRing ring = ring(Map.of("a:0", 0L, "b:0", Long.MIN_VALUE, "c:0", -1L));

        assertThat(ring.agentAt(0)).isEqualTo("a");
        assertThat(ring.agentAt(1)).isEqualTo("b");
        assertThat(ring.agentAt(Long.MAX_VALUE)).isEqualTo("b");
        assertThat(ring.agentAt(Long.MIN_VALUE)).isEqualTo("b");
        assertThat(ring.agentAt(Long.MIN_VALUE + 1)).isEqualTo("c");
        assertThat(ring.agentAt(-1L)).isEqualTo("c");
        assertThat(ring.agentFor("anything")).isEqualTo("a");
    }

    @Test
    void clockwiseWalksFromTheOwnerAcrossTheWrapEachAgentOnceThenStops() {
        HashRing ring = ring(Map.of("a:0", 10L, "a:1", 40L, "b:0", 20L, "c:0", 30L));

        Iterator<String> walk = ring.agentsClockwise(25);
        List<String> order = new ArrayList<>();
        walk.forEachRemaining(order::add);

        assertThat(order).containsExactly("c", "a", "b");
        assertThat(walk.hasNext()).isFalse();
        assertThatThrownBy(walk::next).isInstanceOf(NoSuchElementException.class);
        List<String> fromTheLast = new ArrayList<>();
        ring.agentsClockwise(41).forEachRemaining(fromTheLast::add);
        assertThat(fromTheLast).containsExactly("a", "b", "c");
    }

    @Test
    void ownershipIsEachAgentsArcsIncludingTheOneAcrossTheWrap() {
        HashRing halves = ring(Map.of("a:0", 1L << 62, "b:0", Long.MIN_VALUE));
        // b owns (2^62, 2^63]: a quarter; a owns the rest, across the wrap
        assertThat(halves.ownership()).containsExactly(Map.entry("a", 0.75), Map.entry("b", 0.25));

        HashRing tiny = ring(Map.of("a:0", 1L, "b:0", 4L));
        assertThat(tiny.ownership().get("b")).isEqualTo(3 / Math.pow(2, 64));

        HashRing single = ring(Map.of("a:0", 5L));
        assertThat(single.ownership()).containsExactly(Map.entry("a", 1.0));
    }

    @Test
    void accessorsDescribeTheRing() {
        HashFunction hash = placed(Map.of("a:0", 10L, "a:1", 40L, "b:0", 20L));
        HashRing ring = HashRing.of(Map.of("b", 1, "a", 2), hash);

        assertThat(ring.size()).isEqualTo(3);
        assertThat(ring.agents()).containsExactly("a", "b");
        assertThat(ring.virtualNodes()).containsExactly(Map.entry("a", 2), Map.entry("b", 1));
        assertThat(ring.hashFunction()).isSameAs(hash);
        assertThat(ring.hash("a:1")).isEqualTo(40L);
        assertThat(ring.pointsForTest()).containsExactly(10L, 20L, 40L);
        assertThat(ring.toString()).isEqualTo("HashRing{a=2, b=1} (3 points)");
        assertThat(HashRing.label("a", 7)).isEqualTo("a:7");

        HashRing wider = ring.withVirtualNodes(Map.of("a", 1, "b", 1));
        assertThat(wider.hashFunction()).isSameAs(hash);
        assertThat(wider.pointsForTest()).containsExactly(10L, 20L);
    }

    @Test
    void badAgentsAndCountsAreRejectedNamingTheValue() {
        Map<String, Integer> nullCount = new HashMap<>();
        nullCount.put("a", null);
        HashFunction hash = placed(Map.of());

        assertThatThrownBy(() -> HashRing.of(nullCount, hash)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("virtualNodes of a must be >= 1, was null");
        assertThatThrownBy(() -> HashRing.of(Map.of("a", 0), hash)).hasMessage("virtualNodes of a must be >= 1, was 0");
        assertThatThrownBy(() -> HashRing.of(Map.of(" ", 1), hash)).hasMessage("agent id must not be blank, was ' '");
        assertThatThrownBy(() -> HashRing.of(null, hash)).hasMessage("agents must not be empty, was null");
        assertThatThrownBy(() -> HashRing.of(Map.of("a", 1), null)).isInstanceOf(NullPointerException.class)
                .hasMessage("hashFunction");
        assertThatThrownBy(() -> HashRing.uniform(null, 1, hash)).hasMessage("agents must not be empty, was null");
        assertThat(HashRing.uniform(List.of("a"), 1, hash).size()).isEqualTo(1);
    }
}
