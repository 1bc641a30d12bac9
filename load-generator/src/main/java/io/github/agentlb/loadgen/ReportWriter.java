package io.github.agentlb.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Writes a run's results into an output directory:
 * <ul>
 *   <li>{@code report-<strategy>.json}, the figures of one run (see {@link #toJson});
 *   <li>{@code distribution_<strategy>.png}, its {@link DistributionChart};
 *   <li>{@code report.md}, the {@link ComparisonTable} of the runs of one invocation, with the charts.
 * </ul>
 * Latencies are in ms, shares, CV and stickiness fractions 0..1, throughput in successful
 * requests per second. Thread-safe.
 */
public final class ReportWriter {

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

    /** The JSON file name for {@code strategy}: {@code report-<strategy>.json}. */
    public static String jsonFileName(String strategy) {
        return "report-" + strategy + ".json";
    }

    /**
     * Writes {@code report-<strategy>.json} and {@code distribution_<strategy>.png}.
     *
     * @throws IOException if a file cannot be written
     */
    public void writeRun(RunReport report) throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve(jsonFileName(report.strategy())).toFile(), toJson(report));
        DistributionChart.write(report, dir);
    }

    /**
     * Writes {@code report.md} comparing {@code reports}, replacing an earlier one.
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public Path writeComparison(List<RunReport> reports) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve("report.md");
        Files.writeString(file, markdown(reports), StandardCharsets.UTF_8);
        return file;
    }

    /** The content of {@code report.md}. */
    public static String markdown(List<RunReport> reports) {
        StringBuilder sb = new StringBuilder("# Load test results\n\n");
        if (!reports.isEmpty()) {
            RunReport first = reports.get(0);
            LoadTestConfig c = first.config();
            sb.append(String.format(Locale.ROOT,
                    "%d requests over %d users, %d concurrent, seed %d, timeout %d ms; scenario %s; %s.%n%n",
                    c.requests(), c.users(), c.concurrency(), c.seed(), c.timeoutMs(), first.scenario().label(),
                    first.embedded() ? "agents and balancer embedded, started per strategy"
                            : "balancer at " + first.target()));
        }
        sb.append(ComparisonTable.render(reports)).append('\n');
        sb.append("Counts are successful requests per agent; spread = max - min; CV = standard deviation / mean "
                + "of the counts; stickiness = share of answered users whose answers all came from one agent; "
                + "p95 over successful requests, client-side; req/s = successful requests per second.\n\n");
        for (RunReport r : reports) {
            sb.append("![requests per agent, ").append(r.strategy()).append("](")
                    .append(DistributionChart.fileName(r.strategy())).append(")\n");
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
        ObjectNode agents = root.putObject("agents");
        s.agents().forEach((id, a) -> {
            ObjectNode agent = agents.putObject(id);
            agent.put("count", a.count());
            agent.put("share", a.share());
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
