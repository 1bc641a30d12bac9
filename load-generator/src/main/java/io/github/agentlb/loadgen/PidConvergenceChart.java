package io.github.agentlb.loadgen;

import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.colors.XChartSeriesColors;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a {@link PidTrace} with XChart: time (s) across; each agent's weight as a solid line on
 * the left axis and its utilization as a dashed line of the same colour on the right axis; a
 * vertical line where the warm-up ended. Written as {@value #PNG_FILE} (and the samples as
 * {@value #CSV_FILE}). Stateless and thread-safe.
 */
public final class PidConvergenceChart {

    /** The chart's file name. */
    public static final String PNG_FILE = "pid_convergence.png";
    /** The samples' file name. */
    public static final String CSV_FILE = "pid_convergence.csv";
    /** Chart width, px. */
    public static final int WIDTH = 1000;
    /** Chart height, px. */
    public static final int HEIGHT = 600;

    private static final Color[] COLORS = {
        XChartSeriesColors.BLUE, XChartSeriesColors.ORANGE, XChartSeriesColors.GREEN, XChartSeriesColors.PURPLE,
        XChartSeriesColors.RED, XChartSeriesColors.BROWN, XChartSeriesColors.MAGENTA, XChartSeriesColors.CYAN};
    private static final int WEIGHT_AXIS = 0;
    private static final int UTILIZATION_AXIS = 1;

    static {
        // XChart renders through AWT; without this a machine with no display fails to draw.
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private PidConvergenceChart() {
    }

    /** Builds the chart of {@code trace} ({@value #WIDTH} x {@value #HEIGHT} px). */
    public static XYChart build(PidTrace trace) {
        List<Double> seconds = trace.seconds();
        String warmup = Double.isNaN(trace.warmupEndSeconds()) ? ""
                : String.format(Locale.ROOT, ", warm-up until %.1f s", trace.warmupEndSeconds());
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title("PID weights and utilization per agent - " + trace.scenario() + " scenario" + warmup)
                .xAxisTitle("Time (s)").yAxisTitle("Weight (relative, mean 1.0)").build();
        XYStyler styler = chart.getStyler();
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        styler.setYAxisGroupPosition(UTILIZATION_AXIS, Styler.YAxisPosition.Right);
        styler.setYAxisMin(WEIGHT_AXIS, 0.0);
        styler.setYAxisMin(UTILIZATION_AXIS, 0.0);
        styler.setXAxisDecimalPattern("0.#");
        chart.setYAxisGroupTitle(UTILIZATION_AXIS, "Utilization ((in service + queued) / capacity)");
        if (seconds.isEmpty()) {
            // XChart needs at least one point; an empty trace still gets a readable picture.
            chart.addSeries("(no samples)", new double[] {0}, new double[] {0}).setMarker(SeriesMarkers.NONE);
            return chart;
        }
        int colour = 0;
        Map<String, List<Double>> utilizations = trace.utilizations();
        for (Map.Entry<String, List<Double>> e : trace.weights().entrySet()) {
            Color color = COLORS[colour++ % COLORS.length];
            XYSeries weight = chart.addSeries("weight " + e.getKey(), seconds, e.getValue());
            style(weight, color, SeriesLines.SOLID, WEIGHT_AXIS);
            List<Double> u = utilizations.get(e.getKey());
            if (u != null && u.stream().anyMatch(Double::isFinite)) {
                style(chart.addSeries("utilization " + e.getKey(), seconds, u), color, SeriesLines.DASH_DASH,
                        UTILIZATION_AXIS);
            }
        }
        if (!Double.isNaN(trace.warmupEndSeconds())) {
            chart.addAnnotation(new AnnotationLine(trace.warmupEndSeconds(), true, false));
        }
        return chart;
    }

    private static void style(XYSeries series, Color color, java.awt.BasicStroke line, int axis) {
        series.setMarker(SeriesMarkers.NONE);
        series.setLineColor(color);
        series.setLineStyle(line);
        series.setYAxisGroup(axis);
    }

    /**
     * Writes {@value #PNG_FILE} and {@value #CSV_FILE} into {@code dir} (created if missing).
     *
     * @return the PNG written
     * @throws IOException if a file cannot be written
     */
    public static Path write(PidTrace trace, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path png = dir.resolve(PNG_FILE);
        BitmapEncoder.saveBitmap(build(trace), png.toString(), BitmapEncoder.BitmapFormat.PNG);
        Files.writeString(dir.resolve(CSV_FILE), trace.toCsv(), StandardCharsets.UTF_8);
        return png;
    }
}
