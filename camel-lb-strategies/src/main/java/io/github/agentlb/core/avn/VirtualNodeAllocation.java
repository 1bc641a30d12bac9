package io.github.agentlb.core.avn;

import io.github.agentlb.core.Check;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The paper's start-up allocation: capacity weights from start-up utilization (eq. 1) and virtual
 * node counts proportional to them (eq. 2).
 *
 * <p>Stateless and thread-safe; {@link #capacityWeights} and {@link #equalWeights} are
 * O(h log h), {@link #allocate} O(h^2) at worst (one pinning round per agent), h = agents. Results are sorted by agent
 * id and depend only on the inputs, never on map iteration order.
 */
public final class VirtualNodeAllocation {

    private VirtualNodeAllocation() {
    }

    /**
     * Capacity weights, paper eq. (1): {@code P_i = a_c * P_ci + a_m * P_mi}, {@code W_i ~ 1 / P_i},
     * normalized to sum to 1. A busier agent at start-up (larger {@code P_i}) is the weaker one and
     * gets the smaller weight. {@code P_i} below {@link AdaptiveVirtualNodesConfig#UTILIZATION_FLOOR}
     * is raised to it, so an idle agent's weight stays finite.
     *
     * @param startup agent id to its start-up CPU and memory utilization; not empty
     * @return agent id to its weight, fractions summing to 1, sorted by agent id
     * @throws IllegalArgumentException if {@code startup} is empty, an agent id is blank or a utilization null
     */
    public static SortedMap<String, Double> capacityWeights(Map<String, AgentUtilization> startup,
            AdaptiveVirtualNodesConfig config) {
        requireAgents(startup == null ? null : startup.keySet());
        SortedMap<String, Double> inverse = new TreeMap<>();
        startup.forEach((agent, utilization) -> {
            if (utilization == null) {
                throw new IllegalArgumentException("start-up utilization of " + agent + " must not be null");
            }
            double p = config.capacityWeights().cpu() * utilization.cpu()
                    + config.capacityWeights().memory() * utilization.memory();
            inverse.put(agent, 1 / Math.max(p, AdaptiveVirtualNodesConfig.UTILIZATION_FLOOR));
        });
        return normalized(inverse);
    }

    /** Equal weights {@code 1 / h} for every agent: what eq. (1) gives agents that look alike. */
    public static SortedMap<String, Double> equalWeights(Collection<String> agents) {
        requireAgents(agents);
        SortedMap<String, Double> weights = new TreeMap<>();
        for (String agent : agents) {
            weights.put(agent, 1.0);
        }
        return normalized(weights);
    }

    /**
     * Virtual node counts, paper eq. (2): {@code N_i} proportional to {@code W_i}, summing to
     * {@code total}, every agent at least 1.
     *
     * <p>Largest remainder (Hamilton) with a floor of one. Pinning runs in rounds: each round
     * computes every open agent's quota {@code remaining * w_i / sum(open w)} against the same
     * budget and pins all agents whose quota is below 1 at exactly 1; the next round shares what
     * is left among the rest. Then each open agent takes the integer part of its quota, and the
     * nodes left over go one each to the largest fractional parts, ties to the smaller agent id.
     * Weights 2:2:1 give (2, 2, 1), (4, 4, 2), (6, 6, 3) and (8, 8, 4) for totals 5, 10, 15 and 20;
     * {@code {a:6, b:8, c:11}} over 4 gives (1, 1, 2).
     *
     * <p>Guarantees: the counts sum to {@code total} exactly; each is at least 1; a larger weight
     * never gets fewer nodes; an open agent's count is its quota rounded down or up. Why they
     * hold: a round pins only agents whose quota is below the 1 they get, so the budget left is at
     * least the number of open agents, and a round can never pin them all (their quotas sum to the
     * budget); the integer parts then sum to at most the budget, with less than one node per open
     * agent left over. Quotas, integer parts and remainders are computed exactly
     * ({@link BigDecimal} of the weights), so no rounding can break the sum or the order.
     *
     * @param weights agent id to a positive, finite weight (need not be normalized)
     * @param total   {@code N}, at least the number of agents
     * @return agent id to its count, sorted by agent id
     * @throws IllegalArgumentException if {@code weights} is null or empty, an agent id is blank, a
     *                                  weight is null, not finite or not positive, or {@code total}
     *                                  is below the number of agents
     */
    public static SortedMap<String, Integer> allocate(Map<String, Double> weights, int total) {
        requireWeights(weights);
        SortedMap<String, BigDecimal> open = new TreeMap<>();
        weights.forEach((agent, w) -> open.put(agent, new BigDecimal(w)));
        if (total < weights.size()) {
            throw new IllegalArgumentException("totalVirtualNodes must be >= the number of agents (" + weights.size()
                    + "), was " + total);
        }
        SortedMap<String, Integer> counts = new TreeMap<>();
        int remaining = total;
        List<String> pinned = belowOne(open, remaining);
        while (!pinned.isEmpty()) {
            for (String agent : pinned) {
                counts.put(agent, 1);
                open.remove(agent);
            }
            remaining -= pinned.size();
            pinned = belowOne(open, remaining);
        }
        BigDecimal sum = sum(open);
        BigDecimal budget = BigDecimal.valueOf(remaining);
        List<Map.Entry<String, BigDecimal>> remainders = new ArrayList<>();
        int assigned = 0;
        for (Map.Entry<String, BigDecimal> e : open.entrySet()) {
            // quota = budget * w / sum = whole + remainder / sum, exactly
            BigDecimal[] division = budget.multiply(e.getValue()).divideAndRemainder(sum);
            int whole = division[0].intValueExact();
            counts.put(e.getKey(), whole);
            assigned += whole;
            remainders.add(Map.entry(e.getKey(), division[1]));
        }
        remainders.sort(Map.Entry.<String, BigDecimal>comparingByValue().reversed()
                .thenComparing(Map.Entry.comparingByKey()));
        for (int i = 0; i < remaining - assigned; i++) {
            counts.merge(remainders.get(i).getKey(), 1, Integer::sum);
        }
        return counts;
    }

    /** The open agents whose quota of {@code remaining} nodes is below one: {@code remaining * w < sum}. */
    private static List<String> belowOne(SortedMap<String, BigDecimal> open, int remaining) {
        BigDecimal sum = sum(open);
        BigDecimal budget = BigDecimal.valueOf(remaining);
        List<String> below = new ArrayList<>();
        open.forEach((agent, w) -> {
            if (budget.multiply(w).compareTo(sum) < 0) {
                below.add(agent);
            }
        });
        return below;
    }

    private static BigDecimal sum(Map<String, BigDecimal> weights) {
        return weights.values().stream().reduce(BigDecimal.ZERO, BigDecimal::add);
    }

    private static SortedMap<String, Double> normalized(SortedMap<String, Double> weights) {
        double sum = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        weights.replaceAll((agent, w) -> w / sum);
        return weights;
    }

    /**
     * @throws IllegalArgumentException if {@code weights} is null or empty, an agent id is blank, or a
     *                                  weight is null, not finite or not positive
     */
    static void requireWeights(Map<String, Double> weights) {
        requireAgents(weights == null ? null : weights.keySet());
        weights.forEach((agent, w) -> Check.finitePositive("weight of " + agent, w == null ? Double.NaN : w));
    }

    /**
     * The weights normalized to sum to 1, sorted by agent id.
     *
     * @throws IllegalArgumentException as {@link #requireWeights}
     */
    static SortedMap<String, Double> shares(Map<String, Double> weights) {
        requireWeights(weights);
        return normalized(new TreeMap<>(weights));
    }

    private static void requireAgents(Collection<String> agents) {
        for (String agent : Check.notEmpty("agents", agents)) {
            Check.notBlank("agent id", agent);
        }
    }
}
