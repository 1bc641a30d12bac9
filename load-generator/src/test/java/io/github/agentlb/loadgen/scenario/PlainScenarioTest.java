package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.loadgen.config.AgentSet;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.TestConfigs;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.report.Charts;
import io.github.agentlb.loadgen.report.JsonReport;
import io.github.agentlb.loadgen.report.MarkdownReport;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.PidTrace;
import io.github.agentlb.loadgen.stats.PidTraceTest;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.RunStatisticsTest;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;

/** The uniform and heterogeneous runs' results as the reports write them: JSON, tables, charts. */
class PlainScenarioTest {

    private static final PlainScenario UNIFORM = new PlainScenario(AgentSet.UNIFORM);
    private static final PlainScenario HETEROGENEOUS = new PlainScenario(AgentSet.HETEROGENEOUS);

    @TempDir
    Path dir;

    private static Result report(PlainScenario scenario, String strategy, RunStatistics stats, LoadTestConfig config,
                                 Map<String, Object> figures, List<Chart> charts) {
        LoadRunner.Result run = new LoadRunner.Result(List.of(), stats, 1,
                PaceReport.counted(Pacing.CLOSED_COUNTED, new PacingCheck().result(Double.NaN, 2, Double.NaN)));
        return scenario.result(Variant.of(strategy, strategy, b -> { }, 1), "http://127.0.0.1:1", true, config, run,
                figures, charts, List.of());
    }

    private static Result report(String strategy, RunStatistics stats) {
        return report(UNIFORM, strategy, stats, TestConfigs.of(9, 5), new LinkedHashMap<>(),
                List.of());
    }

    /** A run that sampled its agents' utilization, and for {@code avn} ended with these virtual nodes. */
    private static Result measured(PlainScenario scenario, String strategy, RunStatistics stats, boolean avn,
                                   List<Chart> charts) {
        Map<String, Object> figures = Result.map("utilization",
                new TreeMap<>(Map.of("A1", 0.5, "A2", 0.5, "A3", 1.25, "A4", 0.75)),
                "utilization_max_over_mean", 1.25 / 0.75, "utilization_samples", 30);
        if (avn) {
            figures.putAll(Result.map("virtual_nodes", new TreeMap<>(Map.of("A1", 60, "A2", 55, "A3", 35)),
                    "imbalance_index", 0.0625, "reallocations", 7L));
        }
        return report(scenario, strategy, stats, new LoadTestConfig(9, 5, 10, 42, 5_000, 500, 4, 0), figures,
                charts);
    }

    private void write(Result r) throws Exception {
        JsonReport.write(r, dir);
        for (Chart c : r.charts()) {
            Charts.write(c, dir);
        }
    }

