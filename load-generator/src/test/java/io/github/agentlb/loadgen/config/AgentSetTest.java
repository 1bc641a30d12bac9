package io.github.agentlb.loadgen.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentSetTest {

    private static final AgentConfig TEMPLATE = AgentConfig.custom().host("127.0.0.1").delayMs(50, 150).build();

    @Test
    void heterogeneousGivesA3HalfTheCapacityAndAFullerIdleLoad() {
        List<AgentConfig> agents = AgentSet.HETEROGENEOUS.agents(TEMPLATE, 42);

        assertThat(agents).extracting(AgentConfig::agentId).containsExactly("A1", "A2", "A3");
        assertThat(agents).extracting(AgentConfig::capacity).containsExactly(6, 6, 3);
        assertThat(agents.get(2).capacity() * 2).isEqualTo(agents.get(0).capacity());
        assertThat(agents).extracting(AgentConfig::cpuBase)
                .containsExactly(AgentConfig.DEFAULT_CPU_BASE, AgentConfig.DEFAULT_CPU_BASE, 0.3);
        assertThat(agents).extracting(AgentConfig::memoryBase)
                .containsExactly(AgentConfig.DEFAULT_MEMORY_BASE, AgentConfig.DEFAULT_MEMORY_BASE, 0.4);
        // everything else is the template's: same delays, same speed, ephemeral ports
        assertThat(agents).allSatisfy(a -> {
            assertThat(a.delayMinMs()).isEqualTo(50);
            assertThat(a.delayMaxMs()).isEqualTo(150);
            assertThat(a.speed()).isEqualTo(1.0);
            assertThat(a.port()).isZero();
            assertThat(a.host()).isEqualTo("127.0.0.1");
        });
    }

    @Test
    void uniformAgentsAreTheTemplateWithTheirOwnIdsAndSeeds() {
        List<AgentConfig> agents = AgentSet.UNIFORM.agents(TEMPLATE, 42);

        assertThat(agents).extracting(AgentConfig::agentId).containsExactly("A1", "A2", "A3");
        assertThat(agents).allMatch(AgentConfig::unlimitedCapacity);
        assertThat(agents).extracting(AgentConfig::cpuBase).containsOnly(AgentConfig.DEFAULT_CPU_BASE);
        assertThat(agents).extracting(AgentConfig::seed).doesNotHaveDuplicates()
                .containsExactly("A1".hashCode() ^ 42L, "A2".hashCode() ^ 42L, "A3".hashCode() ^ 42L);
        assertThat(AgentSet.HETEROGENEOUS.agents(TEMPLATE, 42)).extracting(AgentConfig::seed)
                .isEqualTo(agents.stream().map(AgentConfig::seed).toList());
    }

    @Test
    void labelsNameTheScenarioInLowerCase() {
        assertThat(AgentSet.UNIFORM.label()).isEqualTo("uniform");
        assertThat(AgentSet.HETEROGENEOUS.label()).isEqualTo("heterogeneous");
        assertThat(AgentSet.HETEROGENEOUS.description()).contains("A3 capacity 3 (half)");
    }
}
