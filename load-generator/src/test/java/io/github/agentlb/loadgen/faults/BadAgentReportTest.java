package io.github.agentlb.loadgen.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.run.HealthEventLog;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A busy or gray run's figures from hand-made outcomes and attempts; times in ms, A1 switched at 1000 and 3000. */
class BadAgentReportTest {

    private static final long MS = 1_000_000L;
    private static final List<String> AGENTS = List.of("A1", "A2", "A3");
    private static int next;

    private static TimedOutcome answered(String agent, long sentMs) {
        return new TimedOutcome(RequestOutcome.success("r" + (++next), 1, agent, 200, 10 * MS), sentMs * MS);
    }

    private static TimedOutcome failed(int status, long sentMs) {
        return new TimedOutcome(RequestOutcome.error("r" + (++next), 1, status, MS), sentMs * MS);
    }

    private static AttemptLog.Attempt attempt(String agent, AttemptOutcome outcome, long startedMs) {
        return new AttemptLog.Attempt(agent, outcome, startedMs * MS, (startedMs + 1) * MS);
    }

    private static BadAgentReport report(BadAnswer answer, List<TimedOutcome> outcomes, List<AttemptLog.Attempt> attempts,
                                         HealthEventLog health) {
        LoadTestConfig config = LoadTestConfig.custom().requests(outcomes.size()).users(1).warmup(0).build();
        return BadAgentReport.of("rr", answer, config, AGENTS, outcomes, attempts, health, 1_000 * MS, 3_000 * MS);
    }

    @Test
    void aBusyRunCountsClientErrorsAndA1sRequestsPerPhaseItsRestAndItsMostRequestsPerRetryAfter() {
        List<TimedOutcome> outcomes = new ArrayList<>(List.of(answered("A1", 0), answered("A2", 500),
                failed(429, 1_500), failed(503, 2_000), answered("A1", 3_500)));
        for (int i = 0; i < 55; i++) { // 60 requests while A1 is busy: 2 may see its 429
            outcomes.add(answered("A2", 1_001 + i));
        }
        List<AttemptLog.Attempt> attempts = List.of(attempt("A1", AttemptOutcome.SUCCESS, 0),
                attempt("A1", AttemptOutcome.BUSY, 999), attempt("A1", AttemptOutcome.BUSY, 1_020), attempt("A1", AttemptOutcome.BUSY, 1_030),
                attempt("A2", AttemptOutcome.SUCCESS, 1_031), attempt("A1", AttemptOutcome.BUSY, 3_025),
                attempt("A1", AttemptOutcome.SUCCESS, 3_500));
        BadAgentReport r = report(BadAnswer.BUSY, outcomes, attempts, new HealthEventLog(() -> 0));

        assertThat(r.requests()).isEqualTo(60);
        assertThat(r.phases().get(BadAgentPhase.DURING).requests()).isEqualTo(57);
        assertThat(r.clientErrors(BadAgentPhase.BEFORE)).isZero();
        assertThat(r.clientErrors(BadAgentPhase.DURING)).isEqualTo(2);
        assertThat(r.badAnswersSeen()).isEqualTo(1);
        assertThat(r.allowedBadAnswers()).isEqualTo(1); // 57 / 30
        assertThat(r.excessClientErrors()).as("the 503 is not A1's answer").isEqualTo(1);
        assertThat(r.badAgentRequests()).isEqualTo(Map.of(BadAgentPhase.BEFORE, 2L, BadAgentPhase.DURING, 2L,
                BadAgentPhase.AFTER, 2L));
        assertThat(r.restMs()).isEqualTo(0.0); // sent at 999 ms, answered busy at 1000 ms
        assertThat(r.ejectionMs()).isNaN();
        assertThat(r.ejections()).isZero();
        assertThat(r.mostPerRest()).hasValue(3); // 999 (sent before the switch, answered busy), 1020 and 1030 within 2 s
        assertThat(r.onSeconds()).isEqualTo(1.0);
        assertThat(r.offSeconds()).isEqualTo(3.0);
        assertThat(r.withinBounds()).isFalse();
        assertThat(r.answered(BadAgentPhase.AFTER, "A1")).isEqualTo(1);
        assertThat(r.timeline().totals()).isEqualTo(Map.of("A1", 2L, "A2", 56L, "A3", 0L));
        assertThat(BadAgentReportWriter.table(List.of(r))).endsWith(
                "| rr | 0/2/0 | 1 (1) | 2/2/2 | 0 | n/a | 0 / 0 | 3 | NO |\n");
    }

