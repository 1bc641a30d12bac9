package io.github.agentlb.loadgen.stats;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The state an adaptive virtual node balancer ({@code avn}) ended a run in.
 *
 * @param virtualNodes    agent id to its virtual nodes on the ring, sorted by id; unmodifiable
 * @param imbalanceIndex  S of the last evaluation (paper eqs. 4-5: standard deviation of the load
 *                        indices over their mean), fraction; 0 before the first evaluation
 * @param reallocations   virtual nodes moved since the balancer started (warm-up included)
 */
public record AvnSummary(SortedMap<String, Integer> virtualNodes, double imbalanceIndex, long reallocations) {

    public AvnSummary {
        virtualNodes = Collections.unmodifiableSortedMap(new TreeMap<>(virtualNodes));
    }

    /** Total virtual nodes (constant over a run). */
    public int totalVirtualNodes() {
        return virtualNodes.values().stream().mapToInt(Integer::intValue).sum();
    }
}
