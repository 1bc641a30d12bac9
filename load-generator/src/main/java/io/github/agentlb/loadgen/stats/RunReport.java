package io.github.agentlb.loadgen.stats;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import java.util.Objects;

/**
 * One strategy's run, ready to be written: what was run (strategy label, scenario, target,
 * configuration) and what was measured.
 *
 * @param strategy    the strategy label, e.g. {@code rr}; with the scenario, names the output files
 * @param scenario    the agent scenario the run used
 * @param target      the balancer's base URL; with replicas, their base URLs joined by {@code ", "}
 * @param embedded    whether the balancer and agents were started in-process for this run
 * @param config      the load's shape
 * @param statistics  the measured figures
 * @param utilization the agents' time-averaged utilization during the measured run; {@code null}
 *                    when not measured (agents not embedded)
 * @param avn         the adaptive virtual node balancer's final state; {@code null} for other
 *                    strategies or an external balancer
 * @param pace        how the run was paced and the generator's self-check; {@code null} when not known
 */
public record RunReport(String strategy, Scenario scenario, String target, boolean embedded,
                        LoadTestConfig config, RunStatistics statistics, UtilizationSummary utilization,
                        AvnSummary avn, PaceReport pace) {

    /** @throws IllegalArgumentException if {@code strategy} is not a safe file-name label */
    public RunReport {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(statistics, "statistics");
        requireLabel(strategy);
    }

    /** A run without a pace report. */
    public RunReport(String strategy, Scenario scenario, String target, boolean embedded, LoadTestConfig config,
                     RunStatistics statistics, UtilizationSummary utilization, AvnSummary avn) {
        this(strategy, scenario, target, embedded, config, statistics, utilization, avn, null);
    }

    /** A run without utilization or balancer state: an external balancer's. */
    public RunReport(String strategy, Scenario scenario, String target, boolean embedded,
                     LoadTestConfig config, RunStatistics statistics) {
        this(strategy, scenario, target, embedded, config, statistics, null, null, null);
    }

    /**
     * Checks that {@code label} can name a strategy and its files: letters, digits, {@code _} and
     * {@code -}, 1 to 40 characters.
     *
     * @throws IllegalArgumentException if it cannot
     */
    public static String requireLabel(String label) {
        if (label == null || !label.matches("[A-Za-z0-9_-]{1,40}")) {
            throw new IllegalArgumentException(
                    "strategy must be 1-40 letters, digits, '_' or '-', was '" + label + "'");
        }
        return label;
    }

    /** This report with {@code pace}. */
    public RunReport withPace(PaceReport pace) {
        return new RunReport(strategy, scenario, target, embedded, config, statistics, utilization, avn, pace);
    }

    /** The balancer replicas the requests alternated across: the base URLs in {@link #target}. */
    public int replicas() {
        return target.split(", ").length;
    }

    /** Whether every request was answered: no errors and no timeouts. */
    public boolean clean() {
        return statistics.errors() == 0 && statistics.timeouts() == 0;
    }
}
