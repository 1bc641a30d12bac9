package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.scenario.Chart;
import io.github.agentlb.loadgen.scenario.Result;
import io.github.agentlb.loadgen.scenario.Section;
import io.github.agentlb.loadgen.stats.IntervalSeries;
import io.github.agentlb.loadgen.stats.PacingCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Writes {@code report.md}: a section per scenario run ({@link Section}), and after the last with paced runs
 * the "Pacing and self-check" section and a soak section per time-bound run. Stateless and thread-safe.
 */
public final class MarkdownReport {

    public static final String FILE = "report.md";

    public record Part(Section section, List<Result> results) {
    }

    private MarkdownReport() {
    }

    /** Writes {@link #FILE} into {@code dir}, replacing an earlier one; returns it. */
    public static Path write(Path dir, List<Part> parts) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE);
        Files.writeString(file, render(parts), StandardCharsets.UTF_8);
        return file;
    }

    public static String render(List<Part> parts) {
        StringBuilder sb = new StringBuilder("# Load test results\n\n");
        int lastPaced = IntStream.range(0, parts.size()).filter(i -> parts.get(i).results().stream()
                .anyMatch(r -> r.pace() != null)).max().orElse(-1);
        for (int i = 0; i < parts.size(); i++) {
            sb.append(section(parts.get(i).section()));
            if (i == lastPaced) {
                sb.append(pacing(parts.subList(0, i + 1).stream().flatMap(p -> p.results().stream())
                        .filter(r -> r.pace() != null).toList()));
            }
        }
        return sb.toString();
    }

    /** A section: its heading, its blocks, then a link to each chart. */
    static String section(Section s) {
        StringBuilder sb = new StringBuilder("## Scenario ").append(s.title()).append("\n\n");
        for (Object block : s.blocks()) {
            sb.append(block instanceof Section.Table t ? t.markdown() : block).append(block instanceof Section.Table
                    ? "\n" : "\n\n");
        }
        s.charts().forEach(c -> sb.append(link(c)));
        return sb.append(s.charts().isEmpty() ? "" : "\n").toString();
    }

    /** The "Pacing and self-check" section and the soak sections of {@code paced}. */
    static String pacing(List<Result> paced) {
        StringBuilder sb = new StringBuilder("## Pacing and self-check\n\n");
        sb.append("Whether the generator kept pace, so that its throughput is the system's: late sends of the open "
                + "loop (more than " + PacingCheck.LATE_THRESHOLD_NANOS / 1_000_000 + " ms after the intended time; "
                + "behind when over " + pct(PacingCheck.MAX_LATE_SHARE) + " of the sends), the closed loop's "
                + "workers' time between an answer and their next send (behind over " + pct(PacingCheck.MAX_GAP_SHARE)
                + "), and the JVM's CPU (CPU-bound from " + pct(PacingCheck.MAX_CPU_SHARE) + " of the cores). "
                + "Open-loop latencies count from each request's intended send time, recorded in HdrHistogram: "
                + "free of coordinated omission by construction.\n\n");
        for (Result r : paced) {
            sb.append("- `").append(r.variant()).append("` (").append(r.scenario()).append("), ")
                    .append(r.pace().pacing().describe(r.load())).append(": ")
                    .append(String.join(" ", r.pace().selfCheckLines(r.totals().successes()))).append('\n');
        }
        sb.append('\n');
        paced.stream().filter(r -> r.pace().verdict() != null).forEach(r -> sb.append(soak(r)));
        return sb.toString();
    }

    private static String soak(Result r) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "## Soak: %s, %s scenario%n%n%s.%n%n%s.%n%n",
                r.variant(), r.scenario(), r.pace().pacing().describe(r.load()), r.pace().verdict().line()));
        boolean jvm = r.pace().intervals().stream().anyMatch(i -> !Double.isNaN(i.heapAfterGcMb()));
        Section.TableBuilder table = Section.table().left("interval").right("requests", "req/s", "errors", "timeouts",
                "p50 ms", "p99 ms");
        if (jvm) {
            table.right("heap after GC MB", "threads");
        }
        for (IntervalSeries.Interval i : r.pace().intervals()) {
            List<String> jvmCells = !jvm ? List.of() : Double.isNaN(i.heapAfterGcMb()) ? List.of("", "")
                    : List.of(fmt(i.heapAfterGcMb()), String.valueOf(i.liveThreads()));
            table.row(List.of(String.format(Locale.ROOT, "%.0f-%.0f s", i.startSeconds(),
                    i.startSeconds() + i.lengthSeconds()), i.requests(), fmt(i.throughputRps()), i.errors(),
                    i.timeouts(), fmt(i.p50Ms()), fmt(i.p99Ms()), jvmCells));
        }
        sb.append(table.build().markdown());
        sb.append("\nEach request counts in the interval in which its answer (or failure) came; latencies of answered "
                + "requests").append(r.pace().pacing().openLoop() ? ", from their intended send times" : "")
                .append(". Heap after GC and threads: the last sample in the interval, of this JVM (embedded runs: the "
                        + "proxy's, with the agents and the generator).\n\n");
        r.charts().stream().filter(c -> c.file().startsWith("soak_")).forEach(c -> sb.append(link(c)).append('\n'));
        return sb.toString();
    }

    private static String link(Chart c) {
        return "![" + c.alt() + "](" + c.file() + ")\n";
    }

    private static String fmt(double value) {
        return Section.num("%.1f", value);
    }

    private static String pct(double share) {
        return String.format(Locale.ROOT, "%.0f%%", 100 * share);
    }
}
