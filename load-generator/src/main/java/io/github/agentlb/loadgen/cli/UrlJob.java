package io.github.agentlb.loadgen.cli;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.report.HotKeyReportWriter;
import io.github.agentlb.loadgen.report.ReportWriter;
import io.github.agentlb.loadgen.report.RunConsole;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.run.WarmUp;
import io.github.agentlb.loadgen.stats.HotKeyStatistics;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The command line's closed-loop {@code --url} run: the warm-up, then the count-bound load against
 * a balancer that is already running, reported under the label given by {@code --strategy}; no
 * agent is started, so there is no utilization. The paced {@code --url} runs are {@link PacedJob}'s.
 * Not thread-safe; one per command.
 */
final class UrlJob {

    private final PrintStream stdout;
    private final ReportWriter writer;
    private final RunConsole console;

    UrlJob(PrintStream stdout, ReportWriter writer) {
        this.stdout = stdout;
        this.writer = writer;
        this.console = new RunConsole(stdout);
    }

    /** One run against the balancer at {@code target}; writes its files and returns its report. */
    RunReport run(String target, String label, Scenario scenario, LoadTestConfig config) throws Exception {
        stdout.printf("== %s: balancer at %s%n", label, target);
        if (config.warmupConfig().isPresent()) {
            WarmUp.send(stdout, label, List.of(target), config.warmupConfig().get());
        }
        LoadRunner.RunResult result = new LoadRunner(config, stdout).run(target, label);
        RunStatistics stats = result.statistics(List.of());
        if (stats.successes() == 0) {
            stdout.println(nothingSucceeded(stats, target));
        } else if (config.hotShare() > 0) {
            HotKeyStatistics hot = HotKeyStatistics.of(result.outcomes(), 1, o -> 0);
            stdout.printf(Locale.ROOT, "%s: max/mean %.3f, other users' stickiness %.3f, hot user %d on %s agent(s)%n",
                    label, stats.maxOverMean(), hot.othersStickiness(), Workload.HOT_USER, HotKeyReportWriter.hotUserOn(hot));
        }
        return console.written(new RunReport(label, scenario, target, false, config, stats, null, null,
                PaceReport.counted(Pacing.CLOSED_COUNTED, result.selfCheck())), writer);
    }

    /**
     * What to tell the user when no request of a {@code --url} run succeeded: that nothing
     * answered, or which HTTP answers came instead ("every request failed: 2000 x HTTP 404; ...").
     */
    static String nothingSucceeded(RunStatistics stats, String target) {
        Map<Integer, Long> answered = new TreeMap<>(stats.errorStatuses());
        Long unanswered = answered.remove(0);
        if (answered.isEmpty()) {
            return "No request was answered: is a balancer running at " + target + "?";
        }
        List<String> parts = new ArrayList<>();
        answered.forEach((status, n) -> parts.add(n + " x HTTP " + status
                + (status >= 200 && status < 300 ? " without an agent's JSON" : "")));
        if (unanswered != null) {
            parts.add(unanswered + " without an answer");
        }
        if (stats.timeouts() > 0) {
            parts.add(stats.timeouts() + " timed out");
        }
        return "Every request failed: " + String.join(", ", parts) + "; is " + target
                + " a balancer of this project (GET /process/{req_id}?user_id=N answered by an agent's JSON)?";
    }
}