    @Test
    void jsonHasTheFiguresUnderTheDocumentedKeys() throws Exception {
        write(report("rr", RunStatisticsTest.handWorked()));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report-uniform-rr.json").toFile());
        assertThat(json.get("strategy").asText()).isEqualTo("rr");
        assertThat(json.get("scenario").asText()).isEqualTo("uniform");
        assertThat(json.get("variant").asText()).isEqualTo("rr");
        assertThat(json.get("requests").asInt()).isEqualTo(9);
        assertThat(json.get("successes").asInt()).isEqualTo(6);
        assertThat(json.get("errors").asInt()).isEqualTo(2);
        assertThat(json.get("timeouts").asInt()).isEqualTo(1);
        assertThat(json.get("error_statuses").get("503").asInt()).isEqualTo(1);
        assertThat(json.get("spread").asInt()).isEqualTo(3);
        assertThat(json.get("variance").asDouble()).isEqualTo(1.25);
        assertThat(json.get("cv").asDouble()).isCloseTo(0.745356, offset(1e-6));
        assertThat(json.get("max_over_mean").asDouble()).isEqualTo(2.0);
        assertThat(json.get("stickiness").asDouble()).isEqualTo(0.75);
        assertThat(json.get("throughput_rps").asDouble()).isEqualTo(3.0);
        assertThat(json.get("duration_ms").asDouble()).isEqualTo(2000.0);
        // A closed loop for a count has no rate and no intervals: null, as every figure not observed.
        assertThat(json.at("/pace/open_loop").asBoolean()).isFalse();
        assertThat(json.at("/pace/rate_per_second").isNull()).isTrue();
        assertThat(json.at("/pace/interval_s").isNull()).isTrue();
        JsonNode agents = json.get("agents");
        assertThat(agents.fieldNames()).toIterable().containsExactly("A1", "A2", "A3", "A4");
        JsonNode a1 = agents.get("A1");
        assertThat(a1.get("count").asInt()).isEqualTo(3);
        assertThat(a1.get("p50_ms").asDouble()).isEqualTo(0.2);
        assertThat(a1.get("p95_ms").asDouble()).isEqualTo(0.5);
        assertThat(a1.get("p99_ms").asDouble()).isEqualTo(0.5);
        assertThat(a1.get("mean_ms").asDouble()).isCloseTo(0.8 / 3, offset(1e-12));
        assertThat(agents.get("A4").get("count").asInt()).isZero();
        assertThat(json.get("latency").get("p95_ms").asDouble()).isEqualTo(0.6);
        // Every scenario's report has these keys, whatever it measures.
        assertThat(json.fieldNames()).toIterable().contains("load", "phases", "figures", "checks", "passed", "failures",
                "timeline", "pace");
        Measurements.assertReportShape(report("rr", RunStatisticsTest.handWorked()));
    }

    @Test
    void jsonHasUtilizationPerAgentAndTheAvnState() throws Exception {
        write(measured(HETEROGENEOUS, "avn", RunStatisticsTest.handWorked(), true, List.of()));

        assertThat(dir.resolve("report-uniform-avn.json")).doesNotExist();
        assertThat(ImageIO.read(dir.resolve("distribution_heterogeneous_avn.png").toFile())).isNotNull();
        JsonNode json = new ObjectMapper().readTree(dir.resolve("report-heterogeneous-avn.json").toFile());
        assertThat(json.get("scenario").asText()).isEqualTo("heterogeneous");
        assertThat(json.at("/load/warmup_requests").asInt()).isEqualTo(4);
        assertThat(json.at("/figures/utilization/A1").asDouble()).isEqualTo(0.5);
        assertThat(json.at("/figures/utilization/A3").asDouble()).isEqualTo(1.25);
        assertThat(json.get("agents").get("A3").get("count").asInt()).isEqualTo(1);
        assertThat(json.at("/figures/utilization_max_over_mean").asDouble()).isCloseTo(1.666667, offset(1e-6));
        assertThat(json.at("/figures/utilization_samples").asInt()).isEqualTo(30);
        assertThat(json.at("/figures/virtual_nodes").fieldNames()).toIterable().containsExactly("A1", "A2", "A3");
        assertThat(json.at("/figures/virtual_nodes/A3").asInt()).isEqualTo(35);
        assertThat(json.at("/figures/imbalance_index").asDouble()).isEqualTo(0.0625);
        assertThat(json.at("/figures/reallocations").asInt()).isEqualTo(7);
    }

    @Test
    void jsonOfAnExternalRunHasNoUtilizationOrAvnFields() throws Exception {
        write(report("rr", RunStatisticsTest.handWorked()));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report-uniform-rr.json").toFile());
        assertThat(json.get("figures").has("utilization_max_over_mean")).isFalse();
        assertThat(json.get("figures").has("virtual_nodes")).isFalse();
        assertThat(json.get("agents").get("A1").has("utilization")).isFalse();
    }

