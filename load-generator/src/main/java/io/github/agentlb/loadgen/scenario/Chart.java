package io.github.agentlb.loadgen.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A chart a scenario shows, as data: drawn as a PNG by the {@code report} package, linked in report.md. Immutable. */
public sealed interface Chart permits Chart.Bars, Chart.Lines {

    /** The PNG's file name, e.g. {@code timeline_failure_rr.png}. */
    String file();

    /** The text of its link in {@code report.md}. */
    String alt();

    /**
     * Bars, one group per category, one bar per series (stacked when asked), with horizontal reference lines.
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

    /** Line panels one under the other (top first), {@code width} px, with the data as CSV beside, or {@code null}. */
    record Lines(String file, String alt, int width, List<Panel> panels, String csv) implements Chart {
        public Lines {
            panels = List.copyOf(panels);
        }
    }

    /** A panel of {@link Lines}, {@code height} px: per series name one y per x (NaN: no point), in legend order. */
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
