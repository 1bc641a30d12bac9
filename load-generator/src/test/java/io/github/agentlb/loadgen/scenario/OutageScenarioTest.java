package io.github.agentlb.loadgen.scenario;

import static io.github.agentlb.loadgen.scenario.Measurements.phase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.TestConfigs;
import io.github.agentlb.loadgen.report.MarkdownReport;
import io.github.agentlb.loadgen.run.BalancerLog;
import io.github.agentlb.loadgen.run.Changes;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The per-phase figures of a fault run, worked out by hand from 16 requests and four health events. */
class OutageScenarioTest {

    private static final long MS = 1_000_000;
    private static final long KILL = 10_000 * MS;
    private static final long RESTART = 20_000 * MS;
    private static final List<String> AGENTS = List.of("A1", "A2", "A3");
    private static final List<String> PHASES = List.of("before", "down", "after");

    private final List<TimedOutcome> outcomes = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong();
    private final BalancerLog health = new BalancerLog(clock::get);

    private void ok(long sentMs, int user, String agent, long latencyMs) {
        outcomes.add(new TimedOutcome(RequestOutcome.success("r" + outcomes.size(), user, agent, 200, latencyMs * MS),
                sentMs * MS));
    }

    private static Result result(OutageScenario scenario, String strategy, LoadTestConfig config,
                                 List<TimedOutcome> outcomes, BalancerLog log) {
        return scenario.result(Measurements.measured(scenario.name(), strategy, config, AGENTS, outcomes, PHASES,
                List.of("kill A1", "restart A1"), List.of(new Changes.Made(KILL, KILL), new Changes.Made(RESTART, RESTART)),
                log));
    }

