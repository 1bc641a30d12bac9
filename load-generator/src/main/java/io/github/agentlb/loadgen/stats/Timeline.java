package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Requests answered per agent, and failed, per time bucket of a run: what a timeline chart draws. A
 * request counts in the bucket of its completion from the origin (bucket 0 before it). The accessors
 * return copies.
 */
public record Timeline(double bucketSeconds, SortedMap<String, long[]> answered, long[] failed) {

    /**
     * Buckets a run's outcomes from {@code originNanos} (time 0, the outcomes' clock) into buckets of
     * width {@code bucket} (> 0, else IllegalArgumentException); {@code knownAgents} shown even when idle.
     */
    public static Timeline of(List<TimedOutcome> outcomes, long originNanos, Duration bucket,
                              Collection<String> knownAgents) {
        long width = Check.positive("bucket", bucket).toNanos();
        int buckets = 1 + outcomes.stream().mapToInt(o -> index(o, originNanos, width)).max().orElse(0);
        SortedMap<String, long[]> answered = new TreeMap<>();
        knownAgents.forEach(agent -> answered.put(agent, new long[buckets]));
        long[] failed = new long[buckets];
        for (TimedOutcome o : outcomes) {
            (o.outcome().isSuccess() ? answered.computeIfAbsent(o.outcome().agentId(), a -> new long[buckets]) : failed)
                    [index(o, originNanos, width)]++;
        }
        return new Timeline(width / 1e9, answered, failed);
    }

    private static int index(TimedOutcome o, long originNanos, long width) {
        return (int) Math.max(0, (o.completedAtNanos() - originNanos) / width);
    }

    /** The start of each bucket, s from the origin: up to the last completion, at least 1. */
    public double[] bucketStartsSeconds() {
        double[] x = new double[failed.length];
        Arrays.setAll(x, i -> i * bucketSeconds);
        return x;
    }

    /** Requests answered per bucket, by agent id ascending; copies. */
    public SortedMap<String, long[]> answeredPerAgent() {
        SortedMap<String, long[]> copy = new TreeMap<>();
        answered.forEach((agent, counts) -> copy.put(agent, counts.clone()));
        return copy;
    }

    /** Requests failed (error or timeout) per bucket; a copy. */
    @Override
    public long[] failed() {
        return failed.clone();
    }

    /** Requests per bucket divided by the bucket width: a rate per second, as the chart shows. */
    public static double[] perSecond(long[] counts, double bucketSeconds) {
        return Arrays.stream(counts).mapToDouble(c -> c / bucketSeconds).toArray();
    }
}
