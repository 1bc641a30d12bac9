package io.github.agentlb.loadgen.cli;

import io.github.agentlb.loadgen.scenario.FailureReport;
import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.scenario.JobScenario;
import io.github.agentlb.loadgen.stats.PidTrace;
import io.github.agentlb.loadgen.stats.RunReport;
import java.util.List;

/**
 * Everything one command ran, for {@code report.md} and the console's closing summary.
 *
 * @param reports     the uniform and heterogeneous runs (or the one {@code --url} run), in run order
 * @param convergence the pid balancer's trace to chart, or {@code null}
 * @param hotKeys     the hotkey scenario's runs; empty when it did not run
 * @param hotKeyNanos wall time of the hotkey scenario, ns
 * @param failures    the failure and hang scenarios' runs; empty when none ran
 * @param faultsNanos wall time of the failure and hang scenarios, ns
 * @param sections    what each {@link JobScenario} ran, in run order; empty when none ran
 */
record JobResults(List<RunReport> reports, PidTrace convergence, List<HotKeyScenario.HotKeyRun> hotKeys,
                  long hotKeyNanos, List<FailureReport> failures, long faultsNanos, List<JobScenario.Section> sections) {

    /** The results of a single {@code --url} run. */
    static JobResults of(RunReport report) {
        return new JobResults(List.of(report), null, List.of(), 0, List.of(), 0, List.of());
    }

    /** The results of a job scenario's single {@code --url} run. */
    static JobResults of(JobScenario.Section section) {
        return new JobResults(List.of(), null, List.of(), 0, List.of(), 0, List.of(section));
    }

    /** Requests that failed or timed out, over every run. */
    long failedRequests() {
        return reports.stream().mapToLong(r -> r.statistics().errors() + r.statistics().timeouts()).sum()
                + hotKeys.stream().mapToLong(r -> r.report().statistics().errors() + r.report().statistics().timeouts())
                        .sum()
                + failures.stream().mapToLong(FailureReport::clientErrors).sum()
                + sections.stream().mapToLong(JobScenario.Section::clientErrors).sum();
    }
}
