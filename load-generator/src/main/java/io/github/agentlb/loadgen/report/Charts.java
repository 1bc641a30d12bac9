package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.config.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * What the run's XChart charts share: AWT's headless mode, set before any of them is built (see
 * {@link Headless}); their y axis from 0; a legend below the plot; and their PNG files. Every
 * chart is built through {@link #categoryChart} or {@link #xyChart}, so none touches AWT first.
 * Stateless and thread-safe.
 */
public final class Charts {

    static {
        Headless.ensure();
    }

    private Charts() {
    }

    /** A bar chart of {@code width} x {@code height} px, its y axis from 0 and its legend below the plot. */
    public static CategoryChart categoryChart(int width, int height, String title, String xAxisTitle,
                                              String yAxisTitle) {
        CategoryChart chart = new CategoryChartBuilder().width(width).height(height).title(title)
                .xAxisTitle(xAxisTitle).yAxisTitle(yAxisTitle).build();
        chart.getStyler().setYAxisMin(0.0);
        legendBelow(chart.getStyler());
        return chart;
    }

    /** A line chart of {@code width} x {@code height} px, its y axis from 0 (the legend where XChart puts it). */
    public static XYChart xyChart(int width, int height, String title, String xAxisTitle, String yAxisTitle) {
        XYChart chart = new XYChartBuilder().width(width).height(height).title(title)
                .xAxisTitle(xAxisTitle).yAxisTitle(yAxisTitle).build();
        chart.getStyler().setYAxisMin(0.0);
        return chart;
    }

    /** Puts the legend below the plot, its entries in a row. */
    public static void legendBelow(Styler styler) {
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
    }

    /**
     * The file name of a run's chart of {@code kind}: {@code <kind>_<strategy>.png} in the uniform
     * scenario, {@code <kind>_<scenario>_<strategy>.png} in another.
     */
    public static String pngName(String kind, Scenario scenario, String strategy) {
        return kind + "_" + (scenario == Scenario.UNIFORM ? "" : scenario.label() + "_") + strategy + ".png";
    }

    /**
     * Writes {@code chart} as the PNG {@code fileName} into {@code dir} (created if missing).
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public static Path writePng(Chart<?, ?> chart, Path dir, String fileName) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(fileName);
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    /**
     * Writes {@code panels}, one under the other, as the PNG {@code fileName} into {@code dir}
     * (created if missing).
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public static Path writePng(List<? extends Chart<?, ?>> panels, Path dir, String fileName) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(fileName);
        BitmapEncoder.saveBitmap(panels, panels.size(), 1, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
