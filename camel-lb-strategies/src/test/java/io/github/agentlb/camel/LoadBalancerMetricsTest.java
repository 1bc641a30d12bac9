package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

class LoadBalancerMetricsTest extends CamelTestSupport {

    private final AgentRoutesFixture fixture = new AgentRoutesFixture();
    private final RoundRobinLB balancer = new RoundRobinLB();
    private final AdaptiveVirtualNodeLB adaptive = new AdaptiveVirtualNodeLB();

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        return new RoutesBuilder[] {fixture.agents(),
            AgentRoutesFixture.balanced("direct:start", balancer, AgentRoutesFixture.AGENTS),
            AgentRoutesFixture.balanced("direct:adaptive", adaptive, AgentRoutesFixture.AGENTS)};
    }

    @Test
    void attemptsAreTimedPerAgentAndOutcome() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        fixture.down.add("A2");
        for (int i = 0; i < 3; i++) {
            template.requestBody("direct:start", "ping", String.class);
        }
        // A1, then A2 refused (and ejected) and the rotation's next turn A3, then A1
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("strategy", "rr", "agent", "direct://a1", "outcome", "success").timer().count()).isEqualTo(2);
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("agent", "direct://a2", "outcome", "failed_before_send").timer().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("agent", "direct://a3", "outcome", "success").timer().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.EJECTIONS).tags("agent", "direct://a2").counter().count())
                .isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.EJECTED).tags("agent", "direct://a2").gauge().value()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.EJECTED).tags("agent", "direct://a1").gauge().value()).isEqualTo(0);
        assertThat(registry.get(LoadBalancerMetrics.AGENTS).gauge().value()).isEqualTo(3.0);
    }

    @Test
    void strategyStateIsExposedAsGaugesPerAgent() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(adaptive).bindTo(registry);
        template.requestBodyAndHeader("direct:adaptive", "ping", "user_id", "42", String.class);
        for (String agent : AgentRoutesFixture.AGENTS) {
            String id = AgentRoutesFixture.agentId(agent);
            assertThat(registry.get(LoadBalancerMetrics.AGENT_PREFIX + "virtual.nodes")
                    .tags("strategy", "avn", "agent", id).gauge().value())
                    .isEqualTo(adaptive.virtualNodes().get(id).doubleValue());
        }
        assertThat(registry.get(LoadBalancerMetrics.PREFIX + "imbalance.index").gauge().value())
                .isEqualTo(adaptive.imbalanceIndex());
    }
}
