package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.stats.AgentSummary;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.CategoryStyler;

/**
 * Draws a run's requests per agent as a bar chart with XChart: one bar per agent, labelled with
 * its count, and the mean per agent drawn as a line across the bars, so a reader sees the
 * imbalance at a glance. Stateless and thread-safe.
 */
public final class DistributionChart {

    /** Chart width, px. */
    public static final int WIDTH = 800;
    /** Chart height, px. */
    public static final int HEIGHT = 500;

    private DistributionChart() {
    }

    /**
     * The chart's file name: {@code distribution_<strategy>.png} in the uniform scenario,
     * {@code distribution_<scenario>_<strategy>.png} in another.
     */
    public static String fileName(Scenario scenario, String strategy) {
        return Charts.pngName("distribution", scenario, strategy);
    }

    /** Builds the chart of {@code report} ({@value #WIDTH} x {@value #HEIGHT} px). */
    public static CategoryChart build(RunReport report) {
        RunStatistics stats = report.statistics();
        List<String> agents = new ArrayList<>(stats.agents().keySet());
        List<Long> counts = stats.agents().values().stream().map(AgentSummary::count).toList();
        if (agents.isEmpty()) {
            // XChart needs at least one category; an empty run still gets a readable picture.
            agents = List.of("(no answers)");
            counts = List.of(0L);
        }
        CategoryChart chart = Charts.categoryChart(WIDTH, HEIGHT,
                String.format(Locale.ROOT, "Requests per agent - %s, %s (%d requests, spread %d, CV %.3f)",
                        report.strategy(), report.scenario().label(), stats.requests(), stats.spread(),
                        stats.coefficientOfVariation()),
                "Agent", "Requests");
        CategoryStyler styler = chart.getStyler();
        styler.setLabelsVisible(true);
        styler.setOverlapped(true);
        chart.addSeries("requests", agents, counts);
        CategorySeries mean = chart.addSeries(String.format(Locale.ROOT, "mean = %.1f", stats.meanPerAgent()), agents,
                Collections.nCopies(agents.size(), stats.meanPerAgent()));
        mean.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        return chart;
    }

    /**
     * Writes the chart of {@code report} as a PNG into {@code dir} (created if missing).
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public static Path write(RunReport report, Path dir) throws IOException {
        return Charts.writePng(build(report), dir, fileName(report.scenario(), report.strategy()));
    }
}
