package io.github.agentlb.loadgen.cli;

import io.github.agentlb.loadgen.scenario.FailureReport;
import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.scenario.JobScenario;
import io.github.agentlb.loadgen.stats.PidTrace;
import io.github.agentlb.loadgen.stats.RunReport;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * Everything one command ran, for {@code report.md} and the console's closing summary.
 *
 * @param reports     the uniform and heterogeneous runs (or the one {@code --url} run), in run order
 * @param convergence the pid balancer's trace to chart, or {@code null}
 * @param hotKeys     the hotkey scenario's runs; empty when it did not run
 * @param hotKeyNanos wall time of the hotkey scenario, ns
 * @param failures    the failure and hang scenarios' runs; empty when none ran
 * @param faultsNanos wall time of the failure and hang scenarios, ns
 * @param sections    what each {@link JobScenario} ran and how long it took, in run order; empty when none ran
 */
record JobResults(List<RunReport> reports, PidTrace convergence, List<HotKeyScenario.HotKeyRun> hotKeys,
                  long hotKeyNanos, List<FailureReport> failures, long faultsNanos, List<TimedSection> sections) {

    /**
     * What a job scenario ran and its wall time, measured around its run by the command, as the
     * hotkey and fault scenarios' are, so that no scenario times itself. Immutable.
     *
     * @param section what it ran
     * @param nanos   its wall time, ns
     */
    record TimedSection(JobScenario.Section section, long nanos) {
        TimedSection {
            Objects.requireNonNull(section, "section");
        }

        /**
         * Runs {@code run} on this thread and times it.
         *
         * @throws Exception what {@code run} threw
         */
        static TimedSection of(Callable<JobScenario.Section> run) throws Exception {
            long startNanos = System.nanoTime();
            JobScenario.Section section = run.call();
            return new TimedSection(section, System.nanoTime() - startNanos);
        }
    }

    /** The results of a single {@code --url} run. */
    static JobResults of(RunReport report) {
        return new JobResults(List.of(report), null, List.of(), 0, List.of(), 0, List.of());
    }

    /** The results of a job scenario's single {@code --url} run. */
    static JobResults of(TimedSection section) {
        return new JobResults(List.of(), null, List.of(), 0, List.of(), 0, List.of(section));
    }

    /** Requests that failed or timed out, over every run. */
    long failedRequests() {
        return reports.stream().mapToLong(r -> r.statistics().errors() + r.statistics().timeouts()).sum()
                + hotKeys.stream().mapToLong(r -> r.report().statistics().errors() + r.report().statistics().timeouts())
                        .sum()
                + failures.stream().mapToLong(FailureReport::clientErrors).sum()
                + sections.stream().mapToLong(s -> s.section().clientErrors()).sum();
    }
}
