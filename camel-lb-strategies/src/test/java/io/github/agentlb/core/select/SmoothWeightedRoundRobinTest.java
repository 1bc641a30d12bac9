package io.github.agentlb.core.select;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SmoothWeightedRoundRobinTest {

    private static List<String> picks(SmoothWeightedRoundRobin swrr, int count) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(swrr.select());
        }
        return out;
    }

    @Test
    void weightsFiveOneOneGiveNginxsSequence() {
        SmoothWeightedRoundRobin swrr = new SmoothWeightedRoundRobin();
        swrr.setWeights(Map.of("a", 5, "b", 1, "c", 1));

        assertThat(picks(swrr, 14)).containsExactly(
                "a", "a", "b", "a", "c", "a", "a",
                "a", "a", "b", "a", "c", "a", "a");
    }

    @Test
    void wholeDoubleWeightsAreUsedAsTheyAre() {
        SmoothWeightedRoundRobin swrr = new SmoothWeightedRoundRobin();
        swrr.setWeights(Map.of("a", 5.0, "b", 1.0, "c", 1.0));

        assertThat(swrr.schedule().slots()).containsExactly("a", "a", "b", "a", "c", "a", "a");
    }

    @Test
    void fractionalWeightsAreIntegerizedAndReducedByTheirGcd() {
        SmoothWeightedRoundRobin swrr = new SmoothWeightedRoundRobin();
        swrr.setWeights(Map.of("A1", 1.2, "A2", 1.2, "A3", 0.6));

        assertThat(swrr.schedule().slotCounts()).containsExactly(
                Map.entry("A1", 2), Map.entry("A2", 2), Map.entry("A3", 1));
        assertThat(swrr.schedule().slots()).containsExactly("A1", "A2", "A3", "A1", "A2");
    }

    @Test
    void proportionsOverOneCycleMatchTheWeightsExactly() {
        Random random = new Random(3);
        for (int trial = 0; trial < 20; trial++) {
            Map<String, Double> weights = randomWeights(random, 2 + random.nextInt(6));
            SmoothWeightedRoundRobin.Schedule schedule = SmoothWeightedRoundRobin.Schedule.of(weights, 1000);
            Map<String, Integer> counted = new TreeMap<>();
            schedule.slots().forEach(a -> counted.merge(a, 1, Integer::sum));

            assertThat(counted).isEqualTo(schedule.slotCounts());
            double total = weights.values().stream().mapToDouble(Double::doubleValue).sum();
            for (Map.Entry<String, Double> e : weights.entrySet()) {
                double exact = e.getValue() / total * schedule.length();
                // Largest remainder: within one slot of the exact quota (plus the floor of 1).
                assertThat((double) counted.get(e.getKey())).isCloseTo(exact,
                        within(1.0 + 1e-9));
            }
        }
    }

    @Test
    void noWindowGivesAnAgentMoreThanItsShareRoundedUpPlusOne() {
        Random random = new Random(11);
        for (int trial = 0; trial < 8; trial++) {
            Map<String, Integer> weights = new TreeMap<>();
            int n = 2 + random.nextInt(4);
            for (int i = 0; i < n; i++) {
                weights.put("A" + i, 1 + random.nextInt(60));
            }
            SmoothWeightedRoundRobin.Schedule schedule = SmoothWeightedRoundRobin.Schedule.of(weights, 1000);
            List<String> slots = schedule.slots();
            int len = slots.size();
            int total = weights.values().stream().mapToInt(Integer::intValue).sum();
            assertThat(len).isEqualTo(total / gcd(weights));
            for (Map.Entry<String, Integer> e : weights.entrySet()) {
                int[] prefix = new int[2 * len + 1];
                for (int i = 0; i < 2 * len; i++) {
                    prefix[i + 1] = prefix[i] + (slots.get(i % len).equals(e.getKey()) ? 1 : 0);
                }
                double share = (double) e.getValue() / total;
                List<String> violations = new ArrayList<>();
                for (int k = 1; k <= len; k++) {
                    long bound = (long) Math.ceil(share * k - 1e-9) + 1;
                    for (int start = 0; start < len; start++) {
                        int count = prefix[start + k] - prefix[start];
                        if (count > bound) {
                            violations.add("window " + k + " at " + start + ": " + count + " > " + bound);
                        }
                    }
                }
                assertThat(violations).as("agent %s, weights %s", e.getKey(), weights).isEmpty();
            }
        }
    }

    @Test
    void scheduleDependsOnlyOnTheWeightsNotOnInsertionOrder() {
        Map<String, Double> forward = new LinkedHashMap<>();
        Map<String, Double> backward = new LinkedHashMap<>();
        String[] ids = {"zeta", "alpha", "mid", "beta"};
        double[] w = {0.7, 1.3, 1.0, 1.0};
        for (int i = 0; i < ids.length; i++) {
            forward.put(ids[i], w[i]);
        }
        for (int i = ids.length - 1; i >= 0; i--) {
            backward.put(ids[i], w[i]);
        }

        assertThat(SmoothWeightedRoundRobin.Schedule.of(forward, 1000).slots())
                .isEqualTo(SmoothWeightedRoundRobin.Schedule.of(backward, 1000).slots());
    }

    @Test
    void picksFollowTheScheduleAndTheFailoverOrderIsByDescendingWeightTiesById() {
        SmoothWeightedRoundRobin swrr = new SmoothWeightedRoundRobin();
        swrr.setWeights(Map.of("a", 5, "b", 1, "c", 1, "d", 3));

        List<String> picks = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            picks.add(swrr.select());
        }

        assertThat(swrr.schedule().failoverOrder()).containsExactly("a", "d", "b", "c");
        assertThat(picks).isEqualTo(swrr.schedule().slots().subList(0, 10));
    }

    @Test
    void noAgentsMeansNullPickAndNoFailoverOrder() {
        SmoothWeightedRoundRobin swrr = new SmoothWeightedRoundRobin();

        assertThat(swrr.select()).isNull();
        assertThat(swrr.schedule().failoverOrder()).isEmpty();

        swrr.setWeights(Map.of("a", 1));
        swrr.setWeights(Map.of());
        assertThat(swrr.select()).isNull();
    }

    @Test
    void tinyWeightsStillGetASlot() {
        SmoothWeightedRoundRobin.Schedule s = SmoothWeightedRoundRobin.Schedule.of(
                Map.of("big", 10_000.0, "tiny", 0.001), 1000);

        assertThat(s.slotCounts().get("tiny")).isEqualTo(1);
        assertThat(s.slots()).contains("tiny");
    }

    @Test
    void rejectsBadWeightsAndResolution() {
        SmoothWeightedRoundRobin swrr = new SmoothWeightedRoundRobin();
        Map<String, Double> withNull = new HashMap<>();
        withNull.put(null, 1.0);

        assertThatThrownBy(() -> swrr.setWeights(Map.of("a", 0.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weight of a must be finite and > 0, was 0.0");
        assertThatThrownBy(() -> swrr.setWeights(Map.of("a", Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weight of a must be finite and > 0, was NaN");
        assertThatThrownBy(() -> swrr.setWeights(Map.of("a", Double.POSITIVE_INFINITY)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weight of a must be finite and > 0, was Infinity");
        assertThatThrownBy(() -> swrr.setWeights(withNull))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent id must not be null");
        assertThatThrownBy(() -> new SmoothWeightedRoundRobin(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("resolution must be >= 1, was 0");
    }

    private static Map<String, Double> randomWeights(Random random, int n) {
        Map<String, Double> weights = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            weights.put("A" + i, 0.1 + random.nextDouble() * 3);
        }
        return weights;
    }

    private static int gcd(Map<String, Integer> weights) {
        int g = 0;
        for (int w : weights.values()) {
            g = BigInteger.valueOf(g).gcd(BigInteger.valueOf(w)).intValue();
        }
        return g;
    }
}
