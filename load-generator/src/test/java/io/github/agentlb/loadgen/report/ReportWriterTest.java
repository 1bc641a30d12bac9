package io.github.agentlb.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.stats.AvnSummary;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.RunStatisticsTest;
import io.github.agentlb.loadgen.stats.UtilizationSummary;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

    @TempDir
    Path dir;

    private static RunReport report(String strategy, RunStatistics stats) {
        return new RunReport(strategy, Scenario.UNIFORM, "http://127.0.0.1:1", true,
                LoadTestConfig.custom().requests(9).users(5).build(), stats);
    }

    @Test
    void jsonHasTheFiguresUnderTheDocumentedKeys() throws Exception {
        new ReportWriter(dir).writeRun(report("rr", RunStatisticsTest.handWorked()));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report-rr.json").toFile());
        assertThat(json.get("strategy").asText()).isEqualTo("rr");
        assertThat(json.get("scenario").asText()).isEqualTo("uniform");
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
    }

    private static RunReport measured(Scenario scenario, String strategy, RunStatistics stats, AvnSummary avn) {
        UtilizationSummary utilization = new UtilizationSummary(
                new TreeMap<>(Map.of("A1", 0.5, "A2", 0.5, "A3", 1.25, "A4", 0.75)), 1.25 / 0.75, 30);
        return new RunReport(strategy, scenario, "http://127.0.0.1:1", true,
                LoadTestConfig.custom().requests(9).users(5).warmup(4).build(), stats, utilization, avn);
    }

    @Test
    void jsonHasUtilizationPerAgentAndTheAvnState() throws Exception {
        AvnSummary avn = new AvnSummary(new TreeMap<>(Map.of("A1", 60, "A2", 55, "A3", 35)), 0.0625, 7);
        new ReportWriter(dir).writeRun(measured(Scenario.HETEROGENEOUS, "avn", RunStatisticsTest.handWorked(), avn));

        assertThat(dir.resolve("report-avn.json")).doesNotExist();
        assertThat(ImageIO.read(dir.resolve("distribution_heterogeneous_avn.png").toFile())).isNotNull();
        JsonNode json = new ObjectMapper().readTree(dir.resolve("report-heterogeneous-avn.json").toFile());
        assertThat(json.get("scenario").asText()).isEqualTo("heterogeneous");
        assertThat(json.get("warmup_requests").asInt()).isEqualTo(4);
        assertThat(json.get("agents").get("A1").get("utilization").asDouble()).isEqualTo(0.5);
        assertThat(json.get("agents").get("A3").get("utilization").asDouble()).isEqualTo(1.25);
        assertThat(json.get("agents").get("A3").get("count").asInt()).isEqualTo(1);
        assertThat(json.get("utilization_max_over_mean").asDouble()).isCloseTo(1.666667, offset(1e-6));
        assertThat(json.get("utilization_samples").asInt()).isEqualTo(30);
        assertThat(json.get("virtual_nodes").fieldNames()).toIterable().containsExactly("A1", "A2", "A3");
        assertThat(json.get("virtual_nodes").get("A3").asInt()).isEqualTo(35);
        assertThat(json.get("imbalance_index").asDouble()).isEqualTo(0.0625);
        assertThat(json.get("reallocations").asInt()).isEqualTo(7);
    }

    @Test
    void jsonOfAnExternalRunHasNoUtilizationOrAvnFields() throws Exception {
        new ReportWriter(dir).writeRun(report("rr", RunStatisticsTest.handWorked()));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report-rr.json").toFile());
        assertThat(json.has("utilization_max_over_mean")).isFalse();
        assertThat(json.has("virtual_nodes")).isFalse();
        assertThat(json.get("agents").get("A1").has("utilization")).isFalse();
    }

    @Test
    void chartIsAValidPngOfTheRequestedSize() throws Exception {
        new ReportWriter(dir).writeRun(report("ch", RunStatisticsTest.handWorked()));

        Path png = dir.resolve("distribution_ch.png");
        assertThat(png).exists();
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(800);
        assertThat(image.getHeight()).isEqualTo(500);
    }

    @Test
    void runWithNoAnswersStillDrawsAChart() throws Exception {
        RunStatistics none = RunStatistics.of(List.of(RequestOutcome.error("r1", 1, 0, 1)), List.of(), 1);

        new ReportWriter(dir).writeRun(report("x", none));

        assertThat(ImageIO.read(dir.resolve("distribution_x.png").toFile())).isNotNull();
    }

    @Test
    void markdownComparesTheRunsRowByRow() throws Exception {
        RunStatistics even = RunStatistics.of(List.of(
                RequestOutcome.success("r1", 1, "A1", 200, 1_000_000),
                RequestOutcome.success("r2", 2, "A2", 200, 1_000_000)), List.of("A1", "A2", "A3"), 1_000_000_000);
        List<RunReport> reports = List.of(report("rr", RunStatisticsTest.handWorked()), report("ch", even));

        Path md = new ReportWriter(dir).writeComparison(reports, false);

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
        AvnSummary avn = new AvnSummary(new TreeMap<>(Map.of("A1", 60, "A2", 55, "A3", 35)), 0.0625, 7);
        List<RunReport> reports = List.of(
                measured(Scenario.UNIFORM, "rr", RunStatisticsTest.handWorked(), null),
                measured(Scenario.HETEROGENEOUS, "rr", RunStatisticsTest.handWorked(), null),
                measured(Scenario.HETEROGENEOUS, "avn", RunStatisticsTest.handWorked(), avn));

        String text = ReportWriter.markdown(reports, true);

        String header = "| strategy | requests | errors | timeouts | A1 | A2 | A3 | A4 | spread | CV | max/mean "
                + "| A1 util | A2 util | A3 util | A4 util | util max/mean | stickiness | p95 ms | req/s |";
        String rr = "| rr | 9 | 2 | 1 | 3 | 2 | 1 | 0 | 3 | 0.745 | 2.000 | 0.500 | 0.500 | 1.250 | 0.750 | 1.667 "
                + "| 0.750 | 0.6 | 3.0 |";
        int uniform = text.indexOf("## Scenario uniform");
        int heterogeneous = text.indexOf("## Scenario heterogeneous");
        assertThat(uniform).isPositive().isLessThan(heterogeneous);
        assertThat(text.substring(uniform, heterogeneous)).contains(header, rr, Scenario.UNIFORM.description())
                .doesNotContain("| avn |");
        assertThat(text.substring(heterogeneous)).contains(header, rr, "| avn | 9 |", Scenario.HETEROGENEOUS.description())
                .contains("`avn` virtual nodes at the end: A1 60, A2 55, A3 35 (of 150); S = 0.063; 7 reallocations");
        assertThat(text).contains("after 4 warm-up requests")
                .contains("![PID weights and utilization over time](pid_convergence.png)")
                .contains("](distribution_heterogeneous_avn.png)")
                .contains("Utilization (`util`) is each agent's own");
    }
}
