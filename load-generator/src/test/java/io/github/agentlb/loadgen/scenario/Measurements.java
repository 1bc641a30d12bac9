package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.report.JsonReport;
import io.github.agentlb.loadgen.run.BalancerLog;
import io.github.agentlb.loadgen.run.Changes;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Measured runs made by hand, for a scenario's result to be checked against figures worked out by hand,
 * and the top-level shape every scenario's JSON report shares.
 */
final class Measurements {

    /** The top-level keys of every {@code report-<scenario>-<variant>.json}, in order (load-generator/README.md). */
    static final List<String> REPORT_KEYS = List.of("scenario", "variant", "strategy", "target", "embedded", "load",
            "requests", "successes", "errors", "timeouts", "error_statuses", "client_errors", "agents", "mean_per_agent",
            "spread", "variance", "cv", "max_over_mean", "stickiness", "sticky_users", "answered_users", "latency",
            "throughput_rps", "duration_ms", "throughput_window_ms", "phases", "figures", "checks", "passed",
            "failures", "timeline", "pace");

    private Measurements() {
    }

    /**
     * A run of {@code strategy} whose requests got {@code outcomes}, whose changes (labelled
     * {@code labels}) opened the phases after the first of {@code phases} as {@code made} says, and
     * whose balancer logged {@code log}; the measured load began at 0.
     */
    static ClusterRun.Measured measured(String scenario, String strategy, LoadTestConfig load, List<String> agents,
                                        List<TimedOutcome> outcomes, List<String> phases, List<String> labels,
                                        List<Changes.Made> made, BalancerLog log) {
        List<Changes.Change> changes = new ArrayList<>();
        for (int i = 0; i < labels.size(); i++) {
            changes.add(new Changes.Change(labels.get(i), 1, false, () -> 0));
        }
        long end = outcomes.stream().mapToLong(TimedOutcome::completedAtNanos).max().orElse(0);
        long start = outcomes.stream().mapToLong(TimedOutcome::sentAtNanos).min().orElse(0);
        LoadRunner.Result run = new LoadRunner.Result(outcomes, RunStatistics.of(outcomes.stream()
                .map(TimedOutcome::outcome).toList(), agents, end - start), 1, null);
        return new ClusterRun.Measured(scenario, Variant.of(strategy, strategy, b -> { }, 1), load, agents,
                "http://127.0.0.1:1", run, changes, made, phases, log, 0);
    }

    /** Checks that {@code r}'s JSON report has exactly {@link #REPORT_KEYS} at its top level, whatever its scenario. */
    static void assertReportShape(Result r) {
        assertThat(json(r).fieldNames()).toIterable().as("top level of report-%s-%s.json", r.scenario(),
                r.variant()).containsExactlyElementsOf(REPORT_KEYS);
    }

    /** The report {@link JsonReport} writes for {@code r}, read back. */
    static JsonNode json(Result r) {
        try {
            Path dir = Files.createTempDirectory("loadgen-json");
            Path file = JsonReport.write(r, dir);
            JsonNode json = new ObjectMapper().readTree(file.toFile());
            Files.delete(file);
            Files.delete(dir);
            return json;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A set-up of the defaults but {@code strategies}, {@code load} and {@code stdout}, for one scenario's run. */
    static Setup setup(AgentConfig template, List<String> strategies, LoadTestConfig load, PrintStream stdout) {
        return new Setup(template, strategies, load, load, load, Pacing.CLOSED_COUNTED, 1, stdout);
    }

    /** The phase of {@code r} named {@code name}. */
    static Result.Phase phase(Result r, String name) {
        return r.phases().stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no phase " + name + " in " + r.phases()));
    }
}
