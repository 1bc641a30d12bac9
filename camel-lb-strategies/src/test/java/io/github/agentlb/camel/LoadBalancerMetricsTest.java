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

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        return new RoutesBuilder[] {fixture.agents(),
            AgentRoutesFixture.balanced("direct:start", balancer, AgentRoutesFixture.AGENTS)};
    }

    @Test
    void attemptsAreTimedPerAgentAndOutcome() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        fixture.down.add("A2");
        for (int i = 0; i < 3; i++) {
            template.requestBody("direct:start", "ping", String.class);
        }
        // A1, then A2 refused and failed over to A3, then A3
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("strategy", "rr", "agent", "direct://a1", "outcome", "success").timer().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("agent", "direct://a2", "outcome", "connection_failure").timer().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("agent", "direct://a3", "outcome", "success").timer().count()).isEqualTo(2);
        assertThat(registry.get(LoadBalancerMetrics.AGENTS).gauge().value()).isEqualTo(3.0);
    }
}
