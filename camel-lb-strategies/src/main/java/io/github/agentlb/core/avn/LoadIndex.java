package io.github.agentlb.core.avn;

import io.github.agentlb.core.stats.LoadStatistics;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The paper's load index {@code L_i} (eq. 3) and imbalance index {@code S} (eqs. 4-5).
 *
 * <h2>Load index, eq. (3)</h2>
 * {@code L_i = 100 * (b_c * L_ci + b_m * L_mi + b_t * L_ti)}, with {@code L_ci}, {@code L_mi} the
 * agent's CPU and memory utilization (fractions 0..1) and {@code L_ti} its request share (fraction)
 * in the evaluation window, so {@code L_i} is in percent.
 * <ul>
 *   <li><b>Request share relative to capacity.</b> We use
 *       {@code L_ti = s_i / (h * e_i)}: {@code s_i} the agent's fraction of the window's requests,
 *       {@code e_i} its capacity weight (eq. 1, normalized to sum to 1), {@code h} the number of
 *       agents. For equal agents ({@code e_i = 1/h}) this is exactly the paper's share
 *       {@code s_i}. For unequal agents it is the share the agent is entitled to, so a 2:2:1
 *       split over 2:2:1 agents gives equal {@code L_ti}; with the raw share the weaker agent would
 *       look under-loaded precisely when it is balanced, and would be given more keys.
 *   <li><b>Without utilization reports.</b> When not every agent has reported CPU and memory, the
 *       index uses the request share alone: {@code b_c = b_m = 0}, {@code b_t = 1}, so
 *       {@code L_i = 100 * L_ti}. Mixing both forms across agents would compare unlike figures.
 * </ul>
 *
 * <h2>Imbalance index, eqs. (4)-(5)</h2>
 * {@code Lbar = (1/h) * sum L_i} (4) and
 * {@code S = sqrt((1/h) * sum (L_i - Lbar)^2) / Lbar} (5): the population standard deviation of
 * the {@code L_i} over their mean, their coefficient of variation
 * ({@link LoadStatistics#coefficientOfVariation()}); 0 when the mean is 0. The paper calls it a
 * "standard-deviation based" index and compares it with a threshold of 0.1 whatever the load:
 * only the relative form makes that threshold mean the same thing at 10% and at 90% utilization
 * (a bare standard deviation of {@code L_i}, in percent points, grows with the load). It is also
 * the CV of the assignment's load report, so "S below 0.1" and "CV at most 10%" agree.
 *
 * <p>Stateless and thread-safe; O(h) per call.
 */
public final class LoadIndex {

    private LoadIndex() {
    }

    /**
     * {@code L_ti}: the agent's request share relative to its capacity, {@code s_i / (h * e_i)}.
     *
     * @param requests      the agent's requests in the window
     * @param totalRequests all agents' requests in the window; 0 gives 0
     * @param capacityShare {@code e_i}, fraction in (0, 1]
     * @param agents         {@code h}, >= 1
     */
    public static double requestShare(long requests, long totalRequests, double capacityShare, int agents) {
        if (totalRequests <= 0) {
            return 0;
        }
        return (double) requests / totalRequests / (agents * capacityShare);
    }

    /** Eq. (3) with utilization: {@code 100 * (b_c * cpu + b_m * memory + b_t * requestShare)}, percent. */
    public static double loadIndex(AgentUtilization utilization, double requestShare, AdaptiveVirtualNodesConfig config) {
        return 100 * (config.loadWeights().cpu() * utilization.cpu()
                + config.loadWeights().memory() * utilization.memory()
                + config.loadWeights().requests() * requestShare);
    }

    /** Eq. (3) without utilization reports ({@code b_t = 1}): {@code 100 * requestShare}, percent. */
    public static double loadIndex(double requestShare) {
        return 100 * requestShare;
    }

    /**
     * The load index of every agent.
     *
     * @param requests       agent id to its requests in the window; the agent set
     * @param capacityShares agent id to {@code e_i}; an agent missing here counts as {@code 1/h}
     * @param utilization    agent id to its CPU and memory utilization; used only if it covers every agent
     * @return agent id to {@code L_i} in percent, sorted by agent id
     */
    public static SortedMap<String, Double> loadIndices(Map<String, Long> requests, Map<String, Double> capacityShares,
            Map<String, AgentUtilization> utilization, AdaptiveVirtualNodesConfig config) {
        int agents = requests.size();
        long total = requests.values().stream().mapToLong(Long::longValue).sum();
        boolean withUtilization = usesUtilization(requests, utilization);
        SortedMap<String, Double> indices = new TreeMap<>();
        requests.forEach((agent, count) -> {
            double share = requestShare(count, total, capacityShares.getOrDefault(agent, 1.0 / agents), agents);
            indices.put(agent, withUtilization ? loadIndex(utilization.get(agent), share, config) : loadIndex(share));
        });
        return indices;
    }

    /** Whether eq. (3) uses utilization: every agent of {@code requests} has a report in {@code utilization}. */
    public static boolean usesUtilization(Map<String, Long> requests, Map<String, AgentUtilization> utilization) {
        return !requests.isEmpty() && utilization.keySet().containsAll(requests.keySet());
    }

    /**
     * The imbalance index S, eqs. (4)-(5): standard deviation of the load indices over their mean
     * (population form, divide by h); 0 when the mean is 0.
     *
     * @param loadIndices agent id to {@code L_i}; not empty
     */
    public static double imbalanceIndex(Map<String, Double> loadIndices) {
        return LoadStatistics.of(loadIndices.values()).coefficientOfVariation();
    }
}
