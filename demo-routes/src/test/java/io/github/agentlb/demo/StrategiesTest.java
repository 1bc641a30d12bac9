package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.camel.RoundRobinLB;
import org.junit.jupiter.api.Test;

class StrategiesTest {

    @Test
    void createsEachNamedStrategyAfresh() {
        assertThat(Strategies.names()).containsExactly("rr", "ch", "pid", "avn", "lr");
        assertThat(Strategies.create("rr")).isInstanceOf(RoundRobinLB.class);
        assertThat(Strategies.create(" CH ")).isInstanceOf(ConsistentHashLB.class);
        assertThat(Strategies.create("pid")).isInstanceOf(PidWeightedLB.class);
        assertThat(Strategies.create("AVN")).isInstanceOf(AdaptiveVirtualNodeLB.class);
        assertThat(Strategies.create("rr")).isNotSameAs(Strategies.create("rr"));
        for (String name : Strategies.names()) {
            assertThat(Strategies.create(name).strategyName()).isEqualTo(name);
        }
    }

    @Test
    void camelRoundRobinIsABaselineWithNoBalancerOfOurs() {
        assertThat(Strategies.baselines()).containsExactly("camel-rr");
        assertThat(Strategies.isBaseline("camel-rr")).isTrue();
        assertThat(Strategies.isBaseline("rr")).isFalse();
        assertThat(ProxyConfig.builder().strategy(" Camel-RR ").build().strategy()).isEqualTo("camel-rr");
        assertThatThrownBy(() -> Strategies.create("camel-rr"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Camel's own roundRobin()");
    }

    @Test
    void anUnknownNameListsTheValidOnes() {
        assertThatThrownBy(() -> Strategies.create("least-conn"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("strategy must be one of [rr, ch, pid, avn, lr], was 'least-conn'");
        assertThatThrownBy(() -> Strategies.create(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
