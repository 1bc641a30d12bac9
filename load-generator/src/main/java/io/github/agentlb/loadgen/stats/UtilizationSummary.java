package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.stats.LoadStatistics;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The agents' time-averaged utilization over a measured run, as the agents themselves count it
 * ((in service + queued) / capacity, sampled from each embedded agent), and how even it was.
 *
 * @param byAgent     agent id to its time-averaged utilization, fraction (above 1 means it queued
 *                    on average), sorted by id; unmodifiable
 * @param maxOverMean the largest of them over their mean, the figure Robinhood reports
 *                    (1 = perfectly even; 0 when all are 0), from {@link LoadStatistics}
 * @param samples     fewest samples any agent had
 */
public record UtilizationSummary(SortedMap<String, Double> byAgent, double maxOverMean, int samples) {

    /** @throws IllegalArgumentException if {@code byAgent} is empty */
    public UtilizationSummary {
        if (byAgent == null || byAgent.isEmpty()) {
            throw new IllegalArgumentException("byAgent must not be empty, was " + byAgent);
        }
        byAgent = Collections.unmodifiableSortedMap(new TreeMap<>(byAgent));
    }

    /**
     * The summary of one series per agent.
     *
     * @throws IllegalArgumentException if {@code series} is empty
     */
    public static UtilizationSummary of(Map<String, UtilizationSeries> series) {
        if (series == null || series.isEmpty()) {
            throw new IllegalArgumentException("series must not be empty, was " + series);
        }
        SortedMap<String, Double> averages = new TreeMap<>();
        int fewest = Integer.MAX_VALUE;
        for (Map.Entry<String, UtilizationSeries> e : series.entrySet()) {
            averages.put(e.getKey(), e.getValue().timeAverage());
            fewest = Math.min(fewest, e.getValue().samples());
        }
        return new UtilizationSummary(averages, LoadStatistics.of(averages.values()).maxOverMean(), fewest);
    }
}
