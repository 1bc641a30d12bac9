package io.github.agentlb.loadgen.cli;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.report.ReportWriter;
import io.github.agentlb.loadgen.report.RunConsole;
import io.github.agentlb.loadgen.report.SoakChart;
import io.github.agentlb.loadgen.run.AgentUtilizationSampler;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.PacedRunner;
import io.github.agentlb.loadgen.run.WarmUp;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The command line's open-loop ({@code --rate}) and time-bound ({@code --duration}) runs: the
 * closed-loop warm-up, then a {@link PacedRunner} run, against a running balancer or against
 * agents and proxy started in this JVM (then also the agents' utilization, and the JVM's heap and
 * threads per interval, which are the proxy's). Writes each run's files, and its soak chart when
 * time-bound.
 */
final class PacedJob {

    private final PrintStream stdout;
    private final LoadTestConfig config;
    private final Pacing pacing;
    private final ReportWriter writer;
    private final RunConsole console;

    PacedJob(PrintStream stdout, LoadTestConfig config, Pacing pacing, ReportWriter writer) {
        this.stdout = stdout;
        this.config = config;
        this.pacing = pacing;
        this.writer = writer;
        this.console = new RunConsole(stdout);
    }

    /**
     * The least warm-up of an open-loop run against a running balancer, s at the run's rate: a
     * balancer just started compiles its request path for tens of seconds, and on a shared machine
     * the generator then falls behind its schedule (1 December: 12-20% of 4,000 sends late at
     * 400 req/s against a proxy started 12 s before, 0.1-0.25% once it had run 40 s).
     */
    static final int URL_OPEN_LOOP_WARMUP_SECONDS = 30;

    /** One run against the balancer at {@code target}, reported under {@code label}. */
    RunReport runAgainst(String target, String label, Scenario scenario) throws Exception {
        stdout.printf("== %s: balancer at %s; %s%n", label, target, pacing.describe(config));
        warmUp(label, target, pacing.openLoop() ? URL_OPEN_LOOP_WARMUP_SECONDS : 0);
        PacedRunner.Result result = new PacedRunner(config, pacing, stdout, false).run(target, label, List.of());
        return finish(new RunReport(label, scenario, target, false, config, result.statistics(), null, null,
                result.pace()));
    }

    /** One run of {@code strategy} over the scenario's agents, all started in this JVM. */
    RunReport runEmbedded(String strategy, Scenario scenario, AgentConfig template, long seed) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(strategy, scenario, template, seed)) {
            stdout.printf(Locale.ROOT, "== %s, %s scenario: agents %s behind the demo proxy at %s; %s%n", strategy,
                    scenario.label(), String.join(", ", cluster.agentIds()), cluster.baseUrl(), pacing.describe(config));
            warmUp(strategy, cluster.baseUrl(), 0);
            PacedRunner.Result result;
            AgentUtilizationSampler utilization = AgentUtilizationSampler.start(cluster);
            try (utilization) {
                result = new PacedRunner(config, pacing, stdout, true).run(cluster.baseUrl(), strategy,
                        cluster.agentIds());
            }
            return finish(new RunReport(strategy, scenario, cluster.baseUrl(), true, config, result.statistics(),
                    utilization.summary(), cluster.avnSummary(), result.pace()));
        }
    }

    /**
     * The warm-up: the closed loop's for a closed loop; for an open loop {@code --warmup} requests
     * on the same schedule, so that the asynchronous send path the run uses is compiled before it
     * is measured (a cold JVM lags its schedule by tens to hundreds of ms here).
     */
    private void warmUp(String label, String target, int leastSeconds) throws Exception {
        if (config.warmupConfig().isEmpty()) {
            return;
        }
        LoadTestConfig warm = warmupOf(config.warmupConfig().get(), pacing.ratePerSecond(), leastSeconds);
        if (!pacing.openLoop()) {
            WarmUp.send(stdout, label, List.of(target), warm);
            return;
        }
        PacedRunner.Result result = new PacedRunner(warm, new Pacing(pacing.ratePerSecond(), null, pacing.interval()),
                null, false).run(target, label + " warm-up", List.of());
        RunStatistics s = result.statistics();
        stdout.printf(Locale.ROOT, "[%s] warm-up: %d requests at %s req/s in %.1f s, %d failed (not counted)%n", label,
                s.requests(), pacing.ratePerSecond(), s.durationMs() / 1e3, s.errors() + s.timeouts());
    }

    /**
     * {@code warm}, lengthened to at least {@code leastSeconds} at {@code ratePerSecond} (req/s;
     * 0 for a closed loop, which keeps it as it is).
     */
    static LoadTestConfig warmupOf(LoadTestConfig warm, double ratePerSecond, int leastSeconds) {
        if (ratePerSecond <= 0 || leastSeconds <= 0) {
            return warm;
        }
        int requests = (int) Math.min(Integer.MAX_VALUE, Math.max(warm.requests(), Math.ceil(ratePerSecond * leastSeconds)));
        return requests == warm.requests() ? warm : new LoadTestConfig(requests, warm.users(), warm.concurrency(),
                warm.seed(), warm.timeoutMs(), requests, 0, warm.hotShare());
    }

    private RunReport finish(RunReport report) throws Exception {
        if (pacing.timed()) {
            SoakChart.write(report, writer.directory());
        }
        return console.written(report, writer);
    }
}
