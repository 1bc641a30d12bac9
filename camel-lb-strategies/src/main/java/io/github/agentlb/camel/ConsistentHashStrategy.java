package io.github.agentlb.camel;

import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.select.RoundRobin;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code ch}: a ring of virtual nodes over the serving agents ({@link HashRing}), {@code virtualNodes}
 * each, or {@code max(1, round(virtualNodes x weight))} for an agent whose weight is not 1 (a state that
 * would give an agent more than {@link BalancerConfig.Ring#MAX_POINTS_PER_AGENT} is refused; a ring
 * that would pass {@link BalancerConfig.Ring#MAX_RING_POINTS} in all has each agent's points scaled
 * down alike to fit, {@code max(1, floor(points x max / total))}, as Envoy's {@code maximum_ring_size}); a keyed
 * exchange walks it clockwise from its key's hash ({@link KeyedSelection}, with its load bound). A
 * new state builds a new ring, O(v log v). Thread-safe.
 */
final class ConsistentHashStrategy implements Strategy {

    private final RoundRobin keylessRotation = new RoundRobin();
    private StrategyContext context;


    @Override
    public void attach(StrategyContext context) {
        this.context = context;
    }

    /** Refuses an agent that would have more than {@link BalancerConfig.Ring#MAX_POINTS_PER_AGENT} points. */
    @Override
    public void check(BalancerConfig config, List<String> serving, Map<String, Double> weights) {
        serving.forEach(agent -> config.ring().pointsOf(agent, weights.getOrDefault(agent, AgentSpec.DEFAULT_WEIGHT)));
    }

    @Override
    public Picker newPicker(BalancerState state) {
        HashRing ring = null;
        if (!state.agentIds().isEmpty()) {
            BalancerConfig.Ring settings = state.config().ring();
            Map<String, Integer> counts = new TreeMap<>();
            long total = 0;
            for (String agent : state.agentIds()) {
                int points = settings.pointsOf(agent, state.weights().getOrDefault(agent, 1.0));
                counts.put(agent, points);
                total += points;
            }
            if (total > BalancerConfig.Ring.MAX_RING_POINTS) { // Envoy's maximum_ring_size: each scaled down alike
                long all = total;
                counts.replaceAll((agent, points) -> (int) Math.max(1, points * BalancerConfig.Ring.MAX_RING_POINTS / all));
            }
            ring = HashRing.of(counts, settings.hashFunction());
        }
        return new KeyedSelection(state, keylessRotation, context::nanoTime).ringPicker(ring, false, position -> "");
    }

    @Override
    public String name() {
        return "ch";
    }
}
