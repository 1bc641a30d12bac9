package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.stats.LoadStatistics;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The time average of one agent's utilization from samples taken at known instants.
 *
 * <p>Each sample is held until the next one (a step function, as an instantaneous state sampled
 * by a clock is): average = {@code sum(u_k * (t_(k+1) - t_k)) / (t_last - t_first)} over
 * {@code k = 1..n-1}. Weighting by the interval rather than counting samples keeps the average
 * right when the sampling thread runs late on a busy machine. With fewer than two samples, or
 * all at one instant, it is the plain mean of the samples (0 with none).
 *
 * <p>Thread-safe: the sampler thread adds while another thread may read.
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
        public Summary {
            if (byAgent == null || byAgent.isEmpty()) {
                throw new IllegalArgumentException("byAgent must not be empty, was " + byAgent);
            }
            byAgent = Collections.unmodifiableSortedMap(new TreeMap<>(byAgent));
        }
    }

    public static Summary summary(Map<String, UtilizationSeries> series) {
        if (series == null || series.isEmpty()) {
            throw new IllegalArgumentException("series must not be empty, was " + series);
        }
        SortedMap<String, Double> averages = new TreeMap<>();
        series.forEach((agent, s) -> averages.put(agent, s.timeAverage()));
        return new Summary(averages, LoadStatistics.of(averages.values()).maxOverMean(),
                series.values().stream().mapToInt(UtilizationSeries::samples).min().orElse(0));
    }

    /**
     * Adds a sample.
     *
     * @param nanos       when it was taken, ns on a monotonic clock; not before the previous sample
     * @param utilization the agent's utilization then, fraction (may exceed 1 while it queues), finite and >= 0
     * @throws IllegalArgumentException if the sample is out of order or the value is not finite and >= 0
     */
    public synchronized void add(long nanos, double utilization) {
        Check.finiteNonNegative("utilization", utilization);
        if (samples > 0 && nanos < lastNanos) {
            throw new IllegalArgumentException("nanos must not go back, was " + nanos + " after " + lastNanos);
        }
        if (samples == 0) {
            firstNanos = nanos;
        } else {
            weightedSum += lastValue * (nanos - lastNanos);
        }
        samples++;
        sum += utilization;
        lastNanos = nanos;
        lastValue = utilization;
    }

    /** Samples added. */
    public synchronized int samples() {
        return samples;
    }

    /** The time-averaged utilization, fraction; see the class comment. */
    public synchronized double timeAverage() {
        long span = lastNanos - firstNanos;
        return samples < 2 || span == 0 ? (samples == 0 ? 0 : sum / samples) : weightedSum / span;
    }
}
