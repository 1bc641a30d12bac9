package io.github.agentlb.core.avn;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Virtual node counts after agents join or leave, as a pure step function: the survivors keep the
 * counts they have (start-up allocation or learned by {@link Reallocation}), a departed agent's
 * nodes go, a newcomer gets its paper eq. (2) share of the ring.
 *
 * <h2>Guarantees</h2>
 * On the ring built from the result ({@link io.github.agentlb.core.ring.HashRing}):
 * <ul>
 *   <li><b>Removal:</b> only the departed agent's keys move, each to the next agent clockwise; no
 *       key moves between survivors.
 *   <li><b>Addition:</b> only points are added, so every key that moves, moves <em>to</em> a
 *       newcomer. An agent removed and added back on an unchanged ring gets its nodes back, and every
 *       key its owner.
 * </ul>
 * Rebuilding by eq. (2) with a constant total broke both: removing one of three agents
 * (50/50/50 to 75/75) moved 8,325 of 100,000 keys between the survivors, adding a fourth
 * (38/38/37/37) moved 15,256 among the other three.
 *
 * <h2>What the total means</h2>
 * {@code N} ({@link AdaptiveVirtualNodesConfig#totalVirtualNodes()}) is the total of the first
 * allocation, and of any allocation that starts over (no survivor). After that the total is the
 * sum of the members' counts: a removal shrinks it by the departed agent's nodes, an addition
 * grows it by the newcomer's. Giving the newcomer nodes taken from the others would keep the
 * total, but a one-node move also removes a donor's point, whose keys go to the next point
 * clockwise, mostly another survivor: that is the collateral move the guarantees exclude. With
 * agents that look alike the density stays at {@code N / h0} nodes per agent (h0 the first
 * number of agents), so a ring of 150 over three agents becomes 200 over four.
 *
 * <h2>A newcomer's share, eq. (2)</h2>
 * {@code N_i} proportional to {@code W_i}: the newcomers {@code X} together get
 * {@code n = round(T_s * W_X / W_s)} nodes ({@code T_s} the survivors' nodes, {@code W_s} and
 * {@code W_X} the summed weights), so that their part of the ring, {@code n / (T_s + n)}, is their
 * part of the weight, {@code W_X / (W_s + W_X)}; {@code n} is shared among them by
 * {@link VirtualNodeAllocation#allocate} (each at least 1). The survivors' learned ratios are
 * kept as they are.
 *
 * <p>Stateless and thread-safe. O(h^2) at worst (the allocation among newcomers), h = agents.
 */
public final class MembershipChange {

    private MembershipChange() {
    }

    /**
     * The counts for a new set of agents.
     *
     * @param current agent id to its current virtual nodes (each >= 1); empty before the first allocation
     * @param weights the new agents, each to its capacity weight {@code W_i} (eq. 1, positive and
     *                finite, need not be normalized); an agent of {@code current} missing here has left
     * @param total   {@code N}, used when no current agent stays
     * @return agent id to its virtual nodes, sorted by agent id
     * @throws IllegalArgumentException if {@code weights} is empty, an agent id is blank, a weight is
     *                                  not positive and finite, or {@code total} is below the agents
     *                                  when starting over
     */
    public static SortedMap<String, Integer> virtualNodes(Map<String, Integer> current, Map<String, Double> weights,
            int total) {
        VirtualNodeAllocation.requireWeights(weights);
        SortedMap<String, Integer> counts = new TreeMap<>();
        SortedMap<String, Double> newcomers = new TreeMap<>();
        double survivorWeight = 0;
        double newcomerWeight = 0;
        long survivorNodes = 0;
        for (Map.Entry<String, Double> e : weights.entrySet()) {
            Integer count = current.get(e.getKey());
            if (count == null) {
                newcomers.put(e.getKey(), e.getValue());
                newcomerWeight += e.getValue();
            } else {
                counts.put(e.getKey(), count);
                survivorWeight += e.getValue();
                survivorNodes += count;
            }
        }
        if (counts.isEmpty()) {
            return VirtualNodeAllocation.allocate(weights, total);
        }
        if (!newcomers.isEmpty()) {
            long share = Math.round(survivorNodes * newcomerWeight / survivorWeight);
            int nodes = (int) Math.min(Integer.MAX_VALUE, Math.max(newcomers.size(), share));
            counts.putAll(VirtualNodeAllocation.allocate(newcomers, nodes));
        }
        return counts;
    }
}