    private Result report() {
        // before: users 1 and 4 at home on A1 (the dead agent), 2 on A2, 3 on A3; 5 answered by two agents.
        ok(1_000, 1, "A1", 100);
        ok(2_000, 2, "A2", 100);
        ok(3_000, 3, "A3", 100);
        ok(4_000, 1, "A1", 100);
        ok(5_000, 4, "A1", 200);
        ok(6_000, 5, "A1", 100);
        ok(7_000, 5, "A2", 100);
        // down: 1 moves (must), 2 and 3 stay, one error and one timeout.
        ok(11_000, 1, "A2", 150);
        ok(12_000, 2, "A2", 100);
        ok(13_000, 3, "A3", 120);
        outcomes.add(new TimedOutcome(RequestOutcome.error("e", 9, 503, 5 * MS), 14_000 * MS));
        outcomes.add(new TimedOutcome(RequestOutcome.timeout("t", 9, 5_000 * MS), 15_000 * MS));
        // after: 3 moves although its agent never failed; 1 is back after the re-admission, 4 not yet.
        ok(20_500, 4, "A2", 100);
        ok(22_000, 1, "A1", 100);
        ok(23_000, 3, "A2", 100);
        ok(24_000, 2, "A2", 100);
        clock.set(KILL + 200 * MS);
        health.agentEjected("A1", Duration.ofSeconds(1));
        clock.set(KILL + 1_500 * MS);
        health.agentEjected("A1", Duration.ofSeconds(2));
        clock.set(RESTART + 1_000 * MS);
        health.agentReadmitted("A1");
        health.agentEjected("A3", Duration.ofSeconds(1));
        return result(new OutageScenario(false, 140), "ch", TestConfigs.of(16, 9),
                outcomes, health);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> group(Result r, String name) {
        return (Map<String, Object>) r.figures().get(name);
    }

    @Test
    void eachPhaseHasItsRequestsErrorsAgentsAndLatency() {
        Result r = report();
        Measurements.assertReportShape(r);

        assertThat(r.totals().requests()).isEqualTo(16);
        RunStatistics before = phase(r, "before").stats();
        RunStatistics down = phase(r, "down").stats();
        RunStatistics after = phase(r, "after").stats();
        assertThat(List.of(before.requests(), down.requests(), after.requests())).containsExactly(7, 5, 4);
        assertThat(before.agents()).extractingFromEntries(e -> e.getValue().count()).containsExactly(4L, 2L, 1L);
        assertThat(down.agents()).extractingFromEntries(e -> e.getValue().count()).containsExactly(0L, 2L, 1L);
        assertThat(after.agents()).extractingFromEntries(e -> e.getValue().count()).containsExactly(1L, 3L, 0L);
        assertThat(phase(r, "before").stats().clientErrors()).isZero();
        assertThat(phase(r, "down").stats().clientErrors()).isEqualTo(2);
        assertThat(r.clientErrors()).isEqualTo(2);
        assertThat(before.latency().p99Ms()).isCloseTo(200, within(0.2));
        assertThat(down.latency().p99Ms()).isCloseTo(150, within(0.15));
        assertThat(r.number("down_p99_over_before")).isCloseTo(0.75, within(0.001));
        // the 150 ms answer and the 5 s timeout waited out the 140 ms proxy timeout; the 200 ms answer before too.
        assertThat(r.phases()).extracting(p -> p.figures().get("requests_over_proxy_timeout")).containsExactly(1L, 2L, 0L);
        // phase wall times: first send (1 s) to the kill, kill to restart, restart to the last answer (24.1 s)
        assertThat(List.of(before.durationMs(), down.durationMs(), after.durationMs()))
                .containsExactly(9_000.0, 10_000.0, 4_100.0);
        assertThat(r.number("kill_s")).isEqualTo(9.0);
        assertThat(r.number("restart_s")).isEqualTo(19.0);
    }

    @Test
    void stickinessCountsOnlyUsersWithOneHomeBeforeTheKill() {
        Map<String, Object> s = group(report(), "stickiness");

        assertThat(s).containsEntry("dead_agent_users", 2).containsEntry("other_users", 2)
                .containsEntry("others_stayed_down", 2).containsEntry("others_in_down", 2)
                .containsEntry("others_stayed_after", 1).containsEntry("others_in_after", 2)
                // only user 1 sent a request after the re-admission (21 s); user 4's at 20.5 s does not count
                .containsEntry("dead_users_in_return", 1).containsEntry("dead_users_returned", 1)
                .containsEntry("others_stayed_after_share", 0.5);
    }

    @Test
    void ejectionDelaysComeFromTheHealthEvents() {
        Result r = report();
        Map<String, Object> h = group(r, "health");
        assertThat(r.lines()).as("re-admitted within the run").noneMatch(l -> l.contains("not re-admitted"));

        assertThat(h).containsEntry("kill_to_ejection_ms", 200.0).containsEntry("restart_to_readmission_ms", 1_000.0)
                .containsEntry("dead_agent_ejections", 2).containsEntry("other_ejections", 1);
    }

    @Test
    void withoutHealthEventsTheDelaysAreUnknownAndTheReturnCountsFromTheRestart() {
        Result r = result(new OutageScenario(true, 500), "rr", TestConfigs.of(3, 1),
                List.of(new TimedOutcome(RequestOutcome.success("r1", 1, "A1", 200, MS), 0),
                        new TimedOutcome(RequestOutcome.success("r2", 1, "A1", 200, MS), RESTART)),
                new BalancerLog(() -> 0));

        assertThat((double) group(r, "health").get("kill_to_ejection_ms")).isNaN();
        assertThat((double) group(r, "health").get("restart_to_readmission_ms")).isNaN();
        assertThat(group(r, "stickiness").get("dead_users_returned")).isEqualTo(1);
        assertThat((double) group(r, "stickiness").get("others_stayed_down_share")).isNaN();
        JsonNode json = Measurements.json(r);
        assertThat(json.at("/figures/health/kill_to_ejection_ms").isNull()).isTrue();
        assertThat(json.at("/figures/stickiness/others_stayed_down_share").isNull()).isTrue();
        assertThat(json.at("/figures/proxy_request_timeout_ms").asInt()).isEqualTo(500);
    }

    /** A run whose phase got no request measured nothing of it: said as not measured, not as a failed check. */
    @Test
    void aRunWithAPhaseWithoutRequestsSaysItWasNotMeasured() {
        assertThat(report().passed()).isTrue();
        assertThat(report().checks()).isEmpty();
        assertThat(report().figures().get("unmeasured_phases")).isEqualTo(List.of());
        Result r = result(new OutageScenario(false, 500), "rr", TestConfigs.of(3, 1),
                List.of(new TimedOutcome(RequestOutcome.success("r1", 1, "A1", 200, MS), 0),
                        new TimedOutcome(RequestOutcome.success("r2", 1, "A2", 200, MS), KILL + MS)),
                new BalancerLog(() -> 0));

        assertThat(r.passed()).isTrue();
        assertThat(r.checks()).isEmpty();
        assertThat(r.figures().get("unmeasured_phases")).isEqualTo(List.of("after"));
        assertThat(r.lines()).contains(r.line("NOT MEASURED: no request in phase after: raise --failure-requests "
                + "(the kill and the restart run beside the requests and land late in a short run)"));
        assertThat(Measurements.json(r).at("/passed").asBoolean()).isTrue();
    }

    /** A run that ends before the dead agent's re-admission (a short --failure-requests) says so, not "users back 0". */
    @Test
    void aRunEndingBeforeTheReadmissionSaysItWasNotMeasured() {
        ok(1_000, 1, "A1", 100);
        ok(11_000, 1, "A2", 100);
        ok(20_500, 1, "A2", 100);
        clock.set(KILL + 200 * MS);
        health.agentEjected("A1", Duration.ofSeconds(1));
        Result r = result(new OutageScenario(false, 500), "ch", TestConfigs.of(3, 1), outcomes, health);

        assertThat((double) group(r, "health").get("restart_to_readmission_ms")).isNaN();
        assertThat(r.lines()).contains(r.line("NOT MEASURED: A1 was ejected and not re-admitted before the run ended: "
                + "raise --failure-requests (its users could not come back)"));
        assertThat(r.passed()).isTrue();
    }

    @Test
    void theJsonAndTheMarkdownCarryThePhaseFigures() {
        Result r = report();

        JsonNode json = Measurements.json(r);
        assertThat(json.at("/scenario").asText()).isEqualTo("failure");
        assertThat(json.at("/phases/down/client_errors").asInt()).isEqualTo(2);
        assertThat(json.at("/phases/down/error_statuses/503").asInt()).isEqualTo(1);
        assertThat(json.at("/phases/down/requests_per_agent/A1").asInt()).isZero();
        assertThat(json.at("/figures/health/kill_to_ejection_ms").asDouble()).isEqualTo(200.0);
        assertThat(json.at("/figures/stickiness/dead_users_returned_share").asDouble()).isEqualTo(1.0);
        // from the first send (1 s) to the last answer (24.1 s): 24 one-second buckets
        assertThat(json.at("/timeline/answered/A1").size()).isEqualTo(24);
        String md = MarkdownReport.render(List.of(new MarkdownReport.Part(new OutageScenario(false, 140)
                .section(List.of(r)), List.of(r))));
        assertThat(md).contains("## Scenario failure")
                .contains("| ch | before | 7 | 0 | 200.0 | 1.00 | 1 | 4 | 2 | 1 |")
                .contains("| ch | down | 5 | 2 | 150.0 | 0.75 | 2 | 0 | 2 | 1 |")
                .contains("| ch | 200 | 1000 | 2 | 1 | 1.000 (2/2) | 0.500 (1/2) | 1.000 (1/1) |")
                .contains("](timeline_failure_ch.png)");
    }
}
