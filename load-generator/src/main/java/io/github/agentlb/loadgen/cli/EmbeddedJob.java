package io.github.agentlb.loadgen.cli;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.core.pid.PidWeights;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.report.FailureReportWriter;
import io.github.agentlb.loadgen.report.HotKeyReportWriter;
import io.github.agentlb.loadgen.report.ReportWriter;
import io.github.agentlb.loadgen.report.RunConsole;
import io.github.agentlb.loadgen.run.AgentUtilizationSampler;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.run.PeriodicSampler;
import io.github.agentlb.loadgen.run.WarmUp;
import io.github.agentlb.loadgen.scenario.FailureReport;
import io.github.agentlb.loadgen.scenario.FailureScenario;
import io.github.agentlb.loadgen.scenario.Fault;
import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.scenario.ScenarioLoad;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.PidTrace;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The main job's in-process runs, each over agents and demo proxies started in this JVM on free
 * loopback ports: per {@link Scenario} and strategy a closed-loop run (or, with {@code --rate} or
 * {@code --duration}, a {@link PacedJob} run); then the {@link HotKeyScenario}; then per
 * {@link Fault} and strategy the {@link FailureScenario}. Each run's files are written as it ends.
 * Not thread-safe; one per command.
 */
final class EmbeddedJob {

    /** How often the pid balancer's weights and utilizations are sampled: twice per control period, so no step is missed. */
    static final Duration PID_SAMPLE_PERIOD = PidWeightsConfig.DEFAULT_CONTROL_PERIOD.dividedBy(2);

    /**
     * The runs of the uniform and heterogeneous scenarios.
     *
     * @param reports     one per scenario and strategy, in run order
     * @param convergence the pid balancer's trace (of the heterogeneous run when both ran), or {@code null}
     */
    record ScenarioRuns(List<RunReport> reports, PidTrace convergence) {
    }

    private final PrintStream stdout;
    private final AgentConfig template;
    private final long seed;
    private final int replicas;
    private final ReportWriter writer;
    private final RunConsole console;

    /**
     * @param template the agents' common settings (delays)
     * @param seed     seed of the agents' delays
     * @param replicas proxies per closed-loop run, each with its own balancer, >= 1
     */
    EmbeddedJob(PrintStream stdout, AgentConfig template, long seed, int replicas, ReportWriter writer) {
        this.stdout = stdout;
        this.template = template;
        this.seed = seed;
        this.replicas = replicas;
        this.writer = writer;
        this.console = new RunConsole(stdout);
    }

    /** Runs each strategy in each scenario, closed-loop with {@code config}, or with {@code paced} when given. */
    ScenarioRuns runScenarios(List<Scenario> scenarios, List<String> strategies, LoadTestConfig config,
                              PacedJob paced) throws Exception {
        List<RunReport> reports = new ArrayList<>();
        PidTrace convergence = null;
        for (Scenario s : scenarios) {
            for (String strategy : strategies) {
                if (paced != null) {
                    reports.add(paced.runEmbedded(strategy, s, template, seed));
                    continue;
                }
                ClosedRun run = runClosed(strategy, s, config);
                reports.add(run.report());
                if (run.pidTrace() != null && (convergence == null || s == Scenario.HETEROGENEOUS)) {
                    convergence = run.pidTrace();
                }
            }
        }
        return new ScenarioRuns(reports, convergence);
    }

    /**
     * Runs the hotkey scenario's variants, if any, prints each run's summary as it ends and then
     * the shared-allocation comparison, and writes its files.
     */
    List<HotKeyScenario.HotKeyRun> runHotKey(List<HotKeyScenario.Variant> variants, LoadTestConfig hotConfig)
            throws Exception {
        if (variants.isEmpty()) {
            return List.of();
        }
        ScenarioLoad load = new ScenarioLoad(template, seed, hotConfig, stdout);
        List<HotKeyScenario.HotKeyRun> runs = new HotKeyScenario(load, replicas)
                .run(variants, run -> stdout.println(HotKeyReportWriter.summary(run)));
        stdout.print(HotKeyReportWriter.sharedComparison(runs));
        HotKeyReportWriter.write(runs, writer.directory());
        return runs;
    }

    /** Runs each fault's scenario for each strategy, writing and printing each run's summary. */
    List<FailureReport> runFaults(List<Fault> faults, List<String> strategies, LoadTestConfig faultConfig)
            throws Exception {
        List<FailureReport> failures = new ArrayList<>();
        for (Fault fault : faults) {
            FailureScenario scenarioRun = new FailureScenario(fault,
                    new ScenarioLoad(template, seed, faultConfig, stdout));
            for (String strategy : strategies) {
                FailureReport report = scenarioRun.run(strategy);
                FailureReportWriter.write(report, writer.directory());
                stdout.print(FailureReportWriter.summary(report));
                failures.add(report);
            }
        }
        return failures;
    }

    /** One closed-loop run's report and, for {@code pid}, its balancer's trace. */
    private record ClosedRun(RunReport report, PidTrace pidTrace) {
    }

    /**
     * Starts the scenario's agents and the proxies, warms up, then sends the measured load while
     * sampling each agent's utilization every {@link AgentUtilizationSampler#PERIOD} and, for
     * {@code pid}, the balancer's weights every {@link #PID_SAMPLE_PERIOD} from the proxy's start.
     */
    private ClosedRun runClosed(String strategy, Scenario scenario, LoadTestConfig config) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(scenario, template, seed,
                ProxyConfig.builder().strategy(strategy), () -> Strategies.create(strategy), replicas)) {
            String target = String.join(", ", cluster.baseUrls());
            stdout.printf(Locale.ROOT, "== %s, %s scenario: agents %s (%d-%d ms; %s) behind the demo proxy at %s%n",
                    strategy, scenario.label(), String.join(", ", cluster.agentIds()), template.delayMinMs(),
                    template.delayMaxMs(), scenario.description(), target);
            PidTrace trace = cluster.balancer() instanceof PidWeightedLB ? new PidTrace(scenario.label()) : null;
            long startNanos = System.nanoTime();
            try (PeriodicSampler pidSampler = trace == null ? null : PeriodicSampler.start("pid", PID_SAMPLE_PERIOD,
                    () -> samplePid((PidWeightedLB) cluster.balancer(), cluster, trace, startNanos))) {
                if (config.warmupConfig().isPresent()) {
                    WarmUp.send(stdout, strategy, cluster.baseUrls(), config.warmupConfig().get());
                    if (trace != null) {
                        trace.markWarmupEnd((System.nanoTime() - startNanos) / 1e9);
                    }
                }
                LoadRunner.RunResult result;
                AgentUtilizationSampler utilization = AgentUtilizationSampler.start(cluster);
                try (utilization) {
                    result = new LoadRunner(config, stdout).run(cluster.baseUrls(), strategy, started -> { });
                }
                RunStatistics stats = result.statistics(cluster.agentIds());
                RunReport report = new RunReport(strategy, scenario, target, true, config, stats,
                        utilization.summary(), cluster.avnSummary(),
                        PaceReport.counted(Pacing.CLOSED_COUNTED, result.selfCheck()));
                return new ClosedRun(console.written(report, writer), trace);
            }
        }
    }

    private static void samplePid(PidWeightedLB balancer, EmbeddedCluster cluster, PidTrace trace, long startNanos) {
        PidWeights weights = balancer.pidWeights();
        trace.record((System.nanoTime() - startNanos) / 1e9, cluster.byAgentId(weights.weights()),
                cluster.byAgentId(weights.utilizations()));
    }
}
