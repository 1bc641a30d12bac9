package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class RunStatisticsTest {

    private static final long MICRO = 1_000;
    private static final long MILLI = 1_000_000;

    /**
     * Nine requests worked through by hand: A1 answers 3, A2 2, A3 1, A4 none; one 503, one
     * connection failure (status 0), one timeout. Users: 1 sticky (A1, A1), 2 split (A2, A3),
     * 3 sticky (A1 and a timeout), 4 only an error (not answered), 5 sticky (A2 and an error).
     */
    public static List<RequestOutcome> handWorkedOutcomes() {
        return List.of(
                RequestOutcome.success("r1", 1, "A1", 200, 100 * MICRO),
                RequestOutcome.success("r2", 1, "A1", 200, 200 * MICRO),
                RequestOutcome.success("r3", 2, "A2", 200, 300 * MICRO),
                RequestOutcome.success("r4", 2, "A3", 200, 400 * MICRO),
                RequestOutcome.success("r5", 3, "A1", 200, 500 * MICRO),
                RequestOutcome.timeout("r6", 3, 5_000 * MILLI),
                RequestOutcome.error("r7", 4, 503, 700 * MICRO),
                RequestOutcome.success("r8", 5, "A2", 200, 600 * MICRO),
                RequestOutcome.error("r9", 5, 0, 800 * MICRO));
    }

    public static RunStatistics handWorked() {
        return RunStatistics.of(handWorkedOutcomes(), List.of("A1", "A2", "A3", "A4"), 2_000 * MILLI);
    }

    @Test
    void countsSuccessesPerAgentAndNeverErrorsOrTimeouts() {
        RunStatistics s = handWorked();

        assertThat(s.requests()).isEqualTo(9);
        assertThat(s.successes()).isEqualTo(6);
        assertThat(s.errors()).isEqualTo(2);
        assertThat(s.timeouts()).isEqualTo(1);
        assertThat(s.errorStatuses()).containsExactly(Map.entry(0, 1L), Map.entry(503, 1L));
        assertThat(s.agents().keySet()).containsExactly("A1", "A2", "A3", "A4");
        assertThat(s.agents().values()).extracting(RunStatistics.AgentSummary::count).containsExactly(3L, 2L, 1L, 0L);
        assertThat(s.agents().get("A1").share()).isEqualTo(0.5);
    }

    @Test
    void spreadVarianceAndCvOfTheCounts() {
        RunStatistics s = handWorked();

        // counts 3, 2, 1, 0: mean 1.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5; / 4 agents
        assertThat(s.meanPerAgent()).isEqualTo(1.5);
        assertThat(s.spread()).isEqualTo(3);
        assertThat(s.variance()).isEqualTo(1.25);
        assertThat(s.coefficientOfVariation()).isCloseTo(Math.sqrt(1.25) / 1.5, offset(1e-12));
        assertThat(s.coefficientOfVariation()).isCloseTo(0.745356, offset(1e-6));
        assertThat(s.maxOverMean()).isEqualTo(2.0);
    }

    @Test
    void stickinessCountsOnlyAnsweredUsersAndIgnoresFailedRequests() {
        RunStatistics s = handWorked();

        // answered: users 1, 2, 3, 5; sticky: 1, 3, 5
        assertThat(s.answeredUsers()).isEqualTo(4);
        assertThat(s.stickyUsers()).isEqualTo(3);
        assertThat(s.stickiness()).isEqualTo(0.75);
    }

    @Test
    void latencyOfSuccessesOnlyExactBelowTwoMilliseconds() {
        RunStatistics s = handWorked();

        // successes 0.1 .. 0.6 ms; nearest rank: p50 = 3rd of 6, p95 and p99 = 6th
        assertThat(s.latency()).isEqualTo(new LatencySummary(6, 0.35, 0.3, 0.6, 0.6, 0.6));
        // A1: 0.1, 0.2, 0.5 ms
        LatencySummary a1 = s.agents().get("A1").latency();
        assertThat(a1.meanMs()).isCloseTo(0.8 / 3, offset(1e-12));
        assertThat(a1.p50Ms()).isEqualTo(0.2);
        assertThat(a1.p95Ms()).isEqualTo(0.5);
        assertThat(a1.p99Ms()).isEqualTo(0.5);
        assertThat(s.agents().get("A4").latency()).isEqualTo(LatencySummary.EMPTY);
    }

    @Test
    void percentilesExactOnMicrosecondGridAndWithinHistogramPrecisionAbove() {
        List<RequestOutcome> fine = new ArrayList<>();
        List<RequestOutcome> coarse = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            fine.add(RequestOutcome.success("f" + i, i, "A1", 200, i * 10 * MICRO));
            coarse.add(RequestOutcome.success("c" + i, i, "A1", 200, i * MILLI));
        }

        LatencySummary exact = RunStatistics.of(fine, List.of(), 1).latency();
        assertThat(exact).isEqualTo(new LatencySummary(100, 0.505, 0.5, 0.95, 0.99, 1.0));

        // 3 significant digits: a reported percentile is within 0.1% of the true value
        LatencySummary approx = RunStatistics.of(coarse, List.of(), 1).latency();
        assertThat(approx.meanMs()).isEqualTo(50.5);
        assertThat(approx.p50Ms()).isCloseTo(50, withinPercentage(0.1));
        assertThat(approx.p95Ms()).isCloseTo(95, withinPercentage(0.1));
        assertThat(approx.p99Ms()).isCloseTo(99, withinPercentage(0.1));
        assertThat(approx.maxMs()).isEqualTo(100);
    }

    @Test
    void throughputIsSuccessesPerSecondOfWallTime() {
        RunStatistics s = handWorked();

        assertThat(s.durationMs()).isEqualTo(2_000);
        assertThat(s.throughputRps()).isEqualTo(3.0);
    }

    @Test
    void perfectlyEvenRunHasZeroSpreadAndFullStickiness() {
        List<RequestOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            int user = i % 3 + 1;
            outcomes.add(RequestOutcome.success("r" + i, user, "A" + user, 200, MILLI));
        }

        RunStatistics s = RunStatistics.of(outcomes, List.of("A1", "A2", "A3"), MILLI);

        assertThat(s.spread()).isZero();
        assertThat(s.variance()).isZero();
        assertThat(s.coefficientOfVariation()).isZero();
        assertThat(s.stickiness()).isEqualTo(1.0);
    }

    @Test
    void noAnswersAtAllGiveNotObservedFiguresNotExceptions() {
        RunStatistics s = RunStatistics.of(List.of(RequestOutcome.error("r1", 1, 0, 1)), List.of(), 1);

        assertThat(s.agents()).isEmpty();
        assertThat(s.countStatistics()).isEmpty();
        assertThat(s.spread()).isZero();
        assertThat(s.coefficientOfVariation()).isNaN();
        assertThat(s.stickiness()).isNaN();
        assertThat(s.latency()).isEqualTo(LatencySummary.EMPTY);
    }

    @Test
    void whatWasNotObservedIsNaNNotZero() {
        RunStatistics s = RunStatistics.of(List.of(RequestOutcome.error("r1", 1, 404, 1)), List.of("A1", "A2"), 5);
        RunStatistics none = RunStatistics.of(List.of(), List.of("A1"), 0);

        assertThat(List.of(s.stickiness(), s.coefficientOfVariation(), s.maxOverMean(), s.latency().meanMs(),
                s.latency().p50Ms(), s.latency().p95Ms(), s.latency().p99Ms(), s.latency().maxMs(),
                s.agents().get("A1").latency().p99Ms(), none.durationMs())).allMatch(d -> d.isNaN());
        assertThat(s.answeredUsers()).isZero();
        assertThat(s.variance()).isZero(); // both agents known, both answered 0: observed
        assertThat(s.durationMs()).isEqualTo(5e-6);
    }

    @Test
    void rejectsInconsistentOutcomes() {
        assertThatThrownBy(() -> RequestOutcome.success("r1", 1, " ", 200, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("agentId");
        assertThatThrownBy(() -> new RequestOutcome("r1", 1, RequestOutcome.Kind.ERROR, "A1", 500, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("agentId");
        assertThatThrownBy(() -> RequestOutcome.timeout("r1", 1, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("latencyNanos must be >= 0, was -1");
        assertThatThrownBy(() -> RunStatistics.of(List.of(), List.of(), -5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("durationNanos must be >= 0, was -5");
    }

    /**
     * HdrHistogram gives a percentile as the highest value equivalent to it (3 digits: 150.061 ms and
     * 150.143 ms share a bucket); no percentile may pass the exact max, as a report's reader checks.
     */
    @Test
    void noPercentileIsAboveTheExactMax() {
        LatencySummary.Recorder r = new LatencySummary.Recorder();
        for (int i = 0; i < 98; i++) {
            r.record(100 * MILLI);
        }
        r.record(150_061 * MICRO);
        r.record(150_061 * MICRO);
        LatencySummary s = r.summary();
        assertThat(s.maxMs()).isEqualTo(150.061);
        assertThat(s.p99Ms()).isEqualTo(150.061);
        PacingCheck check = new PacingCheck();
        check.sendLag(150_061 * MICRO);
        assertThat(check.result(Double.NaN, 2, Double.NaN).p99LagMs()).isEqualTo(150.061);
    }
}
