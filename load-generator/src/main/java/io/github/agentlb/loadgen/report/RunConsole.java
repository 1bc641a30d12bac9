package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.run.JvmGauges;
import io.github.agentlb.loadgen.run.WarmUp;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.UtilizationSummary;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What every run mode prints and writes once a run is done (the warm-up every mode sends first is
 * {@link WarmUp}'s). Stateless apart from its output stream; not meant to be shared between threads.
 */
public final class RunConsole {

    private final PrintStream stdout;

    public RunConsole(PrintStream stdout) {
        this.stdout = stdout;
    }

    /** Writes the run's files and prints its summary, self-check and (time-bound runs) verdict. */
    public RunReport written(RunReport report, ReportWriter writer) throws IOException {
        writer.writeRun(report);
        RunStatistics s = report.statistics();
        stdout.printf(Locale.ROOT, "%s (%s): %d requests, %d errors, %d timeouts; %s; spread %d, CV %.3f, "
                        + "stickiness %.3f; p95 %.1f ms; %.1f req/s%n",
                report.strategy(), report.scenario().label(), s.requests(), s.errors(), s.timeouts(),
                answeredPerAgent(s),
                s.spread(), s.coefficientOfVariation(), s.stickiness(), s.latency().p95Ms(), s.throughputRps());
        if (report.utilization() != null) {
            UtilizationSummary u = report.utilization();
            stdout.printf(Locale.ROOT, "%s (%s): utilization %s; max/mean %.3f%n", report.strategy(),
                    report.scenario().label(), u.byAgent().entrySet().stream()
                            .map(e -> String.format(Locale.ROOT, "%s=%.3f", e.getKey(), e.getValue()))
                            .collect(Collectors.joining(" ")), u.maxOverMean());
        }
        if (report.avn() != null) {
            stdout.printf(Locale.ROOT, "%s (%s): virtual nodes %s, S %.3f, %d reallocations%n", report.strategy(),
                    report.scenario().label(), report.avn().virtualNodes(), report.avn().imbalanceIndex(),
                    report.avn().reallocations());
        }
        PaceReport pace = report.pace();
        if (pace != null) {
            if (!pace.pacing().isDefault()) {
                stdout.printf(Locale.ROOT, "%s (%s): %s; p50 %.1f ms, p99 %.1f ms%s%n", report.strategy(),
                        report.scenario().label(), pace.pacing().describe(report.config()), s.latency().p50Ms(),
                        s.latency().p99Ms(), pace.pacing().openLoop() ? " (from intended send times)" : "");
            }
            pace.selfCheckLines(s.successes()).forEach(line -> stdout.println(report.strategy() + " (" + report.scenario().label()
                    + "): " + line));
            if (s.successes() > 0 && pace.selfCheck().fellBehindSchedule()) {
                stdout.println(report.strategy() + " (" + report.scenario().label() + "): " + behindHint(
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), JvmGauges.cores()));
            }
            if (pace.verdict() != null) {
                stdout.println(report.strategy() + " (" + report.scenario().label() + "): " + pace.verdict().line());
            }
        }
        return report;
    }

    /**
     * The successful requests of each agent of {@code s} as progress lines show them, e.g.
     * {@code A1=12 A2=10 A3=0}, in the statistics' order.
     */
    public static String answeredPerAgent(RunStatistics s) {
        return s.agents().values().stream().map(a -> a.agentId() + "=" + a.count()).collect(Collectors.joining(" "));
    }

    /**
     * What to do when the open loop fell behind: the machine's load average says whether other
     * processes took the CPU the sender needed.
     */
    public static String behindHint(double loadAverage, int cores) {
        String load = loadAverage < 0 ? "" : String.format(Locale.ROOT, "the machine's load average is %.1f on %d cores; ",
                loadAverage, cores);
        return "To keep pace: " + load + "run when the machine is quieter, run the generator on another machine, "
                + "or lower --rate; a --url run already restarts its JVM with -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "
                + "unless JVM options were given.";
    }
}
