package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.stats.IntervalSeries;
import io.github.agentlb.loadgen.stats.RunReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a time-bound run's intervals with XChart, one panel under the other: throughput and
 * failures per second; p50 and p99 latency; and, when the JVM was sampled (embedded runs), heap
 * used after GC and live threads. x = the interval's middle, s after the start. Stateless.
 */
public final class SoakChart {

    /** Width of the image, px. */
    public static final int WIDTH = 900;
    /** Height of one panel, px. */
    public static final int PANEL_HEIGHT = 300;

    private SoakChart() {
    }

    /** {@code soak_<strategy>.png} (uniform scenario) or {@code soak_<scenario>_<strategy>.png}. */
    public static String fileName(Scenario scenario, String strategy) {
        return Charts.pngName("soak", scenario, strategy);
    }

    /** The panels of {@code intervals}. */
    public static List<XYChart> build(String title, List<IntervalSeries.Interval> intervals) {
        double[] x = intervals.stream().mapToDouble(i -> i.startSeconds() + i.lengthSeconds() / 2).toArray();
        List<XYChart> charts = new ArrayList<>();
        XYChart rate = chart(title + ": throughput and failures", "requests per second");
        line(rate, "answered req/s", x, intervals.stream().mapToDouble(IntervalSeries.Interval::throughputRps).toArray());
        line(rate, "errors + timeouts per s", x, intervals.stream()
                .mapToDouble(i -> i.lengthSeconds() <= 0 ? 0 : i.failures() / i.lengthSeconds()).toArray());
        charts.add(rate);
        XYChart latency = chart("latency of answered requests", "ms");
        line(latency, "p50", x, intervals.stream().mapToDouble(IntervalSeries.Interval::p50Ms).toArray());
        line(latency, "p99", x, intervals.stream().mapToDouble(IntervalSeries.Interval::p99Ms).toArray());
        charts.add(latency);
        List<IntervalSeries.Interval> sampled = intervals.stream().filter(i -> !Double.isNaN(i.heapAfterGcMb())).toList();
        if (!sampled.isEmpty()) {
            double[] xs = sampled.stream().mapToDouble(i -> i.startSeconds() + i.lengthSeconds() / 2).toArray();
            XYChart jvm = chart("JVM of the proxy (agents and generator included)", "MB / threads");
            line(jvm, "heap after GC, MB", xs, sampled.stream().mapToDouble(IntervalSeries.Interval::heapAfterGcMb).toArray());
            line(jvm, "live threads", xs, sampled.stream().mapToDouble(IntervalSeries.Interval::liveThreads).toArray());
            charts.add(jvm);
        }
        return charts;
    }

    private static XYChart chart(String title, String yTitle) {
        return Charts.xyChart(WIDTH, PANEL_HEIGHT, title, "seconds since start", yTitle);
    }

    private static void line(XYChart chart, String name, double[] x, double[] y) {
        chart.addSeries(name, x, y).setMarker(x.length > 30 ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
    }

    /**
     * Writes the panels of {@code report}'s intervals as one PNG into {@code dir}.
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public static Path write(RunReport report, Path dir) throws IOException {
        return Charts.writePng(build(report.strategy() + " (" + report.scenario().label() + ")",
                report.pace().intervals()), dir, fileName(report.scenario(), report.strategy()));
    }
}
