package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.scenario.Chart;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the scenarios' {@link Chart}s as PNG files with XChart: bars, each labelled with its value, and
 * line panels (vertical markers labelled above the tallest line); every y axis from 0, every legend below.
 * AWT's headless mode is set first unless {@code java.awt.headless} is given. Stateless and thread-safe.
 */
public final class Charts {

    /** The width of a category label's character, px (the axis font's, about). */
    static final int LABEL_CHAR_PX = 8;

    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private Charts() {
    }

    /** Writes {@code chart} as its PNG into {@code dir} (created if missing), and its CSV if any; returns their names. */
    public static List<String> write(Chart chart, Path dir) throws IOException {
        Files.createDirectories(dir);
        String png = dir.resolve(chart.file()).toString();
        if (chart instanceof Chart.Bars bars) {
            BitmapEncoder.saveBitmap(bars(bars), png, BitmapEncoder.BitmapFormat.PNG);
            return List.of(chart.file());
        }
        Chart.Lines lines = (Chart.Lines) chart;
        List<XYChart> panels = panels(lines);
        BitmapEncoder.saveBitmap(panels, panels.size(), 1, png, BitmapEncoder.BitmapFormat.PNG);
        if (lines.csv() == null) {
            return List.of(chart.file());
        }
        String csv = chart.file().replaceAll("\\.png$", "") + ".csv";
        Files.writeString(dir.resolve(csv), lines.csv(), StandardCharsets.UTF_8);
        return List.of(chart.file(), csv);
    }

    /**
     * Whether a bar chart {@code width} px wide must slant its category labels: more than 8, or the longest
     * wider than its share of the width at about {@value #LABEL_CHAR_PX} px a character.
     */
    static boolean labelsCrowded(int width, List<String> categories) {
        int longest = categories.stream().mapToInt(String::length).max().orElse(0);
        return categories.size() > 8 || longest * LABEL_CHAR_PX > width / Math.max(1, categories.size());
    }

    private static CategoryChart bars(Chart.Bars spec) {
        CategoryChart chart = new CategoryChartBuilder().width(spec.size()[0]).height(spec.size()[1]).title(spec.title())
                .xAxisTitle(spec.xTitle()).yAxisTitle(spec.yTitle()).build();
        var styler = style(chart.getStyler());
        styler.setLabelsVisible(true);
        styler.setStacked(spec.stacked());
        styler.setOverlapped(spec.series().size() == 1);
        if (labelsCrowded(spec.size()[0], spec.categories())) {
            styler.setXAxisLabelRotation(45);
        }
        spec.series().forEach((name, values) -> chart.addSeries(name, spec.categories(), values));
        if (!spec.levels().isEmpty()) {
            double tallest = IntStream.range(0, spec.categories().size()).mapToDouble(k -> spec.stacked()
                    ? spec.series().values().stream().mapToDouble(v -> v.get(k)).sum()
                    : spec.series().values().stream().mapToDouble(v -> v.get(k)).max().orElse(0)).reduce(0, Math::max);
            double top = Math.max(tallest, spec.levels().stream().mapToDouble(Chart.Level::y).max().orElse(0));
            styler.setYAxisMax(top * 1.12);
            for (int i = 0; i < spec.levels().size(); i++) {
                Chart.Level level = spec.levels().get(i);
                chart.addAnnotation(new AnnotationLine(level.y(), false, false));
                chart.addAnnotation(new AnnotationText(level.label(), 0.5 + i, level.y() + top * 0.04, false));
            }
        }
        return chart;
    }

    /** The line panels of {@code spec}, top first. */
    public static List<XYChart> panels(Chart.Lines spec) {
        List<XYChart> charts = new ArrayList<>();
        for (Chart.Panel p : spec.panels()) {
            XYChart chart = new XYChartBuilder().width(spec.width()).height(p.height()).title(p.title())
                    .xAxisTitle(p.xTitle()).yAxisTitle(p.yTitle()).build();
            var styler = style(chart.getStyler());
            styler.setXAxisDecimalPattern("0.#");
            p.series().forEach((name, y) -> chart.addSeries(name, p.x(), y)
                    .setMarker(p.x().length > 30 ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE));
            double top = Math.max(1, p.series().values().stream().flatMapToDouble(Arrays::stream)
                    .filter(Double::isFinite).max().orElse(1));
            if (p.markers().stream().anyMatch(m -> m.label() != null)) {
                styler.setYAxisMax(top * 1.15); // room for the marker labels above the tallest line
            }
            for (Chart.Marker m : p.markers()) {
                chart.addAnnotation(new AnnotationLine(m.x(), true, false));
                if (m.label() != null) {
                    chart.addAnnotation(new AnnotationText(m.label(), m.x(), top * 1.08, false));
                }
            }
            charts.add(chart);
        }
        return charts;
    }

    /** {@code styler} with the y axis from 0 and the legend below the plot, in a row. */
    private static <S extends AxesChartStyler> S style(S styler) {
        styler.setYAxisMin(0.0);
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        return styler;
    }
}
