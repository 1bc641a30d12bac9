package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.shared.Allocation;
import io.github.agentlb.core.shared.InMemoryAllocationExchange;
import io.github.agentlb.core.shared.SharedAllocation;
import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

/** {@code agentlb.allocation.generation}, {@code agentlb.allocation.source} and the health details of a sharing {@code avn}. */
class SharedAllocationMetricsTest extends CamelTestSupport {

    private final InMemoryAllocationExchange exchange = new InMemoryAllocationExchange() {
        @Override
        public void start(Object context, Listener listener) {
            super.start(context, listener);
            listener.connectionChanged(true);
        }
    };
    private final AdaptiveVirtualNodeLB balancer = new AdaptiveVirtualNodeLB(SharedAllocation.of(exchange));

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:in").loadBalance(balancer).to("mock:A1", "mock:A2", "mock:A3");
            }
        };
    }

    @Test
    void generationSourceAndVirtualNodesFollowTheInstalledAllocation() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        assertThat(registry.get("agentlb.allocation.generation").gauge().value()).isZero();
        assertThat(registry.get(LoadBalancerMetrics.ALLOCATION_SOURCE).tag("source", "local").gauge().value()).isEqualTo(1);
        assertThat(balancer.allocationDetails()).containsEntry("allocation.source", "local")
                .containsEntry("allocation.store.connected", true);

        exchange.listener().allocationChanged(Allocation.of(3, 1, Map.of("mock://A1", 5, "mock://A2", 30, "mock://A3", 15)));

        assertThat(registry.get("agentlb.allocation.generation").gauge().value()).isEqualTo(3);
        assertThat(registry.get(LoadBalancerMetrics.ALLOCATION_SOURCE).tag("source", "leader").gauge().value()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.ALLOCATION_SOURCE).tag("source", "local").gauge().value()).isZero();
        assertThat(registry.get("agentlb.agent.virtual.nodes").tag("agent", "mock://A2").gauge().value()).isEqualTo(30);
        assertThat(balancer.balancerState().agentIds()).hasSize(3);
        assertThat(balancer.ring().virtualNodes()).containsEntry("mock://A1", 5);
    }
}
