package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Eq. (2) by largest remainder with a floor of one: exact cases, argument checks, a seeded property test. */
class VirtualNodeAllocationTest {

    @Test
    void pinningSeveralAgentsStillSumsToTheTotal() {
        // quotas 0.96, 1.28, 1.76: only "a" is below one; b and c share the 3 left (1.26, 1.74)
        assertThat(VirtualNodeAllocation.allocate(Map.of("a", 6.0, "b", 8.0, "c", 11.0), 4))
                .containsExactly(Map.entry("a", 1), Map.entry("b", 1), Map.entry("c", 2));
        // a and b pinned first; then c's quota of the 2 left is 2 * 1 / 3.9 = 0.51: pinned in a second round
        assertThat(VirtualNodeAllocation.allocate(Map.of("a", 0.001, "b", 0.001, "c", 1.0, "d", 2.9), 4))
                .containsExactly(Map.entry("a", 1), Map.entry("b", 1), Map.entry("c", 1), Map.entry("d", 1));
        assertThat(VirtualNodeAllocation.allocate(Map.of("a", 0.001, "b", 0.001, "c", 1.0, "d", 2.9), 10))
                .containsExactly(Map.entry("a", 1), Map.entry("b", 1), Map.entry("c", 2), Map.entry("d", 6));
    }

    @Test
    void argumentsAreChecked() {
        Map<String, Double> nullWeight = new HashMap<>();
        nullWeight.put("a", null);
        Map<String, Double> blank = new HashMap<>(Map.of(" ", 1.0));
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(null, 3)).hasMessage("agents must not be empty, was null");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(Map.of(), 3)).hasMessage("agents must not be empty, was []");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(blank, 3)).hasMessage("agent id must not be blank, was ' '");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(nullWeight, 3)).hasMessage("weight of a must be finite and > 0, was NaN");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(Map.of("a", -1.0), 3)).hasMessage("weight of a must be finite and > 0, was -1.0");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(Map.of("a", 0.0), 3)).hasMessage("weight of a must be finite and > 0, was 0.0");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(Map.of("a", Double.NaN), 3)).hasMessage("weight of a must be finite and > 0, was NaN");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(Map.of("a", Double.POSITIVE_INFINITY), 3))
                .hasMessage("weight of a must be finite and > 0, was Infinity");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(Map.of("a", 1.0, "b", 1.0), 1))
                .hasMessage("totalVirtualNodes must be >= the number of agents (2), was 1");
        assertThatThrownBy(() -> VirtualNodeAllocation.equalWeights(null)).hasMessage("agents must not be empty, was null");
        assertThatThrownBy(() -> VirtualNodeAllocation.equalWeights(List.of())).hasMessage("agents must not be empty, was []");
        assertThatThrownBy(() -> VirtualNodeAllocation.capacityWeights(Map.of(), AdaptiveVirtualNodesConfig.ofDefaults()))
                .hasMessage("agents must not be empty, was []");
    }

    /**
     * 5,000 seeded random cases: half with weights spread over nine orders of magnitude (pinning
     * in one round, in several, or not at all), half with small whole weights and a total just
     * above the number of agents (quotas near one, where a pinning round must see the same budget).
     */
    @Test
    void randomWeightsAndTotalsKeepEveryPropertyOfTheAllocation() {
        Random random = new Random(7);
        int pinnedCases = 0;
        for (int trial = 0; trial < 5_000; trial++) {
            int agents = 1 + random.nextInt(12);
            Map<String, Double> weights = new TreeMap<>();
            boolean spread = trial % 2 == 0;
            for (int h = 0; h < agents; h++) {
                weights.put("h" + h, spread ? Math.pow(10, -6 + 9 * random.nextDouble()) : 1.0 + random.nextInt(12));
            }
            int total = agents + random.nextInt(spread ? agents * 60 : agents + 1);
            SortedMap<String, Integer> counts = VirtualNodeAllocation.allocate(weights, total);
            String trialName = "trial " + trial + ": " + weights + " total " + total + " -> " + counts;

            assertThat(counts.keySet()).as(trialName).isEqualTo(weights.keySet());
            assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).as(trialName).isEqualTo(total);
            assertThat(counts.values()).as(trialName).allSatisfy(c -> assertThat(c).isGreaterThanOrEqualTo(1));
            for (String i : weights.keySet()) {
                for (String j : weights.keySet()) {
                    if (weights.get(i) > weights.get(j)) {
                        assertThat(counts.get(i)).as(trialName + " monotone " + i + " " + j)
                                .isGreaterThanOrEqualTo(counts.get(j));
                    }
                }
            }
            // Over the agents not pinned at one, each count is its quota rounded down or up, and a
            // agent rounded up has a fractional part at least as large as any agent rounded down.
            Map<String, Double> open = new TreeMap<>(weights);
            int remaining = total;
            List<String> pinned = pinned(open, remaining);
            while (!pinned.isEmpty()) {
                pinnedCases++;
                for (String agent : pinned) {
                    assertThat(counts.get(agent)).as(trialName + " pinned " + agent).isEqualTo(1);
                    open.remove(agent);
                    remaining--;
                }
                pinned = pinned(open, remaining);
            }
            double sum = open.values().stream().mapToDouble(Double::doubleValue).sum();
            double smallestUp = Double.POSITIVE_INFINITY;
            double largestDown = Double.NEGATIVE_INFINITY;
            for (Map.Entry<String, Double> e : open.entrySet()) {
                double quota = remaining * e.getValue() / sum;
                int count = counts.get(e.getKey());
                assertThat((double) count).as(trialName + " quota of " + e.getKey())
                        .isBetween(Math.floor(quota) - 1e-9, Math.ceil(quota) + 1e-9);
                double fraction = quota - Math.floor(quota);
                if (count > Math.floor(quota)) {
                    smallestUp = Math.min(smallestUp, fraction);
                } else {
                    largestDown = Math.max(largestDown, fraction);
                }
            }
            assertThat(smallestUp).as(trialName + " remainder order").isGreaterThanOrEqualTo(largestDown - 1e-9);
        }
        assertThat(pinnedCases).isGreaterThan(1_000);
    }

    /** The agents whose quota of {@code remaining} is below one: eq. (2)'s floor pins them at one. */
    private static List<String> pinned(Map<String, Double> open, int remaining) {
        double sum = open.values().stream().mapToDouble(Double::doubleValue).sum();
        List<String> below = new ArrayList<>();
        open.forEach((agent, w) -> {
            if (remaining * w / sum < 1) {
                below.add(agent);
            }
        });
        return below;
    }
}
