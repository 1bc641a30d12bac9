package io.github.agentlb.loadgen.stats;

import org.HdrHistogram.Histogram;

/**
 * Response-time summary of a set of requests, in ms.
 *
 * <p>Percentiles come from an HdrHistogram recording microseconds with 3 significant digits: a
 * reported percentile is the highest value equivalent to the true one at that precision, so it
 * is exact below 2.048 ms and within 0.1% above. The percentile is the nearest-rank one: the
 * smallest recorded value that at least {@code p%} of the values are at or below. The mean and
 * the maximum are exact (from the raw values, truncated to whole microseconds). Immutable.
 *
 * @param count  number of requests
 * @param meanMs arithmetic mean, ms; 0 when {@code count} is 0
 * @param p50Ms  median, ms; 0 when {@code count} is 0
 * @param p95Ms  95th percentile, ms; 0 when {@code count} is 0
 * @param p99Ms  99th percentile, ms; 0 when {@code count} is 0
 * @param maxMs  maximum, ms; 0 when {@code count} is 0
 */
public record LatencySummary(long count, double meanMs, double p50Ms, double p95Ms, double p99Ms, double maxMs) {

    /** Significant decimal digits kept by the histogram. */
    public static final int SIGNIFICANT_DIGITS = 3;

    /** An empty summary: no requests, all figures 0. */
    public static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0, 0);

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

        /** The summary of everything recorded so far. */
        public LatencySummary summary() {
            long count = histogram.getTotalCount();
            if (count == 0) {
                return EMPTY;
            }
            return new LatencySummary(count, (double) sumMicros / count / 1e3, ms(histogram, 50), ms(histogram, 95),
                    ms(histogram, 99), maxMicros / 1e3);
        }
    }

    /** The {@code percentile} of {@code micros} (a histogram of microseconds), ms; 0 when it is empty. */
    static double ms(Histogram micros, double percentile) {
        return micros.getTotalCount() == 0 ? 0 : micros.getValueAtPercentile(percentile) / 1e3;
    }
}
