package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.stats.LoadStatistics;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The time average of one agent's utilization from samples taken at known instants, each held
 * until the next (a step function): {@code sum(u_k * (t_(k+1) - t_k)) / (t_last - t_first)} over
 * {@code k = 1..n-1}, right even when the sampler runs late; with fewer than two samples, or all at
 * one instant, their plain mean (0 with none). Thread-safe: the sampler adds while others read.
 */
public final class UtilizationSeries {

    private int samples;
    private double sum;
    private long firstNanos;
    private long lastNanos;
    private double lastValue;
    private double weightedSum;

    /**
     * The agents' time-averaged utilization over a run ((in service + queued) / capacity). Immutable.
     *
     * @param byAgent     agent id to its time-averaged utilization (above 1: it queued on average)
     * @param maxOverMean the largest over their mean (0 when all are 0): the figure Robinhood reports
     * @param samples     the fewest samples any agent had
     */
    public record Summary(SortedMap<String, Double> byAgent, double maxOverMean, int samples) {
    }

    /** The summary of every agent's series, by agent id; IllegalArgumentException when none. */
    public static Summary summary(Map<String, UtilizationSeries> series) {
        Check.notEmpty("series", series.keySet());
        SortedMap<String, Double> averages = new TreeMap<>();
        series.forEach((agent, s) -> averages.put(agent, s.timeAverage()));
        return new Summary(Collections.unmodifiableSortedMap(averages),
                LoadStatistics.of(averages.values()).maxOverMean(),
                series.values().stream().mapToInt(UtilizationSeries::samples).min().orElse(0));
    }

    /**
     * Adds a sample taken at {@code nanos} (monotonic, not before the previous one) of
     * {@code utilization} (fraction, finite, >= 0; above 1 while it queues); else IllegalArgumentException.
     */
    public synchronized void add(long nanos, double utilization) {
        Check.finiteNonNegative("utilization", utilization);
        if (samples > 0 && nanos < lastNanos) {
            throw new IllegalArgumentException("nanos must not go back, was " + nanos + " after " + lastNanos);
        }
        firstNanos = samples == 0 ? nanos : firstNanos;
        weightedSum += samples == 0 ? 0 : lastValue * (nanos - lastNanos);
        samples++;
        sum += utilization;
        lastNanos = nanos;
        lastValue = utilization;
    }

    public synchronized int samples() {
        return samples;
    }

    /** The time-averaged utilization, fraction; see the class comment. */
    public synchronized double timeAverage() {
        long span = lastNanos - firstNanos;
        return samples < 2 || span == 0 ? (samples == 0 ? 0 : sum / samples) : weightedSum / span;
    }
}