    @Test
    void chartIsAValidPngOfTheRequestedSize() throws Exception {
        write(report("ch", RunStatisticsTest.handWorked()));

        Path png = dir.resolve("distribution_ch.png");
        assertThat(png).exists();
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(800);
        assertThat(image.getHeight()).isEqualTo(500);
    }

    @Test
    void runWithNoAnswersStillDrawsAChart() throws Exception {
        write(report("x", RunStatistics.of(List.of(RequestOutcome.error("r1", 1, 0, 1)), List.of(), 1)));

        assertThat(ImageIO.read(dir.resolve("distribution_x.png").toFile())).isNotNull();
    }

    /** A --duration run sends what its time allows, not --requests: the section says the time, each row its count. */
    @Test
    void aTimedRunsSectionGivesItsDurationAndRateNotTheUnusedRequestCount() {
        LoadRunner.Result run = new LoadRunner.Result(List.of(), RunStatisticsTest.handWorked(), 1,
                PaceReport.counted(new Pacing(50, Duration.ofSeconds(90), Pacing.DEFAULT_INTERVAL),
                        new PacingCheck().result(Double.NaN, 2, Double.NaN)));
        Result timed = UNIFORM.result(Variant.of("rr", "rr", b -> { }, 1), "http://127.0.0.1:1", true,
                TestConfigs.of(2000, 200), run, new LinkedHashMap<>(), List.of(), List.of());

        String text = MarkdownReport.render(List.of(new MarkdownReport.Part(UNIFORM.section(List.of(timed)), List.of(timed))));

        assertThat(text).contains("Requests sent for 1m30s at 50 per second over 200 users").doesNotContain("2000 requests");
        assertThat(text).contains("| rr | 9 | 2 | 1 |");
    }

    @Test
    void markdownComparesTheRunsRowByRow() throws Exception {
        RunStatistics even = RunStatistics.of(List.of(
                RequestOutcome.success("r1", 1, "A1", 200, 1_000_000),
                RequestOutcome.success("r2", 2, "A2", 200, 1_000_000)), List.of("A1", "A2", "A3"), 1_000_000_000);
        List<Result> reports = List.of(report("rr", RunStatisticsTest.handWorked()), report("ch", even));

        Path md = MarkdownReport.write(dir, List.of(new MarkdownReport.Part(UNIFORM.section(reports), reports)));

        String text = Files.readString(md);
        assertThat(md.getFileName().toString()).isEqualTo("report.md");
        assertThat(text).contains("| strategy | requests | errors | timeouts | A1 | A2 | A3 | A4 | spread | CV "
                + "| max/mean | stickiness | p95 ms | req/s |");
        assertThat(text).contains("| rr | 9 | 2 | 1 | 3 | 2 | 1 | 0 | 3 | 0.745 | 2.000 | 0.750 | 0.6 | 3.0 |");
        assertThat(text).contains("| ch | 2 | 0 | 0 | 1 | 1 | 0 | 0 | 1 | 0.707 | 1.500 | 1.000 | 1.0 | 2.0 |");
        assertThat(text).contains("![requests per agent, rr, uniform](distribution_rr.png)");
        assertThat(text).doesNotContain("pid_convergence.png");
        // No run sampled utilization (as with --url): no util columns, so no legend for them.
        assertThat(text).doesNotContain(" util |").doesNotContain("Utilization (`util`)").contains("Stickiness = ");
    }

