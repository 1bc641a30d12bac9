package io.github.agentlb.core.avn;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The paper's start-up allocation: capacity weights from start-up utilization (eq. 1) and virtual
 * node counts proportional to them (eq. 2).
 *
 * <p>Stateless and thread-safe; every method is O(h log h), h = hosts. Results are sorted by host
 * id and depend only on the inputs, never on map iteration order.
 */
public final class VirtualNodeAllocation {

    private VirtualNodeAllocation() {
    }

    /**
     * Capacity weights, paper eq. (1): {@code P_i = a_c * P_ci + a_m * P_mi}, {@code W_i ~ 1 / P_i},
     * normalized to sum to 1. A busier host at start-up (larger {@code P_i}) is the weaker one and
     * gets the smaller weight. {@code P_i} below {@link AdaptiveVirtualNodesConfig#UTILIZATION_FLOOR}
     * is raised to it, so an idle host's weight stays finite.
     *
     * @param startup host id to its start-up CPU and memory utilization; not empty
     * @return host id to its weight, fractions summing to 1, sorted by host id
     * @throws IllegalArgumentException if {@code startup} is empty or a host id is blank
     */
    public static SortedMap<String, Double> capacityWeights(Map<String, HostUtilization> startup,
            AdaptiveVirtualNodesConfig config) {
        requireHosts(startup == null ? null : startup.keySet());
        SortedMap<String, Double> inverse = new TreeMap<>();
        startup.forEach((host, utilization) -> {
            double p = config.capacityCpuWeight() * utilization.cpu()
                    + config.capacityMemoryWeight() * utilization.memory();
            inverse.put(host, 1 / Math.max(p, AdaptiveVirtualNodesConfig.UTILIZATION_FLOOR));
        });
        return normalized(inverse);
    }

    /** Equal weights {@code 1 / h} for every host: what eq. (1) gives hosts that look alike. */
    public static SortedMap<String, Double> equalWeights(Collection<String> hosts) {
        requireHosts(hosts);
        SortedMap<String, Double> weights = new TreeMap<>();
        for (String host : hosts) {
            weights.put(host, 1.0);
        }
        return normalized(weights);
    }

    /**
     * Virtual node counts, paper eq. (2): {@code N_i} proportional to {@code W_i}, summing to
     * {@code total}, every host at least 1.
     *
     * <p>Largest remainder (Hamilton) with a floor of one: a host whose quota {@code total * w_i}
     * is below 1 gets exactly 1 and leaves the rest; the others share what remains in proportion to
     * their weights, each taking the integer part of its quota, and the nodes left over go one
     * each to the largest fractional parts, ties to the smaller host id. Weights 2:2:1 give
     * (2, 2, 1), (4, 4, 2), (6, 6, 3) and (8, 8, 4) for totals 5, 10, 15 and 20.
     *
     * @param weights host id to a positive weight (need not be normalized)
     * @param total   {@code N}, at least the number of hosts
     * @return host id to its count, sorted by host id
     * @throws IllegalArgumentException if {@code total} is below the number of hosts or a weight is not positive
     */
    public static SortedMap<String, Integer> allocate(Map<String, Double> weights, int total) {
        requireHosts(weights == null ? null : weights.keySet());
        if (total < weights.size()) {
            throw new IllegalArgumentException("totalVirtualNodes must be >= the number of hosts (" + weights.size()
                    + "), was " + total);
        }
        weights.forEach((host, w) -> {
            if (w == null || !(w > 0) || w.isInfinite()) {
                throw new IllegalArgumentException("weight of " + host + " must be > 0, was " + w);
            }
        });
        SortedMap<String, Integer> counts = new TreeMap<>();
        SortedMap<String, Double> open = new TreeMap<>(weights);
        int remaining = total;
        boolean pinned = true;
        while (pinned) {
            pinned = false;
            double sum = open.values().stream().mapToDouble(Double::doubleValue).sum();
            for (String host : List.copyOf(open.keySet())) {
                if (remaining * open.get(host) / sum < 1) {
                    counts.put(host, 1);
                    open.remove(host);
                    remaining--;
                    pinned = true;
                }
            }
        }
        if (open.isEmpty()) {
            return counts;
        }
        double sum = open.values().stream().mapToDouble(Double::doubleValue).sum();
        List<Map.Entry<String, Double>> remainders = new ArrayList<>();
        int assigned = 0;
        for (Map.Entry<String, Double> e : open.entrySet()) {
            double quota = remaining * e.getValue() / sum;
            int whole = (int) Math.floor(quota);
            counts.put(e.getKey(), whole);
            assigned += whole;
            remainders.add(Map.entry(e.getKey(), quota - whole));
        }
        remainders.sort(Comparator.<Map.Entry<String, Double>>comparingDouble(Map.Entry::getValue).reversed()
                .thenComparing(Map.Entry::getKey));
        for (int i = 0; i < remaining - assigned; i++) {
            counts.merge(remainders.get(i).getKey(), 1, Integer::sum);
        }
        return counts;
    }

    private static SortedMap<String, Double> normalized(SortedMap<String, Double> weights) {
        double sum = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        weights.replaceAll((host, w) -> w / sum);
        return weights;
    }

    private static void requireHosts(Collection<String> hosts) {
        if (hosts == null || hosts.isEmpty()) {
            throw new IllegalArgumentException("hosts must not be empty, was " + hosts);
        }
        for (String host : hosts) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("host id must not be blank, was '" + host + "'");
            }
        }
    }
}
