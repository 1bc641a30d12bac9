package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.stats.PidTrace;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.colors.XChartSeriesColors;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a {@link PidTrace} with XChart as two panels over the same time axis (s): above, each
 * agent's weight; below, the utilization its controller used at the last control step, with the
 * fleet's mean of those (the controllers' setpoint) dashed; one colour per agent in both panels
 * and a vertical line where the warm-up ended. Written as {@value #PNG_FILE} (and the samples as
 * {@value #CSV_FILE}). Stateless and thread-safe.
 */
public final class PidConvergenceChart {

    /** The chart's file name. */
    public static final String PNG_FILE = "pid_convergence.png";
    /** The samples' file name. */
    public static final String CSV_FILE = "pid_convergence.csv";
    /** Image width, px. */
    public static final int WIDTH = 1000;
    /** Height of each of the two panels, px; the image is twice as high. */
    public static final int PANEL_HEIGHT = 420;
    /** Legend entry of the fleet's mean utilization. */
    public static final String SETPOINT_SERIES = "mean (setpoint)";

    private static final Color[] COLORS = {
        XChartSeriesColors.BLUE, XChartSeriesColors.ORANGE, XChartSeriesColors.GREEN, XChartSeriesColors.PURPLE,
        XChartSeriesColors.RED, XChartSeriesColors.BROWN, XChartSeriesColors.MAGENTA, XChartSeriesColors.CYAN};

    private PidConvergenceChart() {
    }

    /** Builds the two panels of {@code trace}: weights, then utilizations ({@value #WIDTH} x {@value #PANEL_HEIGHT} px each). */
    public static List<XYChart> build(PidTrace trace) {
        String warmup = Double.isNaN(trace.warmupEndSeconds()) ? ""
                : String.format(Locale.ROOT, ", warm-up until %.1f s", trace.warmupEndSeconds());
        XYChart weights = panel(trace, "PID weight per agent - " + trace.scenario() + " scenario" + warmup,
                "Weight (relative, mean 1.0)");
        XYChart utilizations = panel(trace, "Utilization per agent at the last control step",
                "(in service + queued) / capacity");
        List<Double> seconds = trace.seconds();
        if (seconds.isEmpty()) {
            // XChart needs at least one point; an empty trace still gets a readable picture.
            for (XYChart chart : List.of(weights, utilizations)) {
                chart.addSeries("(no samples)", new double[] {0}, new double[] {0}).setMarker(SeriesMarkers.NONE);
            }
            return List.of(weights, utilizations);
        }
        int colour = 0;
        Map<String, List<Double>> utilization = trace.utilizations();
        for (Map.Entry<String, List<Double>> e : trace.weights().entrySet()) {
            Color color = COLORS[colour++ % COLORS.length];
            style(weights.addSeries(e.getKey(), seconds, e.getValue()), color, SeriesLines.SOLID);
            List<Double> u = utilization.get(e.getKey());
            if (u != null && u.stream().anyMatch(Double::isFinite)) {
                style(utilizations.addSeries(e.getKey(), seconds, u), color, SeriesLines.SOLID);
            }
        }
        List<Double> setpoint = setpoint(utilization.values(), seconds.size());
        if (setpoint.stream().anyMatch(Double::isFinite)) {
            style(utilizations.addSeries(SETPOINT_SERIES, seconds, setpoint), Color.BLACK, SeriesLines.DASH_DASH);
        }
        return List.of(weights, utilizations);
    }

    private static XYChart panel(PidTrace trace, String title, String yAxisTitle) {
        XYChart chart = Charts.xyChart(WIDTH, PANEL_HEIGHT, title, "Time (s)", yAxisTitle);
        XYStyler styler = chart.getStyler();
        // Legends below, so both panels' plot areas, and so their time axes, line up.
        Charts.legendBelow(styler);
        styler.setXAxisDecimalPattern("0.#");
        if (!Double.isNaN(trace.warmupEndSeconds())) {
            chart.addAnnotation(new AnnotationLine(trace.warmupEndSeconds(), true, false));
        }
        return chart;
    }

    /** The mean of the agents' finite utilizations at each sample; NaN where none is finite. */
    public static List<Double> setpoint(Collection<List<Double>> utilizations, int samples) {
        List<Double> mean = new ArrayList<>(samples);
        for (int i = 0; i < samples; i++) {
            double sum = 0;
            int n = 0;
            for (List<Double> u : utilizations) {
                if (Double.isFinite(u.get(i))) {
                    sum += u.get(i);
                    n++;
                }
            }
            mean.add(n == 0 ? Double.NaN : sum / n);
        }
        return mean;
    }

    private static void style(XYSeries series, Color color, BasicStroke line) {
        series.setMarker(SeriesMarkers.NONE);
        series.setLineColor(color);
        series.setLineStyle(line);
    }

    /**
     * Writes {@value #PNG_FILE} and {@value #CSV_FILE} into {@code dir} (created if missing).
     *
     * @return the PNG written
     * @throws IOException if a file cannot be written
     */
    public static Path write(PidTrace trace, Path dir) throws IOException {
        Path png = Charts.writePng(build(trace), dir, PNG_FILE);
        Files.writeString(dir.resolve(CSV_FILE), trace.toCsv(), StandardCharsets.UTF_8);
        return png;
    }
}