    @Test
    void markdownHasOneTablePerScenarioWithUtilizationNextToTheCountsAndTheAvnNodes() {
        Chart pid = PlainScenario.pidChart(PidTraceTest.threeSamples(), "pid_convergence.png");
        List<Result> uniform = List.of(measured(UNIFORM, "rr", RunStatisticsTest.handWorked(), false, List.of(pid)));
        List<Result> heterogeneous = List.of(measured(HETEROGENEOUS, "rr", RunStatisticsTest.handWorked(), false, List.of()),
                measured(HETEROGENEOUS, "avn", RunStatisticsTest.handWorked(), true, List.of()));

        String text = MarkdownReport.render(List.of(new MarkdownReport.Part(UNIFORM.section(uniform), uniform),
                new MarkdownReport.Part(HETEROGENEOUS.section(heterogeneous), heterogeneous)));

        String header = "| strategy | requests | errors | timeouts | A1 | A2 | A3 | A4 | spread | CV | max/mean "
                + "| A1 util | A2 util | A3 util | A4 util | util max/mean | stickiness | p95 ms | req/s |";
        String rr = "| rr | 9 | 2 | 1 | 3 | 2 | 1 | 0 | 3 | 0.745 | 2.000 | 0.500 | 0.500 | 1.250 | 0.750 | 1.667 "
                + "| 0.750 | 0.6 | 3.0 |";
        int u = text.indexOf("## Scenario uniform");
        int h = text.indexOf("## Scenario heterogeneous");
        assertThat(u).isPositive().isLessThan(h);
        assertThat(text.substring(u, h)).contains(header, rr, AgentSet.UNIFORM.description()).doesNotContain("| avn |");
        assertThat(text.substring(h)).contains(header, rr, "| avn | 9 |", AgentSet.HETEROGENEOUS.description())
                .contains("`avn` virtual nodes at the end: A1 60, A2 55, A3 35 (of 150); S = 0.063; 7 reallocations");
        assertThat(text).contains("after 4 warm-up requests")
                .contains("![PID weights and utilization over time](pid_convergence.png)")
                .contains("](distribution_heterogeneous_avn.png)")
                .contains("Utilization (`util`) is each agent's own");
    }

    @Test
    void pidChartIsAValidPngWithAWeightAndAUtilizationSeriesPerAgent() throws Exception {
        PidTrace trace = PidTraceTest.threeSamples();
        Chart.Lines chart = (Chart.Lines) PlainScenario.pidChart(trace, "pid_convergence.png");

        assertThat(Charts.write(chart, dir)).containsExactly("pid_convergence.png", "pid_convergence.csv");

        BufferedImage image = ImageIO.read(dir.resolve("pid_convergence.png").toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(1000);
        assertThat(image.getHeight()).isEqualTo(2 * 420);
        assertThat(Files.readString(dir.resolve("pid_convergence.csv"))).isEqualTo(trace.toCsv());
        List<XYChart> panels = Charts.panels(chart);
        assertThat(panels).hasSize(2);
        assertThat(panels.get(0).getSeriesMap().keySet()).containsExactly("A1", "A2", "A3");
        assertThat(panels.get(1).getSeriesMap().keySet()).containsExactly("A1", "A2", "A3", PlainScenario.SETPOINT_SERIES);
        assertThat(Charts.panels((Chart.Lines) PlainScenario.pidChart(new PidTrace("uniform"), "x.png")))
                .allSatisfy(p -> assertThat(p.getSeriesMap()).hasSize(1));
    }

    @Test
    void setpointIsTheMeanOfTheFiniteUtilizationsAtEachSample() {
        PidTrace trace = PidTraceTest.threeSamples();

        double[] setpoint = PlainScenario.setpoint(trace.utilizations().values(), trace.seconds().size());

        assertThat(setpoint).hasSize(3);
        assertThat(setpoint[0]).isNaN();
        assertThat(setpoint[1]).isCloseTo((0.5 + 1.25) / 2, offset(1e-12));
        assertThat(setpoint[2]).isCloseTo((0.6 + 0.7) / 2, offset(1e-12));
    }

    @Test
    void fallingBehindSaysTheLoadAverageAndWhatToDo() {
        assertThat(PlainScenario.behindHint(9.44, 2)).startsWith("To keep pace: the machine's load average is 9.4 on 2 "
                + "cores; run when the machine is quieter").contains("lower --rate");
        assertThat(PlainScenario.behindHint(-1, 2)).startsWith("To keep pace: run when");
    }
}
