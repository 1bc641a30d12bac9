package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.scenario.FailureReport;
import io.github.agentlb.loadgen.scenario.Fault;
import io.github.agentlb.loadgen.stats.Timeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a run's {@link Timeline} with XChart: one line per agent (requests answered per second),
 * one for failed requests when any failed, and a vertical line at each change of the run (for a
 * fault run where the agent was killed and restarted). Stateless and thread-safe.
 */
public final class TimelineChart {

    /** Chart width, px. */
    public static final int WIDTH = 900;
    /** Chart height, px. */
    public static final int HEIGHT = 500;

    private TimelineChart() {
    }

    /** {@code timeline_<fault>_<strategy>.png}. */
    public static String fileName(Fault fault, String strategy) {
        return "timeline_" + fault.label() + "_" + strategy + ".png";
    }

    /** A vertical line across the chart at {@code seconds} from time 0, labelled at its foot. */
    public record Marker(double seconds, String label) {
    }

    /** Builds the chart ({@value #WIDTH} x {@value #HEIGHT} px); time 0 is the first request sent. */
    public static XYChart build(FailureReport report) {
        String verb = report.fault() == Fault.HANG ? "hung" : "killed";
        return build(String.format(Locale.ROOT, "Requests per agent per second - %s, agent %s %s at %.1f s, "
                        + "restarted at %.1f s", report.strategy(), report.deadAgent(), verb, report.killSeconds(),
                        report.restartSeconds()), report.timeline(),
                List.of(new Marker(report.killSeconds(), (report.fault() == Fault.HANG ? "hang " : "kill ")
                                + report.deadAgent()),
                        new Marker(report.restartSeconds(), "restart " + report.deadAgent())));
    }

    /**
     * Builds a timeline chart ({@value #WIDTH} x {@value #HEIGHT} px): one line per agent
     * (requests answered per second), one for failed requests when any failed, and a vertical
     * line per marker; time 0 is the first request sent.
     */
    public static XYChart build(String title, Timeline timeline, List<Marker> markers) {
        XYChart chart = Charts.xyChart(WIDTH, HEIGHT, title,
                "Time since the first request (s), by answer; each bucket drawn at its middle", "Requests per second");
        Charts.legendBelow(chart.getStyler());
        // A bucket's rate is drawn at its middle, so the marker lines fall where the rates change.
        double[] x = Arrays.stream(timeline.bucketStartsSeconds()).map(t -> t + timeline.bucketSeconds() / 2).toArray();
        timeline.answeredPerAgent().forEach((agent, counts) -> line(chart.addSeries(agent, x,
                Timeline.perSecond(counts, timeline.bucketSeconds()))));
        long[] failed = timeline.failed();
        if (Arrays.stream(failed).anyMatch(n -> n > 0)) {
            line(chart.addSeries("failed", x, Timeline.perSecond(failed, timeline.bucketSeconds())));
        }
        // Marker labels go above the tallest line, where they cover no agent's line.
        double top = 1;
        for (XYSeries series : chart.getSeriesMap().values()) {
            top = Math.max(top, series.getYMax());
        }
        chart.getStyler().setYAxisMax(top * 1.15);
        double labelY = top * 1.08;
        markers.forEach(m -> mark(chart, m.seconds(), m.label(), labelY));
        return chart;
    }

    private static void line(XYSeries series) {
        series.setMarker(SeriesMarkers.NONE);
    }

    private static void mark(XYChart chart, double seconds, String label, double labelY) {
        chart.addAnnotation(new AnnotationLine(seconds, true, false));
        chart.addAnnotation(new AnnotationText(label, seconds, labelY, false));
    }

    /**
     * Writes the chart as a PNG into {@code dir} (created if missing).
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public static Path write(FailureReport report, Path dir) throws IOException {
        return write(build(report), dir.resolve(fileName(report.fault(), report.strategy())));
    }

    /**
     * Writes {@code chart} as a PNG to {@code file}, creating its directory if missing.
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public static Path write(XYChart chart, Path file) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
