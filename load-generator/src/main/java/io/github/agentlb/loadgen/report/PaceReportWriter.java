package io.github.agentlb.loadgen.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.loadgen.stats.IntervalSeries;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.SoakVerdict;
import java.util.List;
import java.util.Locale;

/**
 * The pacing parts of {@code report.md} and the JSON reports: per run, how it was paced and the
 * generator's self-check; per time-bound run a soak section with its intervals, verdict and chart.
 * Stateless and thread-safe.
 */
final class PaceReportWriter {

    private PaceReportWriter() {
    }

    /** The "Pacing and self-check" section and the soak sections; empty when no run has a pace report. */
    static String markdown(List<RunReport> reports) {
        List<RunReport> paced = reports.stream().filter(r -> r.pace() != null).toList();
        if (paced.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("## Pacing and self-check\n\n");
        sb.append("Whether the generator kept pace, so that its throughput is the system's: late sends of the open "
                + "loop (more than " + PacingCheck.LATE_THRESHOLD_NANOS / 1_000_000 + " ms after the intended time; "
                + "behind when over " + pct(PacingCheck.MAX_LATE_SHARE) + " of the sends), the closed loop's "
                + "workers' time between an answer and their next send (behind over " + pct(PacingCheck.MAX_GAP_SHARE)
                + "), and the JVM's CPU (CPU-bound from " + pct(PacingCheck.MAX_CPU_SHARE) + " of the cores). "
                + "Open-loop latencies count from each request's intended send time, recorded in HdrHistogram: "
                + "free of coordinated omission by construction.\n\n");
        for (RunReport r : paced) {
            sb.append("- `").append(r.strategy()).append("` (").append(r.scenario().label()).append("), ")
                    .append(r.pace().pacing().describe(r.config())).append(": ")
                    .append(String.join(" ", r.pace().selfCheckLines(r.statistics().successes()))).append('\n');
        }
        sb.append('\n');
        for (RunReport r : paced) {
            if (r.pace().verdict() != null) {
                sb.append(soak(r));
            }
        }
        return sb.toString();
    }

    private static String soak(RunReport r) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "## Soak: %s, %s scenario%n%n%s.%n%n",
                r.strategy(), r.scenario().label(), r.pace().pacing().describe(r.config())));
        sb.append(r.pace().verdict().line()).append(".\n\n");
        boolean jvm = r.pace().intervals().stream().anyMatch(i -> !Double.isNaN(i.heapAfterGcMb()));
        sb.append("| interval | requests | req/s | errors | timeouts | p50 ms | p99 ms |")
                .append(jvm ? " heap after GC MB | threads |" : "").append('\n');
        sb.append("|---|---:|---:|---:|---:|---:|---:|").append(jvm ? "---:|---:|" : "").append('\n');
        for (IntervalSeries.Interval i : r.pace().intervals()) {
            sb.append(String.format(Locale.ROOT, "| %.0f-%.0f s | %d | %.1f | %d | %d | %.1f | %.1f |",
                    i.startSeconds(), i.startSeconds() + i.lengthSeconds(), i.requests(), i.throughputRps(), i.errors(),
                    i.timeouts(), i.p50Ms(), i.p99Ms()));
            if (jvm) {
                sb.append(Double.isNaN(i.heapAfterGcMb()) ? " | |"
                        : String.format(Locale.ROOT, " %.1f | %d |", i.heapAfterGcMb(), i.liveThreads()));
            }
            sb.append('\n');
        }
        sb.append("\nEach request counts in the interval in which its answer (or failure) came; latencies of answered "
                + "requests").append(r.pace().pacing().openLoop() ? ", from their intended send times" : "")
                .append(". Heap after GC and threads: the last sample in the interval, of this JVM (embedded runs: the "
                        + "proxy's, with the agents and the generator).\n\n");
        sb.append("![soak ").append(r.strategy()).append("](").append(SoakChart.fileName(r.scenario(), r.strategy()))
                .append(")\n\n");
        return sb.toString();
    }

    /** Adds {@code pacing}, {@code self_check} and for a time-bound run {@code intervals} and {@code verdict}. */
    static void putJson(ObjectNode root, PaceReport pace) {
        if (pace == null) {
            return;
        }
        ObjectNode pacing = root.putObject("pacing");
        pacing.put("open_loop", pace.pacing().openLoop());
        pacing.put("rate_per_second", pace.pacing().ratePerSecond());
        if (pace.pacing().timed()) {
            pacing.put("duration_s", pace.pacing().duration().toMillis() / 1e3);
            pacing.put("interval_s", pace.pacing().interval().toMillis() / 1e3);
        }
        PacingCheck.Result c = pace.selfCheck();
        ObjectNode check = root.putObject("self_check");
        check.put("kept_pace", c.keptPace());
        check.put("sends", c.sends());
        check.put("late_sends", c.lateSends());
        check.put("p99_lag_ms", c.p99LagMs());
        check.put("max_lag_ms", c.maxLagMs());
        check.put("worker_gap_share", c.gapShare());
        check.put("p99_worker_gap_ms", c.p99GapMs());
        if (!Double.isNaN(c.cpuShare())) {
            check.put("jvm_cpu_share", c.cpuShare());
        }
        check.put("cores", c.cores());
        if (pace.verdict() == null) {
            return;
        }
        ArrayNode intervals = root.putArray("intervals");
        for (IntervalSeries.Interval i : pace.intervals()) {
            ObjectNode n = intervals.addObject();
            n.put("start_s", i.startSeconds());
            n.put("length_s", i.lengthSeconds());
            n.put("requests", i.requests());
            n.put("successes", i.successes());
            n.put("errors", i.errors());
            n.put("timeouts", i.timeouts());
            n.put("throughput_rps", i.throughputRps());
            n.put("p50_ms", i.p50Ms());
            n.put("p99_ms", i.p99Ms());
            if (!Double.isNaN(i.heapAfterGcMb())) {
                n.put("heap_after_gc_mb", i.heapAfterGcMb());
                n.put("live_threads", i.liveThreads());
            }
        }
        SoakVerdict v = pace.verdict();
        ObjectNode verdict = root.putObject("verdict");
        verdict.put("pass", v.pass());
        verdict.put("failures", v.failures());
        verdict.put("window_s", v.windowSec());
        verdict.put("first_p99_ms", v.firstP99Ms());
        verdict.put("last_p99_ms", v.lastP99Ms());
        verdict.put("latency_drift", v.latencyDrift());
        if (v.heapMeasured()) {
            verdict.put("first_heap_after_gc_mb", v.firstHeapMb());
            verdict.put("last_heap_after_gc_mb", v.lastHeapMb());
            verdict.put("heap_drift", v.heapDrift());
        }
        verdict.put("line", v.line());
    }

    private static String pct(double share) {
        return String.format(Locale.ROOT, "%.0f%%", 100 * share);
    }
}
