package io.github.agentlb.loadgen.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.run.AgentUtilizationSampler;
import io.github.agentlb.loadgen.scenario.FailureReport;
import io.github.agentlb.loadgen.scenario.JobScenario;
import io.github.agentlb.loadgen.stats.AvnSummary;
import io.github.agentlb.loadgen.stats.LatencySummary;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.UtilizationSummary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes a run's results into an output directory:
 * <ul>
 *   <li>{@code report-<strategy>.json} (uniform scenario) or {@code report-<scenario>-<strategy>.json},
 *       the figures of one run (see {@link #toJson});
 *   <li>its {@link DistributionChart};
 *   <li>{@code report.md}: per scenario, its agents and the {@link ComparisonTable} of its runs,
 *       the adaptive virtual nodes' final state, and the charts.
 * </ul>
 * Latencies are in ms, shares, CV, stickiness and utilizations fractions (utilization above 1
 * means queueing), throughput in successful requests per second. Thread-safe.
 */
public final class ReportWriter {

    /** The comparison's file name. */
    public static final String MARKDOWN_FILE = "report.md";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path dir;

    /** A writer into {@code dir}, created on the first write if missing. */
    public ReportWriter(Path dir) {
        this.dir = dir;
    }

    /** The output directory. */
    public Path directory() {
        return dir;
    }

    /**
     * The JSON file name of a run: {@code report-<strategy>.json} in the uniform scenario,
     * {@code report-<scenario>-<strategy>.json} in another.
     */
    public static String jsonFileName(Scenario scenario, String strategy) {
        return "report-" + (scenario == Scenario.UNIFORM ? "" : scenario.label() + "-") + strategy + ".json";
    }

    /**
     * Writes the run's JSON report and distribution chart.
     *
     * @throws IOException if a file cannot be written
     */
    public void writeRun(RunReport report) throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve(jsonFileName(report.scenario(), report.strategy())).toFile(), toJson(report));
        DistributionChart.write(report, dir);
    }

    /**
     * Writes {@code report.md} comparing {@code reports}, replacing an earlier one.
     *
     * @param convergenceChart whether {@value PidConvergenceChart#PNG_FILE} was written, to link it
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public Path writeComparison(List<RunReport> reports, boolean convergenceChart) throws IOException {
        return writeComparison(reports, convergenceChart, List.of());
    }

    /**
     * Writes {@code report.md} comparing {@code reports}, then a section per fault scenario of
     * {@code failures} ({@link FailureReportWriter#markdown}), replacing an earlier one.
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public Path writeComparison(List<RunReport> reports, boolean convergenceChart, List<FailureReport> failures)
            throws IOException {
        return writeComparison(reports, convergenceChart, failures, "", List.of());
    }

    /**
     * Writes {@code report.md} as {@link #writeComparison(List, boolean, List)} with the hot-key
     * scenario's section ({@code hotKeySection}, {@code HotKeyReportWriter.markdown}; empty for
     * none) before the fault scenarios and {@code sections} (those of the {@link JobScenario}s,
     * markdown) after them.
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public Path writeComparison(List<RunReport> reports, boolean convergenceChart, List<FailureReport> failures,
                                String hotKeySection, List<String> sections) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(MARKDOWN_FILE);
        String faults = failures.isEmpty() ? "" : "\n" + FailureReportWriter.markdown(failures);
        String pacing = PaceReportWriter.markdown(reports);
        String hot = hotKeySection.isEmpty() ? "" : (reports.isEmpty() ? "" : "\n") + hotKeySection;
        String added = sections.stream().map(section -> "\n" + section).collect(Collectors.joining());
        Files.writeString(file, markdown(reports, convergenceChart) + (pacing.isEmpty() ? "" : "\n" + pacing) + hot
                + faults + added, StandardCharsets.UTF_8);
        return file;
    }

    /** The content of {@code report.md}: one section and table per scenario, in the order of {@code reports}. */
    public static String markdown(List<RunReport> reports, boolean convergenceChart) {
        StringBuilder sb = new StringBuilder("# Load test results\n\n");
        if (!reports.isEmpty()) {
            RunReport first = reports.get(0);
            LoadTestConfig c = first.config();
            sb.append(String.format(Locale.ROOT,
                    "%d requests over %d users%s, %d concurrent, seed %d, timeout %d ms, after %d warm-up requests "
                            + "(not counted); %s.%n%n",
                    c.requests(), c.users(), c.hotShare() == 0 ? "" : String.format(Locale.ROOT,
                            " and hot user %d sending a share %.2f of them", Workload.HOT_USER, c.hotShare()),
                    c.concurrency(), c.seed(), c.timeoutMs(), c.warmup(),
                    !first.embedded() ? "balancer at " + first.target()
                            : first.replicas() == 1 ? "agents and balancer embedded, started per run"
                            : "agents and " + first.replicas() + " balancer replicas embedded, started per run, "
                                    + "requests alternating across the replicas"));
        }
        Map<Scenario, List<RunReport>> byScenario = new LinkedHashMap<>();
        reports.forEach(r -> byScenario.computeIfAbsent(r.scenario(), s -> new ArrayList<>()).add(r));
        byScenario.forEach((scenario, runs) -> {
            sb.append("## Scenario ").append(scenario.label()).append("\n\n");
            if (runs.get(0).embedded()) {
                sb.append("Agents: ").append(scenario.description()).append(".\n\n");
            }
            sb.append(ComparisonTable.render(runs)).append('\n');
            for (RunReport r : runs) {
                if (r.avn() != null) {
                    AvnSummary avn = r.avn();
                    sb.append(String.format(Locale.ROOT, "`%s` virtual nodes at the end: %s (of %d); S = %.3f; "
                                    + "%d reallocations (warm-up included).%n%n", r.strategy(),
                            avn.virtualNodes().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                                    .collect(Collectors.joining(", ")),
                            avn.totalVirtualNodes(), avn.imbalanceIndex(), avn.reallocations()));
                }
            }
        });
        if (reports.isEmpty()) {
            return sb.toString();
        }
        sb.append("Counts are successful requests per agent; spread = max - min; CV = standard deviation / mean "
                + "of the counts; max/mean of the counts. ");
        if (reports.stream().anyMatch(r -> r.utilization() != null)) {
            // Only embedded runs sample their agents; a table without util columns needs no legend for them.
            sb.append("Utilization (`util`) is each agent's own (in service + queued) / capacity, sampled every "
                    + AgentUtilizationSampler.PERIOD.toMillis() + " ms during the measured run and "
                    + "averaged over time (above 1 = requests queued); util max/mean is the largest over the mean, "
                    + "the figure Robinhood reports. ");
        }
        sb.append("Stickiness = share of answered users whose answers all came from one agent; p95 over "
                + "successful requests, client-side; req/s = successful answers per second from the "
                + "first moment every worker had a request in flight to the last send "
                + "(neither the workers' start nor the drain of the last answers).\n\n");
        if (convergenceChart) {
            sb.append("![PID weights and utilization over time](").append(PidConvergenceChart.PNG_FILE).append(")\n\n");
        }
        for (RunReport r : reports) {
            sb.append("![requests per agent, ").append(r.strategy()).append(", ").append(r.scenario().label())
                    .append("](").append(DistributionChart.fileName(r.scenario(), r.strategy())).append(")\n");
        }
        return sb.toString();
    }

    /** The JSON document of {@code report-<strategy>.json}. */
    public static ObjectNode toJson(RunReport report) {
        RunStatistics s = report.statistics();
        LoadTestConfig c = report.config();
        ObjectNode root = JSON.createObjectNode();
        root.put("strategy", report.strategy());
        root.put("scenario", report.scenario().label());
        root.put("target", report.target());
        root.put("embedded", report.embedded());
        root.put("requests", s.requests());
        root.put("successes", s.successes());
        root.put("errors", s.errors());
        root.put("timeouts", s.timeouts());
        ObjectNode statuses = root.putObject("error_statuses");
        s.errorStatuses().forEach((status, n) -> statuses.put(String.valueOf(status), n));
        root.put("users", c.users());
        root.put("concurrency", c.concurrency());
        root.put("seed", c.seed());
        root.put("timeout_ms", c.timeoutMs());
        root.put("warmup_requests", c.warmup());
        root.put("hot_share", c.hotShare());
        root.put("replicas", report.replicas());
        UtilizationSummary u = report.utilization();
        ObjectNode agents = root.putObject("agents");
        s.agents().forEach((id, a) -> {
            ObjectNode agent = agents.putObject(id);
            agent.put("count", a.count());
            agent.put("share", a.share());
            if (u != null && u.byAgent().containsKey(id)) {
                agent.put("utilization", u.byAgent().get(id));
            }
            putLatency(agent, a.latency());
        });
        root.put("mean_per_agent", s.meanPerAgent());
        root.put("spread", s.spread());
        root.put("variance", s.variance());
        root.put("cv", s.coefficientOfVariation());
        root.put("max_over_mean", s.maxOverMean());
        root.put("stickiness", s.stickiness());
        root.put("sticky_users", s.stickyUsers());
        root.put("answered_users", s.answeredUsers());
        putLatency(root.putObject("latency"), s.latency());
        root.put("throughput_rps", s.throughputRps());
        root.put("duration_ms", s.durationMs());
        s.steadyWindow().ifPresent(w -> root.put("throughput_window_ms", w.lengthMs()));
        if (u != null) {
            root.put("utilization_max_over_mean", u.maxOverMean());
            root.put("utilization_samples", u.samples());
        }
        AvnSummary avn = report.avn();
        if (avn != null) {
            ObjectNode nodes = root.putObject("virtual_nodes");
            avn.virtualNodes().forEach(nodes::put);
            root.put("imbalance_index", avn.imbalanceIndex());
            root.put("reallocations", avn.reallocations());
        }
        PaceReportWriter.putJson(root, report.pace());
        return root;
    }

    private static void putLatency(ObjectNode node, LatencySummary l) {
        node.put("mean_ms", l.meanMs());
        node.put("p50_ms", l.p50Ms());
        node.put("p95_ms", l.p95Ms());
        node.put("p99_ms", l.p99Ms());
        node.put("max_ms", l.maxMs());
    }
}
