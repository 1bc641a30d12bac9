package io.github.agentlb.loadgen.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A scenario's part of {@code report.md} and of the console's closing tables, as data. Immutable.
 *
 * @param title  the heading after "Scenario ", e.g. {@code failure}
 * @param blocks in order: paragraphs (markdown text) and {@link Table}s
 * @param charts the charts linked at the section's end (drawn by the chart writer)
 */
public record Section(String title, List<Object> blocks, List<Chart> charts) {

    public Section {
        blocks = List.copyOf(blocks);
        charts = List.copyOf(charts);
    }

    /** The tables among the blocks, in order: what the console prints. */
    public List<Table> tables() {
        return blocks.stream().filter(Table.class::isInstance).map(Table.class::cast).toList();
    }

    /** A markdown table: {@code align} per column {@code l} (left) or {@code r} (right); a cell per column and row. */
    public record Table(String align, List<String> header, List<List<String>> rows) {

        public Table {
            header = List.copyOf(header);
            rows = rows.stream().map(List::copyOf).toList();
            if (align.length() != header.size()) {
                throw new IllegalArgumentException("align must have one letter per column, was " + align + " for "
                        + header);
            }
        }

        /** The table in markdown, lines ending with {@code \n}. */
        public String markdown() {
            String rule = align.chars().mapToObj(c -> c == 'l' ? "---|" : "---:|")
                    .collect(Collectors.joining("", "|", "\n"));
            return line(header) + rule + rows.stream().map(Table::line).collect(Collectors.joining());
        }

        private static String line(List<String> cells) {
            return cells.stream().map(c -> c.isEmpty() ? " |" : " " + c + " |")
                    .collect(Collectors.joining("", "|", "\n"));
        }
    }

    /** Builds a {@link Table} column by column and row by row. Not thread-safe. */
    public static final class TableBuilder {
        private final StringBuilder align = new StringBuilder();
        private final List<String> header = new ArrayList<>();
        private final List<List<String>> rows = new ArrayList<>();

        public TableBuilder left(String... names) {
            return add('l', names);
        }

        public TableBuilder right(String... names) {
            return add('r', names);
        }

        private TableBuilder add(char a, String... names) {
            align.append(String.valueOf(a).repeat(names.length));
            header.addAll(List.of(names));
            return this;
        }

        /** Adds a row; numbers are written as {@link #cell} writes them, a list as one cell per element. */
        public TableBuilder row(List<?> cells) {
            rows.add(cells.stream().flatMap(c -> c instanceof List<?> list ? list.stream() : Stream.of(c))
                    .map(TableBuilder::cell).toList());
            return this;
        }

        public Table build() {
            return new Table(align.toString(), header, rows);
        }

        /** A cell: integers as they are, NaN as {@code n/a}, other numbers with 3 decimals, the rest as text. */
        static String cell(Object value) {
            return value instanceof Double d ? num("%.3f", d) : String.valueOf(value);
        }
    }

    public static TableBuilder table() {
        return new TableBuilder();
    }

    /** {@code value} with {@code format}, or {@code n/a} when it is NaN. */
    public static String num(String format, double value) {
        return Double.isNaN(value) ? "n/a" : format(format, value);
    }

    /**
     * {@link String#format} in {@link Locale#ROOT}, a figure not observed (NaN) as {@code n/a}: what every report
     * and console line of a scenario uses.
     */
    public static String format(String format, Object... args) {
        return String.format(Locale.ROOT, format, args).replaceAll("\\bNaN\\b", "n/a");
    }

    /** {@code A1 60, A2 55}: a map's entries, comma-separated. */
    public static String entries(Map<String, ?> map) {
        return map.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
    }
}
