package io.github.agentlb.loadgen.stats;

import static io.github.agentlb.loadgen.stats.SeriesClock.MS;
import static io.github.agentlb.loadgen.stats.SeriesClock.START;
import static io.github.agentlb.loadgen.stats.SeriesClock.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class IntervalSeriesTest {

    @Test
    void everyRequestCountsInExactlyOneIntervalByItsCompletionTime() {
        IntervalSeries series = new IntervalSeries(START, 10_000 * MS, Long.MAX_VALUE);
        long[] completions = {START - 1, START, START + 9_999 * MS, START + 10_000 * MS - 1, START + 10_000 * MS,
            START + 19_999 * MS, START + 20_000 * MS, START + 25_000 * MS};
        for (long at : completions) {
            series.record(at, ok(100));
        }
        List<IntervalSeries.Interval> intervals = series.intervals(START + 25_000 * MS);
        assertThat(intervals).extracting(IntervalSeries.Interval::requests).containsExactly(4L, 2L, 2L);
        assertThat(intervals.stream().mapToLong(IntervalSeries.Interval::requests).sum()).isEqualTo(completions.length);
        assertThat(intervals).extracting(IntervalSeries.Interval::startSeconds).containsExactly(0.0, 10.0, 20.0);
        assertThat(intervals).extracting(IntervalSeries.Interval::lengthSeconds).containsExactly(10.0, 10.0, 5.0);
        assertThat(intervals.get(2).throughputRps()).isEqualTo(0.4);
    }

    @Test
    void failuresAndLatenciesArePerInterval() {
        IntervalSeries series = new IntervalSeries(START, 1_000 * MS, Long.MAX_VALUE);
        for (int i = 1; i <= 100; i++) {
            series.record(START + 10 * MS, ok(i));
        }
        series.record(START + 20 * MS, RequestOutcome.error("r2", 2, 503, 5 * MS));
        series.record(START + 1_500 * MS, RequestOutcome.timeout("r3", 3, 900 * MS));
        series.record(START + 1_600 * MS, ok(300));
        List<IntervalSeries.Interval> intervals = series.intervals(START + 2_000 * MS);
        IntervalSeries.Interval first = intervals.get(0);
        assertThat(first.requests()).isEqualTo(101);
        assertThat(first.successes()).isEqualTo(100);
        assertThat(first.errors()).isEqualTo(1);
        assertThat(first.p50Ms()).isCloseTo(50.0, org.assertj.core.data.Offset.offset(0.05));
        assertThat(first.p99Ms()).isCloseTo(99.0, org.assertj.core.data.Offset.offset(0.1));
        IntervalSeries.Interval second = intervals.get(1);
        assertThat(second.timeouts()).isEqualTo(1);
        assertThat(second.failures()).isEqualTo(1);
        assertThat(second.p99Ms()).isCloseTo(300.0, org.assertj.core.data.Offset.offset(0.3));
        assertThat(series.p99Ms(0, 1)).isEqualTo(first.p99Ms());
        assertThat(series.p99Ms(0, 2)).isCloseTo(100.0, org.assertj.core.data.Offset.offset(0.1));
    }

    @Test
    void theLastJvmSampleOfAnIntervalIsKept() {
        IntervalSeries series = new IntervalSeries(START, 1_000 * MS, Long.MAX_VALUE);
        series.sampleJvm(START + 100 * MS, 10L << 20, 50);
        series.sampleJvm(START + 900 * MS, 12L << 20, 52);
        series.sampleJvm(START + 2_100 * MS, -1, 53);
        List<IntervalSeries.Interval> intervals = series.intervals(START + 2_500 * MS);
        assertThat(intervals.get(0).heapAfterGcMb()).isEqualTo(12.0);
        assertThat(intervals.get(0).liveThreads()).isEqualTo(52);
        assertThat(intervals.get(1).heapAfterGcMb()).isNaN();
        assertThat(intervals.get(1).liveThreads()).isEqualTo(-1);
        assertThat(intervals.get(2).heapAfterGcMb()).isNaN();
    }

    @Test
    void aThirtySecondRunHasThreeFullIntervalsTheLastAbsorbingLateAnswers() {
        IntervalSeries series = new IntervalSeries(START, 10_000 * MS, 30_000 * MS);
        long[] completions = {START + 1_000 * MS, START + 15_000 * MS, START + 29_999 * MS, START + 30_000 * MS,
            START + 30_097 * MS};
        for (long at : completions) {
            series.record(at, ok(100));
        }
        List<IntervalSeries.Interval> intervals = series.intervals(START + 30_000 * MS);

        assertThat(intervals).extracting(IntervalSeries.Interval::requests).containsExactly(1L, 1L, 3L);
        assertThat(intervals).extracting(IntervalSeries.Interval::lengthSeconds).containsExactly(10.0, 10.0, 10.0);
        assertThat(intervals.stream().mapToLong(IntervalSeries.Interval::requests).sum()).isEqualTo(completions.length);
        assertThat(series.indexOf(START + 3_600_000 * MS)).isEqualTo(2);
        assertThat(series.intervals(START + 3_600_000 * MS)).hasSize(3);
        assertThat(new IntervalSeries(START, 10_000 * MS, 35_000 * MS).intervals(START + 35_000 * MS))
                .extracting(IntervalSeries.Interval::lengthSeconds).containsExactly(10.0, 10.0, 10.0, 5.0);

        SoakVerdict verdict = SoakVerdict.of(series, intervals);
        assertThat(verdict.windowSec()).isEqualTo(10.0);
        assertThat(verdict.line()).contains("p99 last 10 s 100.0 ms vs first 10 s 100.0 ms");
        // A run of 25 s in 10 s intervals: its last window is the 5 s interval it ended with, and says so.
        IntervalSeries cut = new IntervalSeries(START, 10_000 * MS, 25_000 * MS);
        for (long at : new long[] {START + 1_000 * MS, START + 21_000 * MS}) {
            cut.record(at, ok(100));
        }
        SoakVerdict shorter = SoakVerdict.of(cut, cut.intervals(START + 25_000 * MS));
        assertThat(shorter.lastWindowSec()).isEqualTo(5.0);
        assertThat(shorter.line()).contains("p99 last 5 s 100.0 ms vs first 10 s 100.0 ms");
    }
}
