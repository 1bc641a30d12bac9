package io.github.agentlb.loadgen.scenario;

import static io.github.agentlb.loadgen.scenario.Measurements.phase;
import static io.github.agentlb.loadgen.stats.Outcomes.answered;
import static io.github.agentlb.loadgen.stats.Outcomes.failed;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.report.Charts;
import io.github.agentlb.loadgen.report.JsonReport;
import io.github.agentlb.loadgen.run.BalancerLog;
import io.github.agentlb.loadgen.run.Changes;
import io.github.agentlb.loadgen.stats.Outcomes;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet scenario: a run's figures from hand-made outcomes (times in ms, the join at 100, the
 * drain at 200, the return at 300), then a small run end to end (agents and demo proxy in this JVM
 * on free loopback ports).
 */
@Timeout(120)
class FleetScenarioTest {

    private static final long MS = 1_000_000L;
    private static final List<String> AGENTS = List.of("A1", "A2", "A3", "A4");
    private static final FleetScenario FLEET = new FleetScenario(SlowStart.DEMO, 1_200, 100);

    @TempDir
    Path dir;

    private static Result report(List<TimedOutcome> outcomes, Long leftNanos) {
        LoadTestConfig config = new LoadTestConfig(outcomes.size(), 1, 10, 42, 5_000, 500, 0, 0);
        return FLEET.result(Measurements.measured("fleet", "ch", config, AGENTS, outcomes,
                List.of("before", "joined", "drained", "returned"), List.of("join A4", "drain A2", "return A2"),
                List.of(new Changes.Made(99 * MS, 100 * MS), new Changes.Made(199 * MS, 200 * MS),
                        new Changes.Made(299 * MS, 300 * MS)), new BalancerLog(() -> 0)), leftNanos);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> moves(Result r, String phase) {
        return (Map<String, Object>) phase(r, phase).figures().get("keys_moved");
    }

    @Test
    void countsPerAgentPerPhaseErrorsAndTheChangeTimes() {
        Result r = report(List.of(
                answered(1, "A1", 0, 10), answered(2, "A2", 10, 10),
                answered(1, "A4", 110, 10), failed(2, 120),
                answered(1, "A4", 210, 10),
                answered(1, "A4", 310, 10), answered(2, "A2", 320, 10)), 230 * MS);
        assertThat(r.totals().requests()).isEqualTo(7);
        Measurements.assertReportShape(r);
        assertThat(phase(r, "before").stats().answered("A1")).isEqualTo(1);
        assertThat(phase(r, "before").stats().answered("A4")).isZero();
        assertThat(phase(r, "joined").stats().answered("A4")).isEqualTo(1);
        assertThat(phase(r, "returned").stats().answered("A2")).isEqualTo(1);
        assertThat(phase(r, "joined").stats().clientErrors()).isEqualTo(1);
        assertThat(r.clientErrors()).isEqualTo(1);
        assertThat(r.phases()).extracting(Result.Phase::fromS).containsExactly(0.0, 0.1, 0.2, 0.3);
        assertThat(r.number("drain_ms")).isEqualTo(31.0); // from the call at 199 ms to leaving at 230 ms
        assertThat(Outcomes.totals(r.timeline())).isEqualTo(Map.of("A1", 1L, "A2", 2L, "A3", 0L, "A4", 3L));
    }

    @Test
    void eachPhaseOpensWithTheChangeOfOneAgent() {
        assertThat(report(List.of(answered(1, "A1", 0, 10)), null).phases()).extracting(Result.Phase::openedBy)
                .containsExactly("start", "join A4", "drain A2", "return A2");
    }

    @Test
    void keysMovedArePerPhaseAndOnlyMovesBetweenUnchangedAgentsAreOthers() {
        Result r = report(List.of(
                answered(1, "A1", 0, 10), answered(2, "A2", 0, 10), answered(3, "A3", 0, 10),
                answered(1, "A4", 110, 10), answered(2, "A2", 110, 10), answered(3, "A1", 110, 10),
                answered(1, "A4", 210, 10), answered(2, "A3", 210, 10), answered(3, "A1", 210, 10),
                answered(1, "A4", 310, 10), answered(2, "A2", 310, 10), answered(3, "A1", 310, 10)), null);
        assertThat(moves(r, "joined")).isEqualTo(Map.of("users_compared", 3, "moved", 2, "other_moved", 1));
        assertThat(moves(r, "drained")).isEqualTo(Map.of("users_compared", 3, "moved", 1, "other_moved", 0));
        assertThat(moves(r, "returned")).isEqualTo(Map.of("users_compared", 3, "moved", 1, "other_moved", 0));
        assertThat(r.number("other_keys_moved")).isEqualTo(1);
        assertThat(r.number("drain_ms")).isNaN();
    }

    @Test
    void theDrainedAgentsAnswersAreInFlightOnlyWhenSentBeforeTheDrain() {
        Result r = report(List.of(
                answered(1, "A2", 150, 60), // sent before, answered after the drain began: in flight
                answered(2, "A2", 190, 5), // answered before the drain: neither
                answered(3, "A2", 250, 40), // sent after the drain, answered before the return: chosen while drained
                answered(4, "A2", 290, 20), // answered after the return began: may have been chosen after it
                answered(5, "A4", 50, 49), // answered when the join began: before it joined
                answered(6, "A4", 50, 60)), null); // answered after the join began
        assertThat(r.number("in_flight_at_drain")).isEqualTo(1);
        assertThat(r.number("chosen_while_drained")).isEqualTo(1);
        assertThat(r.number("answered_before_join")).isEqualTo(1);
    }

    @Test
    void theDrainedAgentLeavesWhenItsDrainCompletes() throws Exception {
        AtomicLong clock = new AtomicLong(600_000);
        AtomicLong left = new AtomicLong(-1);
        CompletableFuture<Void> drained = new CompletableFuture<>();
        assertThat(FleetScenario.drain(() -> drained, left, clock::get).apply()).isEqualTo(600_000);
        assertThat(left.get()).isEqualTo(-1);
        clock.set(650_500L);
        drained.complete(null);
        assertThat(left.get()).isEqualTo(650_500L);
    }

    @Test
    @Tag("e2e")
    void agentsJoinDrainAndReturnWithoutAClientError() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        LoadTestConfig config = new LoadTestConfig(320, 32, 8, 42, 5_000, 500, 0, 0);
        Setup setup = Measurements.setup(AgentConfig.custom().delayMs(20, 60).build(), List.of("ch", "rr"), config,
                new PrintStream(progress, true, StandardCharsets.UTF_8));
        FleetScenario scenario = new FleetScenario(new SlowStart(Duration.ofMillis(200), 1.0, 0.1), 320, 32);
        for (Variant v : scenario.variants(setup)) {
            Result r = scenario.run(v, setup);
            String strategy = r.variant();
            assertThat(r.totals().requests()).isEqualTo(320);
            assertThat(r.lines()).as("every run says whether the generator kept pace").anyMatch(l -> l.contains("Self-check:"));
            assertThat(r.clientErrors()).as("%s client errors", strategy).isZero();
            assertThat(r.number("answered_before_join")).as("%s: A4 answered before it joined", strategy).isZero();
            assertThat(phase(r, "before").stats().answered(FleetScenario.JOINING)).isZero();
            assertThat(phase(r, "joined").stats().answered(FleetScenario.JOINING)
                    + phase(r, "drained").stats().answered(FleetScenario.JOINING))
                    .as("%s: A4 after its join", strategy).isPositive();
            assertThat(r.number("chosen_while_drained")).as("%s: A2 chosen while drained", strategy).isZero();
            assertThat(phase(r, "returned").stats().answered(FleetScenario.LEAVING)).as("%s: A2 back", strategy)
                    .isPositive();
            assertThat(r.number("drain_ms")).as("%s: A2 left before its return", strategy).isNotNaN();
            if (strategy.equals("ch")) {
                assertThat(r.number("other_keys_moved")).as("ch: keys of A1 and A3 stay").isZero();
                assertThat((int) moves(r, "joined").get("moved")).as("ch: A4 took keys").isPositive();
            }
            assertThat(JsonReport.write(r, dir)).isNotEmptyFile();
            for (Chart c : r.charts()) {
                assertThat(Charts.write(c, dir)).allSatisfy(f -> assertThat(dir.resolve(f)).isNotEmptyFile());
            }
        }
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("== ch, fleet scenario", "== rr, fleet scenario");
    }

    @Test
    void theMainJobRunsTheFleetScenario() {
        assertThat(Scenario.all()).extracting(Scenario::name).contains("fleet");
    }
}
