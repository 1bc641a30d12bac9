package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Was: {@code agentlb.agent.weight} for {@code pid} alone, so the weights an agents file gave an
 * {@code rr}, {@code ch} or {@code lr} balancer showed only in a log line. Each strategy that picks
 * by the configured weight exposes it; {@code pid} its learned weight; {@code avn} none (its virtual
 * nodes are its weights).
 */
class ConfiguredWeightGaugeTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static double weight(SimpleMeterRegistry registry, String strategy, String agent) {
        return registry.get(LoadBalancerMetrics.AGENT_PREFIX + "weight").tags("strategy", strategy, "agent", agent)
                .gauge().value();
    }

    @Test
    void rrChAndLrExposeTheConfiguredWeightOfEachAgent() {
        for (AgentLoadBalancerSupport balancer : List.of(new RoundRobinLB(), new ConsistentHashLB(), new LeastRequestLB())) {
            balancer.setCamelContext(CAMEL.get());
            balancer.start();
            balancer.editAgents().add("A1", ScriptedChild.naming("A1"), 2.5).add("A2", ScriptedChild.naming("A2"), 1).apply();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new LoadBalancerMetrics(balancer).bindTo(registry);
            String strategy = registry.get(LoadBalancerMetrics.AGENTS).gauge().getId().getTag("strategy");

            assertThat(weight(registry, strategy, "A1")).as(strategy).isEqualTo(2.5);
            assertThat(weight(registry, strategy, "A2")).as(strategy).isEqualTo(1.0);
            balancer.setAgentWeight("A1", 4);
            assertThat(weight(registry, strategy, "A1")).as(strategy).isEqualTo(4.0);
            balancer.stop();
        }
    }

    @Test
    void avnHasNoWeightGauge() {
        AdaptiveVirtualNodeLB avn = new AdaptiveVirtualNodeLB();
        avn.setCamelContext(CAMEL.get());
        avn.start();
        avn.editAgents().add("A1", ScriptedChild.naming("A1"), 2).apply();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(avn).bindTo(registry);
        assertThat(registry.find(LoadBalancerMetrics.AGENT_PREFIX + "weight").meters()).isEmpty();
        assertThat(registry.find(LoadBalancerMetrics.AGENT_PREFIX + "virtual.nodes").meters()).hasSize(1);
        avn.stop();
    }
}
