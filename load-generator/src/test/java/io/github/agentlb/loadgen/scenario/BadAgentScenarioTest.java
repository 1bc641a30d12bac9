package io.github.agentlb.loadgen.scenario;

import static io.github.agentlb.loadgen.scenario.Measurements.phase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.report.Charts;
import io.github.agentlb.loadgen.report.JsonReport;
import io.github.agentlb.loadgen.run.BalancerLog;
import io.github.agentlb.loadgen.run.Changes;
import io.github.agentlb.loadgen.stats.Outcomes;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The busy and gray scenarios: a run's figures from hand-made outcomes and attempts (times in ms,
 * A1 switched at 1000 and 3000), then small runs end to end under rr and lr (agents and demo proxy
 * in this JVM on free loopback ports, A1 switched by request count) with the trials' bounds asserted.
 */
@Timeout(180)
class BadAgentScenarioTest {

    private static final long MS = 1_000_000L;
    private static final List<String> AGENTS = List.of("A1", "A2", "A3");
    private static final BadAgentScenario BUSY = new BadAgentScenario(true);
    private static final BadAgentScenario GRAY = new BadAgentScenario(false);
    private static int next;

    @TempDir
    Path dir;

    private static TimedOutcome answered(String agent, long sentMs) {
        return new TimedOutcome(RequestOutcome.success("r" + (++next), 1, agent, 200, 10 * MS), sentMs * MS);
    }

    private static TimedOutcome failed(int status, long sentMs) {
        return new TimedOutcome(RequestOutcome.error("r" + (++next), 1, status, MS), sentMs * MS);
    }

    /** Logs an attempt on {@code agent} sent at {@code startedMs} and ended 1 ms later. */
    private static void attempt(BalancerLog log, AtomicLong clock, String agent, AttemptOutcome outcome, long startedMs) {
        clock.set((startedMs + 1) * MS);
        log.attemptCompleted("rr", agent, outcome, MS);
    }

    private static Result report(BadAgentScenario scenario, List<TimedOutcome> outcomes, BalancerLog log) {
        LoadTestConfig config = new LoadTestConfig(outcomes.size(), 1, 10, 42, 5_000, 500, 0, 0);
        return scenario.result(Measurements.measured(scenario.name(), "rr", config, AGENTS, outcomes,
                List.of("before", "during", "after"), List.of("A1 " + scenario.status(), "A1 normal"),
                List.of(new Changes.Made(1_000 * MS, 1_000 * MS), new Changes.Made(3_000 * MS, 3_000 * MS)), log),
                -1, -1);
    }

    private static long perPhase(Result r, String phase, String figure) {
        return (long) phase(r, phase).figures().get(figure);
    }

    @Test
    void aBusyRunCountsClientErrorsAndA1sRequestsPerPhaseItsRestAndItsMostRequestsPerRetryAfter() {
        List<TimedOutcome> outcomes = new ArrayList<>(List.of(answered("A1", 0), answered("A2", 500),
                failed(429, 1_500), failed(503, 2_000), answered("A1", 3_500)));
        for (int i = 0; i < 55; i++) { // 60 requests while A1 is busy: 2 may see its 429
            outcomes.add(answered("A2", 1_001 + i));
        }
        AtomicLong clock = new AtomicLong();
        BalancerLog log = new BalancerLog(clock::get);
        attempt(log, clock, "A1", AttemptOutcome.SUCCESS, 0);
        attempt(log, clock, "A1", AttemptOutcome.BUSY, 999);
        attempt(log, clock, "A1", AttemptOutcome.BUSY, 1_020);
        attempt(log, clock, "A1", AttemptOutcome.BUSY, 1_030);
        attempt(log, clock, "A2", AttemptOutcome.SUCCESS, 1_031);
        attempt(log, clock, "A1", AttemptOutcome.BUSY, 3_025);
        attempt(log, clock, "A1", AttemptOutcome.SUCCESS, 3_500);
        Result r = report(BUSY, outcomes, log);
        Measurements.assertReportShape(r);

        assertThat(r.totals().requests()).isEqualTo(60);
        assertThat(phase(r, "during").stats().requests()).isEqualTo(57);
        assertThat(phase(r, "before").stats().clientErrors()).isZero();
        assertThat(phase(r, "during").stats().clientErrors()).isEqualTo(2);
        assertThat(r.number("bad_answers_seen_by_clients")).isEqualTo(1);
        assertThat(r.number("bad_answers_allowed")).isEqualTo(1); // 57 / 30
        assertThat(r.number("excess_client_errors")).as("the 503 is not A1's answer").isEqualTo(1);
        assertThat(List.of(perPhase(r, "before", "bad_agent_requests"), perPhase(r, "during", "bad_agent_requests"),
                perPhase(r, "after", "bad_agent_requests"))).containsExactly(2L, 2L, 2L);
        assertThat(r.number("rest_after_ms")).isEqualTo(0.0); // sent at 999 ms, answered busy at 1000 ms
        assertThat(r.number("ejection_after_ms")).isNaN();
        assertThat(r.number("ejections")).isZero();
        // 999 (sent before the switch, answered busy), 1020 and 1030 within 2 s
        assertThat(r.number("most_bad_agent_requests_per_retry_after")).isEqualTo(3);
        assertThat(r.number("bad_answer_from_s")).isEqualTo(1.0);
        assertThat(r.number("bad_answer_until_s")).isEqualTo(3.0);
        assertThat(r.passed()).isFalse();
        assertThat(r.failures()).isEqualTo(1);
        assertThat(phase(r, "after").stats().answered("A1")).isEqualTo(1);
        assertThat(Outcomes.totals(r.timeline())).isEqualTo(Map.of("A1", 2L, "A2", 56L, "A3", 0L));
        assertThat(BUSY.section(List.of(r)).tables().get(0).markdown()).endsWith(
                "| rr | 0/2/0 | 1 (1) | 2/2/2 | 0 | n/a | 0 / 0 | 3 | NO |\n");
    }

