package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.run.JvmGauges;
import org.junit.jupiter.api.Test;

class PacingCheckTest {

    private static final long MS = 1_000_000;

    /** A check that has seen {@code count} sends exactly on time. */
    private static PacingCheck onTimeSends(int count) {
        PacingCheck check = new PacingCheck();
        for (int i = 0; i < count; i++) {
            check.sendLag(0);
        }
        return check;
    }

    @Test
    void anOpenLoopThatSendsOnTimeKeptPace() {
        PacingCheck check = new PacingCheck();
        for (int i = 0; i < 200; i++) {
            check.sendLag(i % 2 == 0 ? 0 : MS);           // within one 1 ms tick
        }
        check.sendLag(PacingCheck.LATE_THRESHOLD_NANOS);   // exactly at the threshold: not late
        PacingCheck.Result r = check.result(0.3, 2, Double.NaN);
        assertThat(r.sends()).isEqualTo(201);
        assertThat(r.lateSends()).isZero();
        assertThat(r.keptPace()).isTrue();
        assertThat(r.lines()).singleElement().asString().startsWith("Self-check: the generator kept pace (0 of 201 sends");
    }

    @Test
    void lateSendsAboveOnePercentMeanTheGeneratorFellBehind() {
        PacingCheck check = onTimeSends(98);
        check.sendLag(6 * MS);
        check.sendLag(48 * MS);
        PacingCheck.Result r = check.result(Double.NaN, 2, Double.NaN);
        assertThat(r.lateSends()).isEqualTo(2);
        assertThat(r.maxLagMs()).isEqualTo(48.0);
        assertThat(r.fellBehindSchedule()).isTrue();
        assertThat(r.lines()).singleElement().asString()
                .startsWith("Self-check: the generator FELL BEHIND its schedule: 2 of 100 requests (2.0%) were sent "
                        + "more than 5 ms late (p99 6.0 ms, max 48.0 ms).");
    }

    @Test
    void oneLateSendInAHundredIsNotFallingBehind() {
        PacingCheck check = onTimeSends(99);
        check.sendLag(100 * MS);
        assertThat(check.result(Double.NaN, 2, Double.NaN).fellBehindSchedule()).isFalse();
    }

    @Test
    void workersBetweenRequestsForMoreThanFivePercentOfTheirTimeFellBehind() {
        PacingCheck check = new PacingCheck();
        // Each cycle: 100 ms waiting for the answer, then 6 ms before the next send: 6/106 = 5.66%.
        for (int i = 0; i < 10; i++) {
            check.workerBusy(100 * MS);
            check.workerGap(6 * MS);
        }
        PacingCheck.Result r = check.result(0.5, 2, Double.NaN);
        assertThat(r.gapShare()).isCloseTo(6.0 / 106, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(r.workersFellBehind()).isTrue();
        assertThat(r.lines()).singleElement().asString()
                .isEqualTo("Self-check: the workers FELL BEHIND: they spent 5.7% of their time between an answer and "
                        + "their next send (p99 gap 6.0 ms), so the throughput is partly the generator's limit, not the "
                        + "system's.");
    }

    @Test
    void workersWithFivePercentGapsKeptPace() {
        PacingCheck check = new PacingCheck();
        check.workerBusy(95 * MS);
        check.workerGap(5 * MS);
        assertThat(check.result(0.5, 2, Double.NaN).workersFellBehind()).isFalse();
    }

    @Test
    void aJvmUsingNinetyPercentOfTheCoresIsCpuBound() {
        PacingCheck.Result r = new PacingCheck().result(JvmGauges.cpuShare(1_800 * MS, 1_000 * MS, 2), 2, Double.NaN);
        assertThat(r.cpuShare()).isEqualTo(0.9);
        assertThat(r.cpuBound()).isTrue();
        assertThat(r.lines()).singleElement().asString().startsWith("Self-check: this JVM was CPU-BOUND: it used 90% of the 2 cores");
        assertThat(new PacingCheck().result(JvmGauges.cpuShare(1_790 * MS, 1_000 * MS, 2), 2, Double.NaN).cpuBound()).isFalse();
        assertThat(JvmGauges.cpuShare(-1, 1_000, 2)).isNaN();
    }

    @Test
    void theKeptPaceLineSaysTheJvmsCpuTimePerRequest() {
        // 3 s of CPU over 6000 requests: 0.5 ms each, the figure to compare with another client's
        double perRequest = PacingCheck.cpuMsPerRequest(3_000 * MS, 6_000);
        assertThat(perRequest).isEqualTo(0.5);
        PacingCheck.Result r = new PacingCheck().result(0.25, 2, perRequest);
        assertThat(r.lines()).containsExactly("Self-check: the generator kept pace (JVM CPU 25% of 2 cores, "
                + "0.500 ms per request).");
        assertThat(PacingCheck.cpuMsPerRequest(-1, 6_000)).isNaN();
        assertThat(PacingCheck.cpuMsPerRequest(3_000 * MS, 0)).isNaN();
        assertThat(new PacingCheck().result(0.25, 2, Double.NaN).lines()).containsExactly(
                "Self-check: the generator kept pace (JVM CPU 25% of 2 cores).");
    }
}
