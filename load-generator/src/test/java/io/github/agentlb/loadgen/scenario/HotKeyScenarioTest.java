package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.KeySettings;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(120)
class HotKeyScenarioTest {

    private static final AgentConfig FAST = AgentConfig.custom().delayMs(0, 3).build();
    private static final LoadTestConfig LOAD = new LoadTestConfig(300, 30, 4, 42, 5_000, 300, 20, 0.2);

    private final PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    private Setup setup(List<String> strategies, int replicas) {
        return new Setup(FAST, strategies, LOAD, LOAD, LOAD, Pacing.CLOSED_COUNTED, replicas, quiet);
    }

    private static List<String> labels(List<Variant> variants) {
        return variants.stream().map(Variant::label).toList();
    }

    @Test
    void theVariantsAreEachKeyedStrategyPlainThenBounded() {
        List<Variant> variants = new HotKeyScenario().variants(setup(Strategies.names(), 1));

        assertThat(labels(variants)).containsExactly("ch", "ch-bounded", "avn", "avn-bounded");
        assertThat(new HotKeyScenario().variants(setup(List.of("rr", "pid"), 1))).isEmpty();
        KeySettings bounded = (KeySettings) variants.get(1).balancer().get();
        assertThat(bounded).isInstanceOf(ConsistentHashLB.class);
        assertThat(bounded.getBalanceFactor()).isEqualTo(1.25);
        assertThat(((KeySettings) variants.get(0).balancer().get()).getBalanceFactor()).isZero();
    }

    @Test
    void withReplicasAvnAlsoRunsAsOneInstanceAndAsReplicasSharingOneAllocation() {
        assertThat(labels(new HotKeyScenario().variants(setup(Strategies.names(), 2))))
                .containsExactly("ch", "ch-bounded", "avn", "avn-bounded", "avn-one", "avn-shared");
        assertThat(new HotKeyScenario().variants(setup(Strategies.names(), 1))).hasSize(4);
        assertThat(new HotKeyScenario().variants(setup(List.of("ch"), 3))).hasSize(2);
    }

    @Test
    void sharedAvnReplicasRunBesideOneInstanceOverAnInProcessZooKeeper() throws Exception {
        HotKeyScenario scenario = new HotKeyScenario();
        Setup setup = setup(List.of("avn"), 2);
        List<Result> runs = scenario.runAll(scenario.variants(setup).stream().filter(v -> v.label().startsWith("avn-")
                && !v.label().equals("avn-bounded")).toList(), setup);

        assertThat(runs).extracting(Result::variant).containsExactly("avn-one", "avn-shared");
        assertThat(runs).allSatisfy(r -> assertThat(r.clientErrors()).isZero());
        assertThat(runs.get(0).replicas()).isEqualTo(1);
        assertThat(runs.get(1).replicas()).isEqualTo(2);
        assertThat(HotKeyScenario.sharedCheck(runs).orElseThrow().detail())
                .startsWith("Shared allocation: avn-shared (2 replicas");
        assertThat(scenario.section(runs).tables().get(0).markdown()).contains("| 2 shared |").contains("| 1 |");
    }

    @Test
    void chReplicasAgreeExactlyEveryUserOnOneAgentWhicheverReplicaItPassed() throws Exception {
        HotKeyScenario scenario = new HotKeyScenario();
        Result run = scenario.run(new Variant("ch", "ch", () -> Strategies.create("ch"), 2), setup(List.of("ch"), 2));

        assertThat(run.clientErrors()).isZero();
        assertThat(run.replicas()).isEqualTo(2);
        assertThat(run.number("other_users")).isEqualTo(30);
        assertThat(run.number("others_stickiness")).isEqualTo(1.0);
        assertThat((Map<?, ?>) run.figures().get("hot_user_agents")).hasSize(1);
        assertThat(run.number("hot_user_requests")).isEqualTo(60);
        assertThat(run.totals().stickiness()).isEqualTo(1.0);
        Measurements.assertReportShape(run);
    }

    @Test
    void roundRobinReplicasSplitUsersSoTheMeasureCanFail() throws Exception {
        Result run = new HotKeyScenario().run(Variant.of("rr", "rr", b -> { }, 2), setup(List.of("rr"), 2));

        assertThat(run.number("others_stickiness")).isLessThan(0.5);
        assertThat((Map<?, ?>) run.figures().get("hot_user_agents")).hasSize(3);
        assertThat(run.passed()).isFalse();
    }
}
