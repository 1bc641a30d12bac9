package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.AgentSet;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(60)
class EmbeddedClusterTest {

    @Test
    void heterogeneousAgentsRunWithTheirCapacitiesAndBalancerIdsMapToAgentIds() throws Exception {
        AgentConfig template = AgentConfig.custom().delayMs(0, 2).build();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(AgentSet.HETEROGENEOUS.agents(template, 42),
                ProxyConfig.builder().strategy("pid"), () -> Strategies.create("pid"), 1)) {
            assertThat(cluster.agents()).extracting(a -> a.config().capacity()).containsExactly(6, 6, 3);
            assertThat(cluster.balancer().getAgentIds()).hasSize(3);
            Map<String, Double> weights = ((PidWeightedLB) cluster.balancer()).pidWeights().weights();
            assertThat(cluster.byAgentId(weights).keySet()).containsExactly("A1", "A2", "A3");
            assertThat(cluster.agentIdOf("somewhere-else")).isEqualTo("somewhere-else");
        }
    }
}
