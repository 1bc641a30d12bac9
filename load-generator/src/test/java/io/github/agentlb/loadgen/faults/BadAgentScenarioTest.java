package io.github.agentlb.loadgen.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.scenario.JobScenario;
import io.github.agentlb.loadgen.scenario.ScenarioLoad;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Small busy and gray runs end to end, under rr and lr: agents and demo proxy in this JVM on free
 * loopback ports, A1 switched by request count, and the trials' bounds asserted. One request at a
 * time: each answer, A1's included, is handled before the next request is sent, so what A1 receives
 * does not depend on how fast the CPU is (ten at a time, a starved CPU let A1 take a third request
 * within its rest before its first 429 was handled, or re-admitted it by an answer sent before the
 * switch).
 */
@Tag("e2e")
@Timeout(180)
class BadAgentScenarioTest {

    @TempDir
    Path dir;

    /**
     * Agents that answer at once, so that a run of one request at a time stays short. (With requests
     * in parallel, A1's requests sent before the switch can be answered after its ejection and
     * re-admit it, which costs five more 500s each: {@link BadAgentReport#readmissions()} in the main
     * job's runs.)
     */
    private static final AgentConfig INSTANT_AGENTS = AgentConfig.custom().delayMs(0, 0).build();

    /**
     * Runs the trial under rr and then lr, printing its progress to {@code progress}, and checks on
     * each report the bounds both trials share: every request counted, at most {@code allowed} of
     * those sent while A1 misbehaved saw its bad answer, no other client error, within bounds.
     */
    private static List<BadAgentReport> trial(BadAnswer answer, AgentConfig agents, int requests,
                                              LongUnaryOperator allowed, ByteArrayOutputStream progress)
            throws Exception {
        LoadTestConfig config = LoadTestConfig.custom().requests(requests).users(requests / 10)
                .concurrency(1).seed(42).warmup(30).build();
        BadAgentScenario scenario = new BadAgentScenario(answer,
                new ScenarioLoad(agents, 42, config, new PrintStream(progress, true, StandardCharsets.UTF_8)));
        List<BadAgentReport> reports = new ArrayList<>();
        for (String strategy : List.of("rr", "lr")) {
            BadAgentReport r = scenario.run(strategy);
            assertThat(r.requests()).isEqualTo(requests);
            long during = r.phases().get(BadAgentPhase.DURING).requests();
            assertThat(r.badAnswersSeen()).as("%s: clients that saw A1's %d, of %d", strategy, answer.status(), during)
                    .isLessThanOrEqualTo(allowed.applyAsLong(during));
            assertThat(r.clientErrors() - r.badAnswersSeen()).as("%s: other client errors", strategy).isZero();
            assertThat(r.withinBounds()).isTrue();
            reports.add(r);
        }
        return reports;
    }

    @Test
    void aBusyAgentIsRestedFor429sRetryAfterAndClientsAlmostNeverSeeIt() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        for (BadAgentReport r : trial(BadAnswer.BUSY, INSTANT_AGENTS, 300, during -> during / 30, progress)) {
            String strategy = r.strategy();
            assertThat(r.mostPerRest()).as("%s: A1's requests within one Retry-After", strategy).isPresent();
            assertThat(r.mostPerRest().getAsInt()).as("%s: A1's requests within one Retry-After", strategy)
                    .isLessThanOrEqualTo(BadAnswer.MAX_PER_REST)
                    .as("%s: one request at a time, A1 is rested before the next is sent", strategy).isEqualTo(1);
            assertThat(r.badAnswersSeen()).as("%s: every 429 failed over", strategy).isZero();
            assertThat(r.restMs()).as("%s: A1 rested", strategy).isNotNaN();
            assertThat(r.ejections()).as("%s: a busy agent is not ejected", strategy).isZero();
            assertThat(BadAgentReportWriter.write(r, dir)).allSatisfy(f -> assertThat(dir.resolve(f)).isNotEmptyFile());
        }
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("== rr, busy scenario", "== lr, busy scenario");
    }

    @Test
    void aGrayAgentIsEjectedAndAtMostFivePercentOfClientsSeeIts500() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        // 300 requests while A1 fails, as in the gray trial (300 GETs, 10 at a time)
        for (BadAgentReport r : trial(BadAnswer.GRAY, INSTANT_AGENTS, 900, during -> during * 5 / 100, progress)) {
            String strategy = r.strategy();
            assertThat(r.ejectionMs()).as("%s: A1 ejected", strategy).isNotNaN();
            assertThat(r.ejections()).isPositive();
            assertThat(r.answered(BadAgentPhase.AFTER, "A1") + r.answered(BadAgentPhase.BEFORE, "A1"))
                    .as("%s: A1 answers outside the fault", strategy).isPositive();
        }
    }

    @Test
    void theMainJobFindsBusyAndGrayAndRunsThemOnlyWhenNamed() {
        assertThat(JobScenario.installed()).filteredOn(j -> List.of("busy", "gray").contains(j.label()))
                .hasSize(2).allSatisfy(j -> assertThat(j.inMainJob()).isEqualTo(BadAgentJob.IN_MAIN_JOB));
    }
}
