package io.github.agentlb.loadgen.stats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Samples of a PID-weighted balancer's state over time: each agent's weight (relative, mean 1.0)
 * and the utilization its controller used at the last control step (NaN while it had no signal).
 * The data of the PID convergence chart ({@code PlainScenario.pidChart}) and {@code pid_convergence.csv}.
 *
 * <p>Thread-safe: a sampler thread records while another may read; readers get copies.
 */
public final class PidTrace {

    private final String scenario;
    private final List<Double> seconds = new ArrayList<>();
    private final SortedMap<String, List<Double>> weights = new TreeMap<>();
    private final SortedMap<String, List<Double>> utilizations = new TreeMap<>();
    private double warmupEndSeconds = Double.NaN;

    /** @param scenario the label of the run's scenario, for the chart's title */
    public PidTrace(String scenario) {
        this.scenario = scenario;
    }

    public String scenario() {
        return scenario;
    }

    /**
     * Records the agents' weights and utilizations (fraction, NaN for none) at {@code atSeconds} since
     * the trace began (finite, not before the previous sample, else IllegalArgumentException). An agent
     * first seen now gets NaN for the earlier samples, one missing now gets NaN for this one.
     */
    public synchronized void record(double atSeconds, Map<String, Double> weightByAgent,
                                    Map<String, Double> utilizationByAgent) {
        if (!Double.isFinite(atSeconds) || (!seconds.isEmpty() && atSeconds < seconds.get(seconds.size() - 1))) {
            throw new IllegalArgumentException("atSeconds must be finite and not go back, was " + atSeconds);
        }
        seconds.add(atSeconds);
        append(weights, weightByAgent);
        append(utilizations, utilizationByAgent);
    }

    private void append(SortedMap<String, List<Double>> series, Map<String, Double> values) {
        int n = seconds.size();
        for (String agent : values.keySet()) {
            series.computeIfAbsent(agent, a -> new ArrayList<>(Collections.nCopies(n - 1, Double.NaN)));
        }
        series.forEach((agent, list) -> list.add(Objects.requireNonNullElse(values.get(agent), Double.NaN)));
    }

    /** Marks the end of the warm-up, s since the trace began. */
    public synchronized void markWarmupEnd(double atSeconds) {
        this.warmupEndSeconds = atSeconds;
    }

    /** NaN if not marked. */
    public synchronized double warmupEndSeconds() {
        return warmupEndSeconds;
    }

    /** Sample times, s; a copy. */
    public synchronized List<Double> seconds() {
        return List.copyOf(seconds);
    }

    /** Agent id to its weight at each sample time, sorted by id; copies. */
    public synchronized SortedMap<String, List<Double>> weights() {
        return copy(weights);
    }

    /** Agent id to its utilization at each sample time (NaN for none), sorted by id; copies. */
    public synchronized SortedMap<String, List<Double>> utilizations() {
        return copy(utilizations);
    }

    /**
     * The samples as CSV: a header {@code t_s,weight_<agent>...,utilization_<agent>...}, then one
     * line per sample, values with 4 decimals, an empty field for NaN. Lines end with {@code \n}.
     */
    public synchronized String toCsv() {
        StringBuilder sb = new StringBuilder("t_s");
        weights.keySet().forEach(a -> sb.append(",weight_").append(a));
        utilizations.keySet().forEach(a -> sb.append(",utilization_").append(a));
        sb.append('\n');
        for (int i = 0; i < seconds.size(); i++) {
            int k = i;
            sb.append(String.format(Locale.ROOT, "%.3f", seconds.get(i)));
            Stream.concat(weights.values().stream(), utilizations.values().stream())
                    .forEach(series -> sb.append(',').append(csvValue(series.get(k))));
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String csvValue(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.4f", v) : "";
    }

    private static SortedMap<String, List<Double>> copy(SortedMap<String, List<Double>> series) {
        SortedMap<String, List<Double>> copy = new TreeMap<>();
        series.forEach((agent, values) -> copy.put(agent, Collections.unmodifiableList(new ArrayList<>(values))));
        return Collections.unmodifiableSortedMap(copy);
    }
}
