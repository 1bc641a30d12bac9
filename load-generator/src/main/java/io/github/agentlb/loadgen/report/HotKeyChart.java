package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.scenario.HotKeyScenario.HotKeyRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.style.CategoryStyler;

/**
 * Draws the hot-key scenario with XChart: one stacked bar per balancer and agent, the hot user's
 * requests at the bottom and the other users' on top, so a reader sees where the hot user went and
 * whether the others made room for it. Stateless and thread-safe.
 */
public final class HotKeyChart {

    /** The chart's file name. */
    public static final String PNG_FILE = "hotkey.png";
    /** Chart width, px. */
    public static final int WIDTH = 1000;
    /** Chart height, px. */
    public static final int HEIGHT = 500;

    private HotKeyChart() {
    }

    /**
     * Builds the chart of {@code runs}, at least one ({@value #WIDTH} x {@value #HEIGHT} px): each
     * bar part labelled with its count, a line at the mean per agent and one at the target
     * {@code targetMaxOverMean} x the mean.
     */
    public static CategoryChart build(List<HotKeyRun> runs, double targetMaxOverMean) {
        List<String> bars = new ArrayList<>();
        List<Long> hot = new ArrayList<>();
        List<Long> others = new ArrayList<>();
        for (HotKeyRun run : runs) {
            run.report().statistics().agents().forEach((agent, summary) -> {
                long ofHot = run.hot().hotUserAgents().getOrDefault(agent, 0L);
                bars.add(run.variant().label() + " " + agent);
                hot.add(ofHot);
                others.add(summary.count() - ofHot);
            });
        }
        LoadTestConfig c = runs.get(0).report().config();
        CategoryChart chart = Charts.categoryChart(WIDTH, HEIGHT,
                String.format(Locale.ROOT, "Requests per agent, hot user %d at share %.2f of %d requests (%d "
                                + "replica(s))", Workload.HOT_USER, c.hotShare(), c.requests(),
                        runs.get(0).hot().replicas()),
                "Balancer and agent", "Requests");
        CategoryStyler styler = chart.getStyler();
        styler.setStacked(true);
        styler.setLabelsVisible(true);
        styler.setLabelsFontColorAutomaticEnabled(true);
        styler.setXAxisLabelRotation(45);
        chart.addSeries("user " + Workload.HOT_USER + " (hot)", bars, hot);
        chart.addSeries("users 1.." + c.users(), bars, others);
        double mean = runs.get(0).report().statistics().meanPerAgent();
        double target = targetMaxOverMean * mean;
        long tallest = 0;
        for (int i = 0; i < bars.size(); i++) {
            tallest = Math.max(tallest, hot.get(i) + others.get(i));
        }
        styler.setYAxisMax(Math.max(tallest, target) * 1.12);
        chart.addAnnotation(new AnnotationLine(mean, false, false));
        chart.addAnnotation(new AnnotationLine(target, false, false));
        chart.addAnnotation(new AnnotationText(String.format(Locale.ROOT, "mean %.0f", mean), 0.5, mean, false));
        chart.addAnnotation(new AnnotationText(String.format(Locale.ROOT, "target %.2f x mean = %.0f", targetMaxOverMean,
                target), 1.5, target * 1.04, false));
        return chart;
    }

    /**
     * Writes the chart as {@value #PNG_FILE} into {@code dir} (created if missing).
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public static Path write(List<HotKeyRun> runs, double targetMaxOverMean, Path dir) throws IOException {
        return Charts.writePng(build(runs, targetMaxOverMean), dir, PNG_FILE);
    }
}
