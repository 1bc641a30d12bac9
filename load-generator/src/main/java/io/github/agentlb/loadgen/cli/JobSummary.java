package io.github.agentlb.loadgen.cli;

import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.report.ComparisonTable;
import io.github.agentlb.loadgen.report.DistributionChart;
import io.github.agentlb.loadgen.report.FailureReportWriter;
import io.github.agentlb.loadgen.report.HotKeyChart;
import io.github.agentlb.loadgen.report.HotKeyReportWriter;
import io.github.agentlb.loadgen.report.PidConvergenceChart;
import io.github.agentlb.loadgen.report.ReportWriter;
import io.github.agentlb.loadgen.report.SoakChart;
import io.github.agentlb.loadgen.report.TimelineChart;
import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.stats.RunReport;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The end of every command: writes the pid convergence chart and {@code report.md}, prints one
 * comparison table per scenario, the files written, the total time, and decides the exit code.
 * Not thread-safe; one per command.
 */
final class JobSummary {

    private final PrintStream stdout;
    private final ReportWriter writer;

    JobSummary(PrintStream stdout, ReportWriter writer) {
        this.stdout = stdout;
        this.writer = writer;
    }

    /**
     * Writes and prints the summary of {@code results}.
     *
     * @param scenarios  the uniform and heterogeneous scenarios run, in order of their tables
     * @param timed      whether the runs were time-bound ({@code --duration}), so each has a soak chart
     * @param startNanos {@link System#nanoTime()} when the command started
     * @return the exit code: 0 when every request was answered, 1 otherwise
     * @throws IOException if a file cannot be written
     */
    int finish(JobResults results, List<Scenario> scenarios, boolean timed, long startNanos) throws IOException {
        List<String> files = new ArrayList<>(List.of(ReportWriter.MARKDOWN_FILE));
        if (results.convergence() != null) {
            PidConvergenceChart.write(results.convergence(), writer.directory());
            files.add(PidConvergenceChart.PNG_FILE);
            files.add(PidConvergenceChart.CSV_FILE);
        }
        String hotKeySection = results.hotKeys().isEmpty() ? "" : HotKeyReportWriter.markdown(results.hotKeys());
        writer.writeComparison(results.reports(), results.convergence() != null, results.failures(), hotKeySection,
                results.sections().stream().map(s -> s.section().markdown()).toList());
        printTables(results, scenarios);
        files.addAll(fileNames(results, timed));
        stdout.println("Results in " + writer.directory().toAbsolutePath().normalize() + ": " + String.join(", ", files));
        List<String> parts = new ArrayList<>();
        if (!results.hotKeys().isEmpty()) {
            parts.add(String.format(Locale.ROOT, "hotkey scenario %.0f s", results.hotKeyNanos() / 1e9));
        }
        if (!results.failures().isEmpty()) {
            parts.add(String.format(Locale.ROOT, "fault scenarios %.0f s", results.faultsNanos() / 1e9));
        }
        results.sections().forEach(s -> parts.add(String.format(Locale.ROOT, "%s scenario %.0f s",
                s.section().label(), s.nanos() / 1e9)));
        stdout.printf(Locale.ROOT, "Total time %.0f s%s.%n", (System.nanoTime() - startNanos) / 1e9,
                parts.isEmpty() ? "" : ", of which " + String.join(", ", parts));
        long failed = results.failedRequests();
        if (failed > 0) {
            stdout.println(failed + " request(s) failed or timed out: exit code 1.");
            return 1;
        }
        return 0;
    }

    private void printTables(JobResults results, List<Scenario> scenarios) {
        for (Scenario s : scenarios) {
            List<RunReport> ofScenario = results.reports().stream().filter(r -> r.scenario() == s).toList();
            if (!ofScenario.isEmpty()) {
                stdout.println();
                stdout.println("Scenario " + s.label() + ":");
                stdout.print(ComparisonTable.render(ofScenario));
            }
        }
        if (!results.hotKeys().isEmpty()) {
            stdout.println();
            stdout.println("Scenario " + HotKeyScenario.LABEL + ":");
            stdout.print(HotKeyReportWriter.table(results.hotKeys()));
        }
        if (!results.failures().isEmpty()) {
            stdout.println();
            stdout.print(FailureReportWriter.markdown(results.failures()));
        }
        for (JobResults.TimedSection timed : results.sections()) {
            stdout.println();
            stdout.print(timed.section().table());
        }
        stdout.println();
    }

    /** The files of each run, in run order. */
    private static List<String> fileNames(JobResults results, boolean timed) {
        List<String> files = new ArrayList<>();
        results.reports().forEach(r -> {
            files.add(ReportWriter.jsonFileName(r.scenario(), r.strategy()));
            files.add(DistributionChart.fileName(r.scenario(), r.strategy()));
            if (timed) {
                files.add(SoakChart.fileName(r.scenario(), r.strategy()));
            }
        });
        results.hotKeys().forEach(r -> files.add(HotKeyReportWriter.jsonFileName(r.variant().label())));
        if (!results.hotKeys().isEmpty()) {
            files.add(HotKeyChart.PNG_FILE);
        }
        results.failures().forEach(r -> {
            files.add(FailureReportWriter.jsonFileName(r.fault(), r.strategy()));
            files.add(TimelineChart.fileName(r.fault(), r.strategy()));
        });
        results.sections().forEach(s -> files.addAll(s.section().files()));
        return files;
    }
}
