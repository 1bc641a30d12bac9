package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.RoundRobinLB;
import org.junit.jupiter.api.Test;

class StrategiesTest {

    @Test
    void createsEachNamedStrategyAfresh() {
        assertThat(Strategies.names()).containsExactly("rr", "ch");
        assertThat(Strategies.create("rr")).isInstanceOf(RoundRobinLB.class);
        assertThat(Strategies.create(" CH ")).isInstanceOf(ConsistentHashLB.class);
        assertThat(Strategies.create("rr")).isNotSameAs(Strategies.create("rr"));
        for (String name : Strategies.names()) {
            assertThat(Strategies.create(name).strategyName()).isEqualTo(name);
        }
    }

    @Test
    void anUnknownNameListsTheValidOnes() {
        assertThatThrownBy(() -> Strategies.create("least-conn"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("strategy must be one of [rr, ch], was 'least-conn'");
        assertThatThrownBy(() -> Strategies.create(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
