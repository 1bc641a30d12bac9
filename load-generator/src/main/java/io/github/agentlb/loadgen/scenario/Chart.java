package io.github.agentlb.loadgen.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A chart a scenario shows, as data: what the single chart writer draws as a PNG ({@code report}
 * package, XChart) and {@code report.md} links. Immutable.
 */
public sealed interface Chart permits Chart.Bars, Chart.Lines {

    /** The PNG's file name, e.g. {@code timeline_failure_rr.png}. */
    String file();

    /** The text of its link in {@code report.md}. */
    String alt();

    /**
     * Bars, one group per category, one bar per series (stacked when asked), each labelled with its
     * value, and horizontal reference lines.
     *
     * @param size       width x height, px
     * @param categories the x axis' categories
     * @param series     name to one value per category, in legend order
     * @param levels     horizontal lines with their labels (a mean, a target)
     */
    record Bars(String file, String alt, String title, String xTitle, String yTitle, int[] size,
                List<String> categories, Map<String, List<Double>> series, boolean stacked, List<Level> levels)
            implements Chart {
        public Bars {
            categories = List.copyOf(categories);
            series = new LinkedHashMap<>(series);
            levels = List.copyOf(levels);
        }
    }

    /** A horizontal line across a bar chart at {@code y}, labelled. */
    record Level(double y, String label) {
    }

    /**
     * Line panels one under the other, over the same x axis.
     *
     * @param width  px
     * @param panels the panels, top first
     * @param csv    the data as CSV, written beside the PNG ({@code .csv}), or {@code null}
     */
    record Lines(String file, String alt, int width, List<Panel> panels, String csv) implements Chart {
        public Lines {
            panels = List.copyOf(panels);
        }
    }

    /**
     * One panel of {@link Lines}.
     *
     * @param height  px
     * @param x       the x values
     * @param series  name to one y value per x (NaN: no point), in legend order
     * @param markers vertical lines, labelled above the tallest line when a label is given
     */
    record Panel(String title, String xTitle, String yTitle, int height, double[] x, Map<String, double[]> series,
                 List<Marker> markers) {
        public Panel {
            series = new LinkedHashMap<>(series);
            markers = List.copyOf(markers);
        }
    }

    /** A vertical line at {@code x}; {@code label} may be {@code null}. */
    record Marker(double x, String label) {
    }
}
