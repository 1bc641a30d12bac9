package io.github.agentlb.loadgen.stats;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * A time-bound run's figures per interval: each request counts in the interval of its
 * completion time (answer or failure), {@code floor((completed - start) / interval)}, so every
 * request is in exactly one interval; a completion before the start counts in interval 0. With a
 * run length, the run has {@code ceil(length / interval)} intervals and the last absorbs the tail:
 * requests completing after the run's end (sent before it, answered late) count in the last
 * interval, whose length stays cut at the run's end, so no sliver interval appears after it. Per
 * interval: requests, successes, errors, timeouts, p50/p99 of successful requests (HdrHistogram,
 * microseconds, 3 significant digits, as {@link LatencySummary}), and the last JVM sample taken in
 * it (heap used after GC, live threads). Times come from the caller (no clock is read here).
 * Thread-safe: every method synchronizes.
 */
public final class IntervalSeries {

    /**
     * One interval's figures.
     *
     * @param index         0-based
     * @param startSeconds  start, s after the run's start
     * @param lengthSeconds length, s: the interval's, or less for the last, cut by the run's end
     * @param requests      requests completed in it
     * @param successes     of which answered by an agent
     * @param errors        of which errors
     * @param timeouts      of which timeouts
     * @param p50Ms         median latency of its successes, ms; 0 without any
     * @param p99Ms         99th percentile latency of its successes, ms; 0 without any
     * @param heapAfterGcMb heap used after the last GC when it was sampled, MB; NaN when not sampled
     * @param liveThreads   live threads of the JVM when sampled; -1 when not sampled
     */
    public record Interval(int index, double startSeconds, double lengthSeconds, long requests, long successes,
                           long errors, long timeouts, double p50Ms, double p99Ms, double heapAfterGcMb,
                           int liveThreads) {

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
        long requests;
        long errors;
        long timeouts;
        double heapAfterGcMb = Double.NaN;
        int liveThreads = -1;
    }

    private final long startNanos;
    private final long intervalNanos;
    /** Intervals of the run, or {@link Integer#MAX_VALUE} without a run length. */
    private final int count;
    private final List<Bucket> buckets = new ArrayList<>();

    /**
     * A series of a run lasting {@code lengthNanos}: {@code ceil(length / interval)} intervals, the
     * last absorbing completions after the run's end.
     *
     * @param lengthNanos the run's length, ns, > 0
     * @throws IllegalArgumentException if {@code intervalNanos <= 0} or {@code lengthNanos <= 0}
     */
    public IntervalSeries(long startNanos, long intervalNanos, long lengthNanos) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("intervalNanos must be > 0, was " + intervalNanos);
        }
        if (lengthNanos <= 0) {
            throw new IllegalArgumentException("lengthNanos must be > 0, was " + lengthNanos);
        }
        this.startNanos = startNanos;
        this.intervalNanos = intervalNanos;
        long n = lengthNanos / intervalNanos + (lengthNanos % intervalNanos == 0 ? 0 : 1);
        this.count = (int) Math.min(Integer.MAX_VALUE, n);
    }

    /**
     * The interval of a time: {@code floor((nanos - start) / interval)}, 0 before the start, and
     * with a run length at most the last interval.
     */
    public int indexOf(long nanos) {
        return (int) Math.min(count - 1L, Math.max(0, Math.floorDiv(nanos - startNanos, intervalNanos)));
    }

    /** Whether the series has a run length, hence a fixed number of intervals. */
    public boolean bounded() {
        return count != Integer.MAX_VALUE;
    }

    /** Counts {@code outcome}, completed at {@code completedAtNanos}, in its interval. */
    public synchronized void record(long completedAtNanos, RequestOutcome outcome) {
        Bucket b = bucket(indexOf(completedAtNanos));
        b.requests++;
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
     * The intervals from 0 to the one holding the instant before {@code endNanos} (or the last with
     * a request or sample, if later); the last one's length is cut at {@code endNanos}. With a run
     * length, pass the run's end to get all its intervals.
     */
    public synchronized List<Interval> intervals(long endNanos) {
        int last = Math.max(buckets.size() - 1, indexOf(endNanos - 1));
        List<Interval> list = new ArrayList<>(last + 1);
        for (int i = 0; i <= last; i++) {
            Bucket b = bucket(i);
            long from = startNanos + i * intervalNanos;
            long to = Math.min(from + intervalNanos, Math.max(endNanos, from));
            long successes = b.latencyMicros.getTotalCount();
            list.add(new Interval(i, i * intervalNanos / 1e9, i == last ? (to - from) / 1e9 : intervalNanos / 1e9,
                    b.requests, successes, b.errors, b.timeouts, LatencySummary.ms(b.latencyMicros, 50),
                    LatencySummary.ms(b.latencyMicros, 99), b.heapAfterGcMb, b.liveThreads));
        }
        return list;
    }

    /** The 99th percentile latency of the successes of intervals {@code from} (inclusive) to {@code to} (exclusive), ms. */
    public synchronized double p99Ms(int from, int to) {
        Histogram merged = new Histogram(LatencySummary.SIGNIFICANT_DIGITS);
        for (int i = Math.max(0, from); i < Math.min(to, buckets.size()); i++) {
            merged.add(buckets.get(i).latencyMicros);
        }
        return LatencySummary.ms(merged, 99);
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