    @Test
    void aGrayRunTakesTheEjectionFromTheHealthLogAndAllowsFivePercentOf500s() {
        AtomicLong now = new AtomicLong();
        BalancerLog log = new BalancerLog(now::get);
        now.set(900 * MS);
        log.agentEjected("A1", Duration.ofSeconds(1)); // before the switch: not this fault's
        now.set(1_050 * MS);
        log.agentEjected("A1", Duration.ofSeconds(1));
        now.set(1_500 * MS);
        log.agentReadmitted("A1"); // a request sent before the switch answered
        now.set(2_100 * MS);
        log.agentEjected("A1", Duration.ofSeconds(2));
        now.set(3_500 * MS);
        log.agentReadmitted("A1"); // after the switch back: not counted
        List<TimedOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            outcomes.add(failed(500, 1_001 + i));
        }
        for (int i = 0; i < 95; i++) {
            outcomes.add(answered("A3", 1_100 + i));
        }
        Result r = report(GRAY, outcomes, log);
        Measurements.assertReportShape(r);

        assertThat(perPhase(r, "during", "bad_answers_seen_by_clients")).isEqualTo(5);
        assertThat(r.number("bad_answers_allowed")).isEqualTo(5); // 5% of 100
        assertThat(r.number("excess_client_errors")).isZero();
        assertThat(r.passed()).isTrue();
        assertThat(r.number("ejection_after_ms")).isEqualTo(50.0);
        assertThat(r.number("ejections")).isEqualTo(2);
        assertThat(r.number("readmissions_while_bad")).isEqualTo(1);
        assertThat(r.number("rest_after_ms")).isNaN();
        assertThat(r.number("most_bad_agent_requests_per_retry_after")).isNaN();
        assertThat(perPhase(r, "during", "bad_agent_requests")).isZero();
    }

    @Test
    void aBrownOutCountsAttemptsPerRequestDuringItAndTheBudgetsCountersAndAllowsNoClientError() {
        BadAgentScenario brownOut = BadAgentScenario.brownOut(900);
        AtomicLong clock = new AtomicLong();
        BalancerLog log = new BalancerLog(clock::get);
        List<TimedOutcome> outcomes = new ArrayList<>(List.of(answered("A1", 0), answered("A3", 3_500)));
        for (int i = 0; i < 100; i++) {
            outcomes.add(answered(i % 2 == 0 ? "A3" : "A4", 1_001 + i));
            attempt(log, clock, i % 2 == 0 ? "A3" : "A4", AttemptOutcome.SUCCESS, 1_001 + i);
        }
        for (int i = 0; i < 10; i++) { // 10 of the 100 went first to A1 or A2, then elsewhere
            attempt(log, clock, i % 2 == 0 ? "A1" : "A2", AttemptOutcome.ERROR_ANSWER, 1_001 + 10 * i);
        }
        LoadTestConfig config = new LoadTestConfig(outcomes.size(), 1, 10, 42, 5_000, 500, 0, 0);
        ClusterRun.Measured m = Measurements.measured("brownout", "rr", config, List.of("A1", "A2", "A3", "A4"), outcomes,
                List.of("before", "during", "after"), List.of("A1+A2 503", "A1+A2 normal"),
                List.of(new Changes.Made(1_000 * MS, 1_000 * MS), new Changes.Made(3_000 * MS, 3_000 * MS)), log);
        Result r = brownOut.result(m, 10, 0);
        Measurements.assertReportShape(r);

        assertThat(brownOut.name() + " " + brownOut.status() + " " + brownOut.badAgents()).isEqualTo("brownout 503 [A1, A2]");
        assertThat(r.number("attempts_per_request_during")).isEqualTo(1.1);
        assertThat(perPhase(r, "during", "bad_agent_requests")).isEqualTo(10);
        assertThat(r.number("retries")).isEqualTo(10);
        assertThat(r.number("retry_budget_exhausted")).isZero();
        assertThat(r.number("bad_answers_allowed")).isZero();
        assertThat(r.passed()).isTrue();
        assertThat(brownOut.section(List.of(r)).tables().get(0).markdown()).endsWith("| 1.100 | 10 / 0 | yes |\n");

        outcomes.add(failed(503, 1_500));
        Result lost = brownOut.result(Measurements.measured("brownout", "rr", config, List.of("A1", "A2", "A3", "A4"),
                outcomes, List.of("before", "during", "after"), List.of("A1+A2 503", "A1+A2 normal"),
                List.of(new Changes.Made(1_000 * MS, 1_000 * MS), new Changes.Made(3_000 * MS, 3_000 * MS)), log), 10, 1);
        assertThat(lost.passed()).as("one client saw a 503").isFalse();
        assertThat(lost.number("excess_client_errors")).isEqualTo(1);
    }

    @Test
    void mostWithinCountsInstantsInAHalfOpenWindow() {
        assertThat(BadAgentScenario.mostWithin(new long[0], 10)).isZero();
        assertThat(BadAgentScenario.mostWithin(new long[] {0, 9, 10, 19, 20}, 10)).isEqualTo(2);
        assertThat(BadAgentScenario.mostWithin(new long[] {0, 1, 2, 30}, 10)).isEqualTo(3);
    }

    @Test
    void theAllowancesAreOneInThirtyAndFivePercentRoundedDown() {
        assertThat(BUSY.allowedClientErrors(30)).isEqualTo(1);
        assertThat(BUSY.allowedClientErrors(29)).isZero();
        assertThat(GRAY.allowedClientErrors(300)).isEqualTo(15);
        assertThat(GRAY.allowedClientErrors(19)).isZero();
        assertThat(BUSY.allowance() + ", " + GRAY.allowance()).isEqualTo("1 in 30, 5%");
        assertThat(BUSY.rest()).isEqualTo(Duration.ofSeconds(2));
        assertThat(GRAY.rest()).isZero();
        assertThatThrownBy(() -> GRAY.allowedClientErrors(-1)).hasMessage("requests must be >= 0, was -1");
    }

    /**
     * Agents that answer at once, so that a run of one request at a time stays short. (With requests
     * in parallel, A1's requests sent before the switch can be answered after its ejection and
     * re-admit it, which costs five more 500s each: counted as re-admissions in the main job's runs.)
     */
    private static final AgentConfig INSTANT_AGENTS = AgentConfig.custom().delayMs(0, 0).build();

    /**
     * Runs the trial under rr and then lr, printing its progress to {@code progress}, and checks on
     * each result the bounds both trials share: every request counted, at most {@code allowed} of
     * those sent while A1 misbehaved saw its bad answer, no other client error, within bounds. One
     * request at a time: each answer, A1's included, is handled before the next request is sent, so
     * what A1 receives does not depend on how fast the CPU is (ten at a time, a starved CPU let A1
     * take a third request within its rest before its first 429 was handled, or re-admitted it by an
     * answer sent before the switch).
     */
    private List<Result> trial(BadAgentScenario scenario, AgentConfig agents, int requests, LongUnaryOperator allowed,
                               ByteArrayOutputStream progress) throws Exception {
        LoadTestConfig config = new LoadTestConfig(requests, requests / 10, 1, 42, 5_000, 500, 30, 0);
        Setup setup = Measurements.setup(agents, List.of("rr", "lr"), config, new PrintStream(progress, true, StandardCharsets.UTF_8));
        BadAgentScenario sized = new BadAgentScenario(scenario.name().equals("busy"), false, requests);
        List<Result> results = new ArrayList<>();
        for (Variant v : sized.variants(setup)) {
            Result r = sized.run(v, setup);
            String strategy = r.variant();
            assertThat(r.totals().requests()).isEqualTo(requests);
            long during = phase(r, "during").stats().requests();
            long seen = (long) r.number("bad_answers_seen_by_clients");
            assertThat(seen).as("%s: clients that saw A1's %d, of %d", strategy, scenario.status(), during)
                    .isLessThanOrEqualTo(allowed.applyAsLong(during));
            assertThat(r.clientErrors() - seen).as("%s: other client errors", strategy).isZero();
            assertThat(r.passed()).isTrue();
            results.add(r);
        }
        return results;
    }

    @Test
    @Tag("e2e")
    void aBusyAgentIsRestedFor429sRetryAfterAndClientsAlmostNeverSeeIt() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        for (Result r : trial(BUSY, INSTANT_AGENTS, 300, during -> during / 30, progress)) {
            String strategy = r.variant();
            assertThat(r.number("most_bad_agent_requests_per_retry_after")).as("%s: A1's requests within one "
                    + "Retry-After", strategy).isNotNaN().isLessThanOrEqualTo(BadAgentScenario.MAX_PER_REST)
                    .as("%s: one request at a time, A1 is rested before the next is sent", strategy).isEqualTo(1);
            assertThat(r.number("bad_answers_seen_by_clients")).as("%s: every 429 failed over", strategy).isZero();
            assertThat(r.number("rest_after_ms")).as("%s: A1 rested", strategy).isNotNaN();
            assertThat(r.number("ejections")).as("%s: a busy agent is not ejected", strategy).isZero();
            assertThat(JsonReport.write(r, dir)).isNotEmptyFile();
            for (Chart c : r.charts()) {
                assertThat(Charts.write(c, dir)).allSatisfy(f -> assertThat(dir.resolve(f)).isNotEmptyFile());
            }
        }
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("== rr, busy scenario", "== lr, busy scenario");
    }

    @Test
    @Tag("e2e")
    void inABrownOutNoClientSeesA503AndFewRequestsTakeTwoAttempts() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        LoadTestConfig config = new LoadTestConfig(300, 30, 1, 42, 5_000, 500, 30, 0);
        Setup setup = Measurements.setup(INSTANT_AGENTS, List.of("rr", "lr"), config, new PrintStream(progress, true, StandardCharsets.UTF_8));
        BadAgentScenario brownOut = BadAgentScenario.brownOut(300);
        for (Variant v : brownOut.variants(setup)) {
            Result r = brownOut.run(v, setup);
            assertThat(r.totals().requests()).isEqualTo(300);
            assertThat(r.clientErrors()).as("%s: no client saw a 503", r.variant()).isZero();
            assertThat(r.number("attempts_per_request_during")).as(r.variant()).isGreaterThan(1).isLessThanOrEqualTo(1.2);
            assertThat(r.number("retries")).as("%s: each extra attempt a retry", r.variant()).isPositive();
            assertThat(r.passed()).isTrue();
            assertThat(JsonReport.write(r, dir)).isNotEmptyFile();
        }
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("== rr, brownout scenario: agents A1, A2, A3, A4");
    }

    @Test
    @Tag("e2e")
    void aGrayAgentIsEjectedAndAtMostFivePercentOfClientsSeeIts500() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        // 300 requests while A1 fails, as in the gray trial (300 GETs, 10 at a time)
        for (Result r : trial(GRAY, INSTANT_AGENTS, 900, during -> during * 5 / 100, progress)) {
            String strategy = r.variant();
            assertThat(r.number("ejection_after_ms")).as("%s: A1 ejected", strategy).isNotNaN();
            assertThat(r.number("ejections")).isPositive();
            assertThat(phase(r, "after").stats().answered("A1") + phase(r, "before").stats().answered("A1"))
                    .as("%s: A1 answers outside the fault", strategy).isPositive();
        }
    }

    @Test
    void theMainJobRunsBusyAndGray() {
        assertThat(Scenario.all()).extracting(Scenario::name).contains("busy", "gray");
    }
}
