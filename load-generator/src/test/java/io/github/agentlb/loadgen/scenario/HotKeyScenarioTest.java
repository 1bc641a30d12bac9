package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.KeySettings;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.report.HotKeyReportWriter;
import io.github.agentlb.loadgen.stats.HotKeyStatistics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(120)
class HotKeyScenarioTest {

    private static final AgentConfig FAST = AgentConfig.custom().delayMs(0, 3).build();
    private static final LoadTestConfig LOAD = LoadTestConfig.custom().requests(300).users(30).concurrency(4)
            .warmup(20).hotShare(0.2).progressEvery(300).seed(42).build();

    private final PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    @Test
    void theVariantsAreEachKeyedStrategyPlainThenBounded() {
        List<HotKeyScenario.Variant> variants = HotKeyScenario.variants(Strategies.names());

        assertThat(variants).extracting(HotKeyScenario.Variant::label)
                .containsExactly("ch", "ch-bounded", "avn", "avn-bounded");
        assertThat(HotKeyScenario.variants(List.of("rr", "pid"))).isEmpty();
        KeySettings bounded = (KeySettings) variants.get(1).balancer(null);
        assertThat(bounded).isInstanceOf(ConsistentHashLB.class);
        assertThat(bounded.getBalanceFactor()).isEqualTo(1.25);
        assertThat(((KeySettings) variants.get(0).balancer(null)).getBalanceFactor()).isZero();
    }

    @Test
    void withReplicasAvnAlsoRunsAsOneInstanceAndAsReplicasSharingOneAllocation() {
        assertThat(HotKeyScenario.variants(Strategies.names(), 2)).extracting(HotKeyScenario.Variant::label)
                .containsExactly("ch", "ch-bounded", "avn", "avn-bounded", "avn-one", "avn-shared");
        assertThat(HotKeyScenario.variants(Strategies.names(), 1)).hasSize(4);
        assertThat(HotKeyScenario.variants(List.of("ch"), 3)).hasSize(2);
    }

    @Test
    void sharedAvnReplicasRunBesideOneInstanceOverAnInProcessZooKeeper() throws Exception {
        List<HotKeyScenario.HotKeyRun> runs = new HotKeyScenario(new ScenarioLoad(FAST, 42, LOAD, quiet), 2).run(
                HotKeyScenario.variants(List.of("avn"), 2).stream().filter(v -> v.label().startsWith("avn-")
                        && !v.label().equals("avn-bounded")).toList());

        assertThat(runs).extracting(r -> r.variant().label()).containsExactly("avn-one", "avn-shared");
        assertThat(runs).allSatisfy(r -> assertThat(r.report().clean()).isTrue());
        assertThat(runs.get(0).hot().replicas()).isEqualTo(1);
        assertThat(runs.get(1).hot().replicas()).isEqualTo(2);
        assertThat(HotKeyReportWriter.sharedComparison(runs)).startsWith("Shared allocation: avn-shared (2 replicas");
        assertThat(HotKeyReportWriter.table(runs)).contains("| 2 shared |").contains("| 1 |");
    }

    @Test
    void chReplicasAgreeExactlyEveryUserOnOneAgentWhicheverReplicaItPassed() throws Exception {
        HotKeyScenario.HotKeyRun run = new HotKeyScenario(new ScenarioLoad(FAST, 42, LOAD, quiet), 2)
                .run(new HotKeyScenario.Variant("ch", "ch", 0));

        HotKeyStatistics hot = run.hot();
        assertThat(run.report().clean()).isTrue();
        assertThat(run.report().replicas()).isEqualTo(2);
        assertThat(hot.replicas()).isEqualTo(2);
        assertThat(hot.otherUsers()).isEqualTo(30);
        assertThat(hot.othersStickiness()).isEqualTo(1.0);
        assertThat(hot.hotUserAgentCount()).isEqualTo(1);
        assertThat(hot.hotUserRequests()).isEqualTo(60);
        assertThat(run.report().statistics().stickiness()).isEqualTo(1.0);
    }

    @Test
    void roundRobinReplicasSplitUsersSoTheMeasureCanFail() throws Exception {
        HotKeyScenario.HotKeyRun run = new HotKeyScenario(new ScenarioLoad(FAST, 42, LOAD, quiet), 2)
                .run(new HotKeyScenario.Variant("rr", "rr", 0));

        assertThat(run.hot().othersStickiness()).isLessThan(0.5);
        assertThat(run.hot().hotUserAgentCount()).isEqualTo(3);
        assertThat(run.meetsTargets()).isFalse();
    }
}
