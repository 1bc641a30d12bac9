package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.TestConfigs;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VariantTest {

    @Test
    void aConfiguredVariantConfiguresEachNewBalancerOfItsStrategy() {
        Variant v = Variant.of("ch-ejecting", Strategies.CONSISTENT_HASH,
                b -> b.setOutlierEjection(OutageScenario.EJECTION), 2);

        AgentLoadBalancerSupport first = v.balancer().get();
        AgentLoadBalancerSupport second = v.balancer().get();

        assertThat(v.label()).isEqualTo("ch-ejecting");
        assertThat(v.strategy()).isEqualTo(Strategies.CONSISTENT_HASH);
        assertThat(v.replicas()).isEqualTo(2);
        assertThat(first).isInstanceOf(ConsistentHashLB.class).isNotSameAs(second);
        assertThat(first.getOutlierEjection()).isEqualTo(OutageScenario.EJECTION);
        assertThat(second.getOutlierEjection()).isEqualTo(OutageScenario.EJECTION);
    }

    @Test
    void aPlainVariantIsTheStrategyWithItsDefaultsUnderItsName() {
        Variant v = Variant.of(Strategies.ROUND_ROBIN, Strategies.ROUND_ROBIN, b -> { }, 1);

        assertThat(v.label()).isEqualTo(Strategies.ROUND_ROBIN);
        assertThat(v.balancer().get().getOutlierEjection())
                .isEqualTo(Strategies.create(Strategies.ROUND_ROBIN).getOutlierEjection());
        assertThat(v.withReplicas(3).label()).isEqualTo("rr x3");
        assertThatThrownBy(() -> Variant.of(Strategies.ROUND_ROBIN, Strategies.ROUND_ROBIN, b -> { }, 0))
                .hasMessageContaining("replicas must be >= 1, was 0");
    }

    @Test
    void resultsAreFoundByVariantAndChecksByName() {
        Result a = result("a", List.of(new Result.Check("targets", true, "ok")));
        Result b = result("b", List.of(new Result.Check("targets", false, "missed"),
                new Result.Check("shared allocation", true, "met")));

        assertThat(Result.find(List.of(a, b), "b")).isSameAs(b);
        assertThat(Result.find(List.of(a, b), "c")).isNull();
        assertThat(b.check("targets").passed()).isFalse();
        assertThat(b.check("shared allocation").detail()).isEqualTo("met");
        assertThatThrownBy(() -> a.check("shared allocation")).hasMessageContaining("no check shared allocation");
    }

    private static Result result(String variant, List<Result.Check> checks) {
        return new Result("s", variant, "rr", "http://x", true, TestConfigs.of(10, 1), 1,
                RunStatistics.of(List.of(), List.of("A1"), 0), List.of(), Map.of(), checks, 0, null, null, List.of(),
                List.of());
    }
}
