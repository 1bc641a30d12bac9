package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * A time-bound run's figures per interval: a request counts in the interval of its completion,
 * {@code floor((completed - start) / interval)} (0 before the start), so in exactly one. A run of
 * {@code length} has {@code ceil(length / interval)} intervals; the last, cut at the run's end,
 * absorbs the completions after it. Per interval: requests, successes, errors, timeouts, p50/p99
 * of the successes (as {@link LatencySummary}) and the last JVM sample taken in it. Times come from
 * the caller. Thread-safe: every method synchronizes.
 */
public final class IntervalSeries {

    /**
     * One interval's figures: start and length, s (the last one's cut at the run's end); requests
     * completed in it, of which successes, errors and timeouts; p50 and p99 of its successes, ms (NaN
     * without any); heap used after GC when sampled, MB (NaN when not sampled), and live threads (-1
     * when not sampled).
     */
    public record Interval(double startSeconds, double lengthSeconds, long requests, long successes, long errors,
                           long timeouts, double p50Ms, double p99Ms, double heapAfterGcMb, int liveThreads) {

        /** Successful requests per second of the interval. */
        public double throughputRps() {
            return lengthSeconds <= 0 ? 0 : successes / lengthSeconds;
        }

        /** Errors and timeouts. */
        public long failures() {
            return errors + timeouts;
        }
    }

    private static final class Bucket {
        final Histogram latencyMicros = new Histogram(LatencySummary.SIGNIFICANT_DIGITS);
        long errors;
        long timeouts;
        double heapAfterGcMb = Double.NaN;
        int liveThreads = -1;
    }

    private final long startNanos;
    private final long intervalNanos;
    private final int count;
    private final List<Bucket> buckets = new ArrayList<>();

    /** A series of a run lasting {@code lengthNanos}, ns; {@code intervalNanos} and it >= 1, else IllegalArgumentException. */
    public IntervalSeries(long startNanos, long intervalNanos, long lengthNanos) {
        Check.atLeast("intervalNanos", intervalNanos, 1);
        Check.atLeast("lengthNanos", lengthNanos, 1);
        this.startNanos = startNanos;
        this.intervalNanos = intervalNanos;
        this.count = (int) Math.min(Integer.MAX_VALUE, lengthNanos / intervalNanos + (lengthNanos % intervalNanos == 0 ? 0 : 1));
    }

    /** The interval of a time: {@code floor((nanos - start) / interval)}, 0 before the start, at most the last. */
    public int indexOf(long nanos) {
        return (int) Math.min(count - 1L, Math.max(0, Math.floorDiv(nanos - startNanos, intervalNanos)));
    }

    /** Counts {@code outcome}, completed at {@code completedAtNanos}, in its interval. */
    public synchronized void record(long completedAtNanos, RequestOutcome outcome) {
        Bucket b = bucket(indexOf(completedAtNanos));
        switch (outcome.kind()) {
            case SUCCESS -> b.latencyMicros.recordValue(outcome.latencyNanos() / 1_000);
            case ERROR -> b.errors++;
            case TIMEOUT -> b.timeouts++;
        }
    }

    /** Keeps a JVM sample taken at {@code nowNanos} as its interval's latest. */
    public synchronized void sampleJvm(long nowNanos, long heapAfterGcBytes, int liveThreads) {
        Bucket b = bucket(indexOf(nowNanos));
        b.heapAfterGcMb = heapAfterGcBytes < 0 ? Double.NaN : heapAfterGcBytes / (1024.0 * 1024.0);
        b.liveThreads = liveThreads;
    }

    /**
     * The intervals up to the one holding the instant before {@code endNanos} (or the last with a
     * request or sample, if later), the last one cut at {@code endNanos} (the run's end: all of them).
     */
    public synchronized List<Interval> intervals(long endNanos) {
        int last = Math.max(buckets.size() - 1, indexOf(endNanos - 1));
        List<Interval> list = new ArrayList<>(last + 1);
        for (int i = 0; i <= last; i++) {
            Bucket b = bucket(i);
            long from = startNanos + i * intervalNanos;
            long to = Math.min(from + intervalNanos, Math.max(endNanos, from));
            long successes = b.latencyMicros.getTotalCount();
            list.add(new Interval(i * intervalNanos / 1e9, i == last ? (to - from) / 1e9 : intervalNanos / 1e9,
                    successes + b.errors + b.timeouts, successes, b.errors, b.timeouts,
                    latencyMs(b.latencyMicros, 50), latencyMs(b.latencyMicros, 99), b.heapAfterGcMb,
                    b.liveThreads));
        }
        return list;
    }

    /**
     * The 99th percentile latency of the successes of intervals {@code from} (inclusive) to {@code to}
     * (exclusive), ms; NaN without any.
     */
    public synchronized double p99Ms(int from, int to) {
        Histogram merged = new Histogram(LatencySummary.SIGNIFICANT_DIGITS);
        for (int i = Math.max(0, from); i < Math.min(to, buckets.size()); i++) {
            merged.add(buckets.get(i).latencyMicros);
        }
        return latencyMs(merged, 99);
    }

    /** The percentile of {@code micros}, ms; NaN when nothing was answered (no latency, not 0 ms). */
    private static double latencyMs(Histogram micros, double percentile) {
        return micros.getTotalCount() == 0 ? Double.NaN : LatencySummary.ms(micros, percentile, Long.MAX_VALUE);
    }

    /** The interval length, ns. */
    public long intervalNanos() {
        return intervalNanos;
    }

    private Bucket bucket(int index) {
        while (buckets.size() <= index) {
            buckets.add(new Bucket());
        }
        return buckets.get(index);
    }
}