    @Test
    void aGrayRunTakesTheEjectionFromTheHealthLogAndAllowsFivePercentOf500s() {
        AtomicLong now = new AtomicLong();
        HealthEventLog health = new HealthEventLog(now::get);
        now.set(900 * MS);
        health.agentEjected("A1", Duration.ofSeconds(1)); // before the switch: not this fault's
        now.set(1_050 * MS);
        health.agentEjected("A1", Duration.ofSeconds(1));
        now.set(1_500 * MS);
        health.agentReadmitted("A1"); // a request sent before the switch answered
        now.set(2_100 * MS);
        health.agentEjected("A1", Duration.ofSeconds(2));
        now.set(3_500 * MS);
        health.agentReadmitted("A1"); // after the switch back: not counted
        List<TimedOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            outcomes.add(failed(500, 1_001 + i));
        }
        for (int i = 0; i < 95; i++) {
            outcomes.add(answered("A3", 1_100 + i));
        }
        BadAgentReport r = report(BadAnswer.GRAY, outcomes, List.of(), health);

        assertThat(r.badAnswersSeen(BadAgentPhase.DURING)).isEqualTo(5);
        assertThat(r.allowedBadAnswers()).isEqualTo(5); // 5% of 100
        assertThat(r.excessClientErrors()).isZero();
        assertThat(r.withinBounds()).isTrue();
        assertThat(r.ejectionMs()).isEqualTo(50.0);
        assertThat(r.ejections()).isEqualTo(2);
        assertThat(r.readmissions()).isEqualTo(1);
        assertThat(r.restMs()).isNaN();
        assertThat(r.mostPerRest()).isEqualTo(OptionalInt.empty());
        assertThat(r.badAgentRequests(BadAgentPhase.DURING)).isZero();
    }

    @Test
    void mostWithinCountsInstantsInAHalfOpenWindow() {
        assertThat(BadAgentReport.mostWithin(new long[0], 10)).isZero();
        assertThat(BadAgentReport.mostWithin(new long[] {0, 9, 10, 19, 20}, 10)).isEqualTo(2);
        assertThat(BadAgentReport.mostWithin(new long[] {0, 1, 2, 30}, 10)).isEqualTo(3);
    }

    @Test
    void theAllowancesAreOneInThirtyAndFivePercentRoundedDown() {
        assertThat(BadAnswer.BUSY.allowedClientErrors(30)).isEqualTo(1);
        assertThat(BadAnswer.BUSY.allowedClientErrors(29)).isZero();
        assertThat(BadAnswer.GRAY.allowedClientErrors(300)).isEqualTo(15);
        assertThat(BadAnswer.GRAY.allowedClientErrors(19)).isZero();
        assertThat(BadAnswer.BUSY.allowance() + ", " + BadAnswer.GRAY.allowance()).isEqualTo("1 in 30, 5%");
        assertThat(BadAnswer.BUSY.rest()).isEqualTo(Duration.ofSeconds(2));
        assertThat(BadAnswer.GRAY.rest()).isZero();
        assertThatThrownBy(() -> BadAnswer.GRAY.allowedClientErrors(-1)).hasMessage("requests must be >= 0, was -1");
    }

    @Test
    void theSwitchTurnsA1BadAtAThirdAndBackAtTwoThirdsStampedOnTheRunsClock() {
        AtomicLong clock = new AtomicLong();
        List<String> calls = new ArrayList<>();
        AnswerSwitch sw = new AnswerSwitch(9, () -> calls.add("on"), () -> calls.add("off"), clock::get);
        assertThatThrownBy(sw::onNanos).hasMessageContaining("request 4");
        for (int started = 1; started <= 9; started++) {
            clock.set(started * 10L);
            sw.accept(started);
        }
        assertThat(calls).containsExactly("on", "off");
        assertThat(sw.onNanos()).isEqualTo(40);
        assertThat(sw.offNanos()).isEqualTo(70);
        assertThatThrownBy(() -> new AnswerSwitch(2, () -> { }, () -> { }, clock::get))
                .hasMessage("requests must be >= 3 for three phases, was 2");
    }

    @Test
    void theFaultIsStampedBeforeA1AnswersItAndItsEndAfterA1AnswersNormally() {
        // Each switch takes 5 ns of the run's clock: A1's first fault answer can come at once.
        AtomicLong clock = new AtomicLong();
        AnswerSwitch sw = new AnswerSwitch(9, () -> clock.addAndGet(5), () -> clock.addAndGet(5), clock::get);
        for (int started = 1; started <= 9; started++) {
            clock.set(started * 10L);
            sw.accept(started);
        }
        assertThat(sw.onNanos()).as("read before A1 answers its fault").isEqualTo(40);
        assertThat(sw.offNanos()).as("read after A1 answers normally again").isEqualTo(75);
    }
}
