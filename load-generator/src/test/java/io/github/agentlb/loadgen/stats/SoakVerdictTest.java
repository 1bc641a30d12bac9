package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.config.Pacing;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SoakVerdictTest {

    private static final long MS = 1_000_000;
    private static final long INTERVAL = 10_000 * MS;

    /** Ten minutes of 10 s intervals: p99 {@code firstP99} for the first minute, then {@code lastP99}. */
    private static IntervalSeries run(long firstP99Ms, long lastP99Ms, long firstHeapMb, long lastHeapMb) {
        IntervalSeries series = new IntervalSeries(0, INTERVAL, Long.MAX_VALUE);
        for (int i = 0; i < 60; i++) {
            long p99 = i < 6 ? firstP99Ms : i >= 54 ? lastP99Ms : 100;
            long at = i * INTERVAL + 1;
            for (int k = 0; k < 99; k++) {
                series.record(at, RequestOutcome.success("r", 1, "A1", 200, 10 * MS));
            }
            series.record(at, RequestOutcome.success("r", 1, "A1", 200, p99 * MS));
            series.record(at, RequestOutcome.success("r", 1, "A1", 200, p99 * MS));
            series.sampleJvm(at, (i < 6 ? firstHeapMb : lastHeapMb) << 20, 80);
        }
        return series;
    }

    private static SoakVerdict verdict(IntervalSeries series) {
        return SoakVerdict.of(series, series.intervals(60 * INTERVAL));
    }

    @Test
    void aSteadyRunPasses() {
        SoakVerdict v = verdict(run(150, 160, 50, 55));
        assertThat(v.windowSec()).isEqualTo(60.0);
        // HdrHistogram at 3 digits gives the highest value equivalent to 150 and 160 ms (within 0.1%).
        assertThat(v.firstP99Ms()).isCloseTo(150.0, org.assertj.core.data.Offset.offset(0.15));
        assertThat(v.lastP99Ms()).isCloseTo(160.0, org.assertj.core.data.Offset.offset(0.16));
        assertThat(v.pass()).isTrue();
        assertThat(v.line()).isEqualTo("Verdict: PASS: 0 errors and timeouts; p99 last minute 160.1 ms vs first minute "
                + "150.0 ms (x1.07, no drift); heap after GC 55.0 MB at the end vs 50.0 MB after the first minute "
                + "(+10%, no drift)");
    }

    @Test
    void p99RisingByMoreThanTwentyPercentIsLatencyDrift() {
        SoakVerdict v = verdict(run(150, 181, 50, 50));
        assertThat(v.latencyDrift()).isTrue();
        assertThat(v.pass()).isFalse();
        assertThat(v.line()).startsWith("Verdict: FAIL").contains("LATENCY DRIFT");
        assertThat(verdict(run(150, 175, 50, 50)).latencyDrift()).isFalse();
    }

    @Test
    void smallRisesOnFastAnswersAreNoise() {
        assertThat(verdict(run(2, 6, 50, 50)).latencyDrift()).isFalse();
    }

    @Test
    void heapGrowingByMoreThanTwentyPercentAndEightMbIsHeapDrift() {
        assertThat(verdict(run(150, 150, 50, 61)).heapDrift()).isTrue();
        assertThat(verdict(run(150, 150, 50, 60)).heapDrift()).isFalse();
        assertThat(verdict(run(150, 150, 20, 27)).heapDrift()).isFalse();
    }

    @Test
    void errorsFailTheVerdict() {
        IntervalSeries series = run(150, 150, 50, 50);
        series.record(30 * INTERVAL, RequestOutcome.timeout("r", 1, 5_000 * MS));
        SoakVerdict v = verdict(series);
        assertThat(v.failures()).isEqualTo(1);
        assertThat(v.line()).startsWith("Verdict: FAIL: 1 error or timeout;");
    }

    @Test
    void aShortRunComparesItsHalvesAndAnExternalProxyHasNoHeap() {
        IntervalSeries series = new IntervalSeries(0, 1_000 * MS, Long.MAX_VALUE);
        for (int i = 0; i < 5; i++) {
            series.record(i * 1_000 * MS, RequestOutcome.success("r", 1, "A1", 200, (i + 1) * 10 * MS));
        }
        SoakVerdict v = SoakVerdict.of(series, series.intervals(5_000 * MS));
        assertThat(v.windowSec()).isEqualTo(2.0);
        assertThat(v.firstP99Ms()).isCloseTo(20.0, org.assertj.core.data.Offset.offset(0.02));
        assertThat(v.lastP99Ms()).isCloseTo(50.0, org.assertj.core.data.Offset.offset(0.05));
        assertThat(v.heapMeasured()).isFalse();
        assertThat(v.line()).endsWith("heap not measured (the proxy runs in another JVM)").contains("last 2 s");
    }

    /**
     * An interval in which nothing was answered has no latency: NaN (the JSON's null, the console's
     * and report.md's n/a), never 0 ms; the verdict then cannot compare p99s and says so.
     */
    @Test
    void intervalsWithNothingAnsweredHaveNoLatencyAndTheVerdictSaysSo() {
        IntervalSeries series = new IntervalSeries(0, 5_000 * MS, 20_000 * MS);
        series.record(1_000 * MS, RequestOutcome.timeout("r", 1, 12_000 * MS));
        List<IntervalSeries.Interval> intervals = series.intervals(20_000 * MS);
        assertThat(intervals).hasSize(4).allMatch(i -> Double.isNaN(i.p50Ms()) && Double.isNaN(i.p99Ms()));
        assertThat(series.p99Ms(0, 2)).isNaN();
        SoakVerdict v = SoakVerdict.of(series, intervals);
        assertThat(v.latencyDrift()).isFalse();
        assertThat(v.line()).isEqualTo("Verdict: FAIL: 1 error or timeout; p99 not measured: no request answered in the"
                + " first 10 s or the last 10 s; heap not measured (the proxy runs in another JVM)");
    }

    @Test
    void durationsPrintShort() {
        assertThat(Pacing.formatDuration(Duration.ofMinutes(10))).isEqualTo("10m");
        assertThat(Pacing.formatDuration(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(Pacing.formatDuration(Duration.ofMillis(1500))).isEqualTo("1.5s");
    }
}
