package io.github.agentlb.loadgen.stats;

import org.HdrHistogram.Histogram;

/**
 * Response-time summary of {@code count} requests: mean, p50, p95, p99 and max, ms, each NaN (not
 * observed) when {@code count} is 0. Percentiles are nearest-rank, from an HdrHistogram of microseconds with 3
 * significant digits (the highest value equivalent to the true one: exact below 2.048 ms, within
 * 0.1% above), never above the max; mean and max are exact (whole microseconds). Immutable.
 */
public record LatencySummary(long count, double meanMs, double p50Ms, double p95Ms, double p99Ms, double maxMs) {

    /** Significant decimal digits kept by the histogram. */
    public static final int SIGNIFICANT_DIGITS = 3;

    /** An empty summary: no requests, all figures NaN. */
    public static final LatencySummary EMPTY = new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN);

    /**
     * Collects latencies and then summarizes them. Not thread-safe: one recorder per thread, or
     * record from a single thread as {@link RunStatistics} does.
     */
    public static final class Recorder {
        private final Histogram histogram = new Histogram(SIGNIFICANT_DIGITS);
        private long sumMicros;
        private long maxMicros;

        /** Records one latency, ns (truncated to whole microseconds). */
        public void record(long latencyNanos) {
            long micros = latencyNanos / 1_000;
            histogram.recordValue(micros);
            sumMicros += micros;
            maxMicros = Math.max(maxMicros, micros);
        }

        public LatencySummary summary() {
            long count = histogram.getTotalCount();
            return count == 0 ? EMPTY : new LatencySummary(count, (double) sumMicros / count / 1e3,
                    ms(histogram, 50, maxMicros), ms(histogram, 95, maxMicros), ms(histogram, 99, maxMicros),
                    maxMicros / 1e3);
        }
    }

    /**
     * The {@code percentile} of {@code micros} (a histogram of microseconds), ms, at most {@code maxMicros},
     * the exact largest value recorded (the histogram's highest equivalent value can pass it: 150.143 ms for
     * a largest 150.061 ms); 0 when it is empty.
     */
    static double ms(Histogram micros, double percentile, long maxMicros) {
        return micros.getTotalCount() == 0 ? 0 : Math.min(micros.getValueAtPercentile(percentile), maxMicros) / 1e3;
    }
}
