package io.github.agentlb.loadgen;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.core.pid.PidWeights;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The load generator's command line.
 *
 * <p>Without {@code --url} it runs the main job: for each {@link Scenario} (uniform, then
 * heterogeneous) and each strategy in turn it starts three stub agents and the demo proxy in this
 * JVM on free loopback ports, sends {@code --warmup} requests that are not counted, then the
 * measured load while sampling each agent's utilization, stops them, and writes each run's report
 * and chart; then {@code report.md} with one table per scenario, and for {@code pid} the weights'
 * convergence chart (of the heterogeneous run when both ran). Then the {@link HotKeyScenario}
 * (user 0 sends {@code --hot-share}, default 0.2, of the requests; {@code ch} and {@code avn},
 * each plain and bounded, at the same time), with its section in {@code report.md}. Then, for each {@link Fault}
 * (failure, then hang) and strategy, the {@link FailureScenario}: agent A1 down from 1/3 to 2/3 of
 * {@code --failure-requests}, with a section per fault in {@code report.md}. With {@code --url} it
 * loads a balancer that is already running, once, under the label given by {@code --strategy}.
 *
 * <p>{@code --replicas N} starts N proxies (each its own balancer) over the same agents in each
 * in-process closed-loop run, request {@code i} going to replica {@code i mod N}.
 *
 * <p>Warm-up ({@link LoadTestConfig#warmupConfig()}): the first {@code min(users, warmup)} users
 * of the measured run, so a balancer learns about the traffic then measured; consistent-hash
 * stickiness is counted on the measured run alone, so it is unaffected. Sent with {@code --url} too.
 *
 * <p>Exit codes: 0 when every request was answered; 1 when any request failed or timed out (the
 * reports are still written) or the run could not be carried out; 2 for invalid arguments.
 */
@Command(name = "load-generator", mixinStandardHelpOptions = true, version = "load-generator 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Sends a seeded load through a balancer and reports how it spread: requests per agent, "
                    + "spread, variance, CV, stickiness, latency percentiles, per-agent utilization; writes "
                    + "report-[<scenario>-]<strategy>.json, distribution_[<scenario>_]<strategy>.png, report.md "
                    + "and, for pid, pid_convergence.png/.csv into --out (the scenario appears in file names "
                    + "except for uniform); for the hotkey scenario report-hotkey-<balancer>.json and hotkey.png; "
                    + "for the failure and hang scenarios report-<fault>-<strategy>.json and "
                    + "timeline_<fault>_<strategy>.png.",
            "Without --url: for each scenario and strategy, starts agents A1-A3 and the demo proxy in-process "
                    + "on free ports."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:every request was answered",
            "1:some request failed or timed out (reports still written), or the run failed",
            "2:invalid arguments"})
public final class LoadGeneratorMain implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--url", paramLabel = "URL",
            description = "Base URL of a running balancer, e.g. http://localhost:8000. "
                    + "Default: start agents and balancer in-process for each strategy.")
    private String url;

    @Option(names = "--strategy", split = ",", paramLabel = "NAME",
            description = "Strategies to run, comma-separated, from: ${COMPLETION-CANDIDATES}; default all, in that "
                    + "order. With --url: exactly one label naming the running balancer's strategy (required).",
            completionCandidates = StrategyNames.class)
    private List<String> strategies;

    @Option(names = "--scenario", split = ",", paramLabel = "SCENARIO",
            description = "Scenarios of the in-process runs, comma-separated: uniform, heterogeneous (the agents), "
                    + "hotkey (uniform agents, user 0 sends --hot-share of the requests, default "
                    + HotKeyScenario.DEFAULT_HOT_SHARE + "; ch and avn each plain and bounded at balance factor "
                    + HotKeyScenario.BALANCE_FACTOR + ", run at the same time), "
                    + "failure (agent A1 refuses connections from 1/3 to 2/3 of the run), hang (A1 accepts and never "
                    + "answers meanwhile), or all (default: all, in that order; with --url: uniform or heterogeneous, "
                    + "a label only).")
    private List<String> scenario;

    @Option(names = "--failure-requests", paramLabel = "N", defaultValue = "" + FailureScenario.DEFAULT_REQUESTS,
            description = "Requests per strategy of the failure and hang scenarios, >= 3 (default: ${DEFAULT-VALUE}).")
    private int failureRequests;

    @Option(names = "--failure-users", paramLabel = "N", defaultValue = "" + FailureScenario.DEFAULT_USERS,
            description = "Distinct user_ids of the failure and hang scenarios (default: ${DEFAULT-VALUE}).")
    private int failureUsers;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_WARMUP,
            description = "Warm-up requests before each measured run, not counted (default: ${DEFAULT-VALUE}; 0 = none).")
    private int warmup;

    @Option(names = "--requests", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_REQUESTS,
            description = "Requests per strategy (default: ${DEFAULT-VALUE}).")
    private int requests;

    @Option(names = "--users", paramLabel = "N",
            description = "Distinct user_ids besides the hot user, sharing the requests evenly (default: "
                    + LoadTestConfig.DEFAULT_USERS + ", or a tenth of their requests when they are fewer than "
                    + LoadTestConfig.DEFAULT_USERS + ", so that each user sends 10).")
    private Integer users;

    @Option(names = "--hot-share", paramLabel = "F",
            description = "User 0 sends this share of all requests, 0 <= F < 1, in the seeded order; users 1..N "
                    + "share the rest (default: 0, none; " + HotKeyScenario.DEFAULT_HOT_SHARE + " in the hotkey scenario).")
    private Double hotShare;

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "1",
            description = "In-process runs: N proxies, each with its own balancer, over the same agents; request i "
                    + "goes to replica i mod N (default: ${DEFAULT-VALUE}). Stickiness then counts a user as sticky "
                    + "only if every replica sent it to the same agent. Not with --url, --rate/--duration, failure or hang; "
                    + "without --scenario it runs uniform, heterogeneous and hotkey.")
    private int replicas;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_CONCURRENCY,
            description = "Concurrent workers (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_SEED,
            description = "Seed of the request order and the agents' delays (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "" + LoadTestConfig.DEFAULT_TIMEOUT_MS,
            description = "Per-request timeout, ms (default: ${DEFAULT-VALUE}).")
    private long timeoutMs;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Output directory (default: " + DEFAULT_OUT + ", or " + DEFAULT_URL_OUT + " with --url, "
                    + "so that a run against a running balancer does not replace the main job's files).")
    private Path out;

    @Mixin
    private PacingOptions pacingOptions = new PacingOptions();

    @Option(names = "--agent-delay-min-ms", paramLabel = "MS", defaultValue = "" + AgentConfig.DEFAULT_DELAY_MIN_MS,
            description = "In-process agents: shortest service delay, ms (default: ${DEFAULT-VALUE}).")
    private int agentDelayMinMs;

    @Option(names = "--agent-delay-max-ms", paramLabel = "MS", defaultValue = "" + AgentConfig.DEFAULT_DELAY_MAX_MS,
            description = "In-process agents: longest service delay, ms (default: ${DEFAULT-VALUE}).")
    private int agentDelayMaxMs;

    /** How often each embedded agent's utilization is sampled during the measured run. */
    static final Duration UTILIZATION_SAMPLE_PERIOD = Duration.ofMillis(100);
    /** How often the pid balancer's weights and utilizations are sampled: twice per control period, so no step is missed. */
    static final Duration PID_SAMPLE_PERIOD = PidWeightsConfig.DEFAULT_CONTROL_PERIOD.dividedBy(2);
    private static final String ALL_SCENARIOS = "all";
    /** Output directory of the main job. */
    static final String DEFAULT_OUT = "results";
    /** Output directory of a {@code --url} run. */
    static final String DEFAULT_URL_OUT = "results/url";

    private final PrintStream stdout;

    /** A command printing progress and results to {@code stdout}. */
    public LoadGeneratorMain(PrintStream stdout) {
        this.stdout = stdout;
    }

    /** Runs the command line and exits with its exit code. */
    public static void main(String[] args) {
        System.exit(execute(System.out, System.err, args));
    }

    /**
     * Runs the command line without exiting.
     *
     * @return the exit code: 0, 1 or 2 as documented on the class
     */
    public static int execute(PrintStream out, PrintStream err, String... args) {
        // XChart draws through AWT; set before any AWT class loads, whatever the machine has.
        System.setProperty("java.awt.headless", "true");
        CommandLine cli = new CommandLine(new LoadGeneratorMain(out)).setCaseInsensitiveEnumValuesAllowed(true);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        long startNanos = System.nanoTime();
        if (replicas < 1) {
            throw usage("--replicas must be >= 1, was " + replicas);
        }
        LoadTestConfig config = validatedConfig(hotShare == null ? 0 : hotShare);
        Pacing pacing = validatedPacing();
        List<Scenario> scenarios = new ArrayList<>();
        List<Fault> faults = new ArrayList<>();
        boolean hotkey = validatedScenarios(scenarios, faults);
        if (!pacing.isDefault() && (!faults.isEmpty() || hotkey)) {
            throw usage("--rate and --duration run the uniform or heterogeneous scenario, not hotkey, failure or hang");
        }
        if (replicas > 1 && (url != null || !pacing.isDefault() || !faults.isEmpty())) {
            throw usage("--replicas " + replicas + " runs the uniform, heterogeneous and hotkey scenarios in-process "
                    + "in a closed loop: not with --url, --rate, --duration, failure or hang");
        }
        LoadTestConfig hotConfig = hotkey
                ? validatedConfig(hotShare == null ? HotKeyScenario.DEFAULT_HOT_SHARE : hotShare) : null;
        LoadTestConfig faultConfig = faults.isEmpty() ? null : validatedFaultConfig();
        out = outputDirectory(out, url != null);
        ReportWriter writer = new ReportWriter(out);
        List<RunReport> reports = new ArrayList<>();
        List<FailureReport> failures = new ArrayList<>();
        long faultsNanos = 0;
        long hotKeyNanos = 0;
        List<HotKeyScenario.HotKeyRun> hotKeys = List.of();
        List<String> files = new ArrayList<>(List.of(ReportWriter.MARKDOWN_FILE));
        PidTrace convergence = null;
        PacedJob paced = new PacedJob(stdout, config, pacing, writer);
        if (url != null) {
            reports.add(pacing.isDefault() ? runAgainst(baseUrl(), validatedLabel(), scenarios.get(0), config, writer)
                    : paced.runAgainst(baseUrl(), validatedLabel(), scenarios.get(0)));
        } else {
            AgentConfig template = validatedAgentTemplate();
            List<String> names = validatedStrategies();
            List<HotKeyScenario.Variant> variants = hotkey ? HotKeyScenario.variants(names) : List.of();
            if (variants.isEmpty() && scenario != null
                    && scenario.stream().anyMatch(c -> c.trim().equalsIgnoreCase(HotKeyScenario.LABEL))) {
                throw usage("--scenario hotkey runs ch and avn (each plain and bounded); --strategy named neither: "
                        + String.join(",", names));
            }
            for (Scenario s : scenarios) {
                for (String strategy : names) {
                    if (!pacing.isDefault()) {
                        reports.add(paced.runEmbedded(strategy, s, template, seed));
                        continue;
                    }
                    EmbeddedRun run = runEmbedded(strategy, s, template, config, writer);
                    reports.add(run.report());
                    if (run.pidTrace() != null && (convergence == null || s == Scenario.HETEROGENEOUS)) {
                        convergence = run.pidTrace();
                    }
                }
            }
            long hotKeyStartNanos = System.nanoTime();
            if (!variants.isEmpty()) {
                hotKeys = new HotKeyScenario(template, seed, hotConfig, replicas, stdout).run(variants);
                HotKeyReportWriter.write(hotKeys, out);
            }
            hotKeyNanos = System.nanoTime() - hotKeyStartNanos;
            long faultsStartNanos = System.nanoTime();
            for (Fault fault : faults) {
                FailureScenario scenarioRun = new FailureScenario(fault, template, seed, faultConfig, stdout);
                for (String strategy : names) {
                    FailureReport report = scenarioRun.run(strategy);
                    FailureReportWriter.write(report, out);
                    stdout.print(FailureReportWriter.summary(report));
                    failures.add(report);
                }
            }
            faultsNanos = System.nanoTime() - faultsStartNanos;
        }
        if (convergence != null) {
            PidConvergenceChart.write(convergence, out);
            files.add(PidConvergenceChart.PNG_FILE);
            files.add(PidConvergenceChart.CSV_FILE);
        }
        writer.writeComparison(reports, convergence != null, failures, hotKeys);
        for (Scenario s : scenarios) {
            List<RunReport> ofScenario = reports.stream().filter(r -> r.scenario() == s).toList();
            if (!ofScenario.isEmpty()) {
                stdout.println();
                stdout.println("Scenario " + s.label() + ":");
                stdout.print(ComparisonTable.render(ofScenario));
            }
        }
        if (!hotKeys.isEmpty()) {
            stdout.println();
            stdout.println("Scenario " + HotKeyScenario.LABEL + ":");
            stdout.print(HotKeyReportWriter.table(hotKeys));
        }
        if (!failures.isEmpty()) {
            stdout.println();
            stdout.print(FailureReportWriter.markdown(failures));
        }
        stdout.println();
        reports.forEach(r -> {
            files.add(ReportWriter.jsonFileName(r.scenario(), r.strategy()));
            files.add(DistributionChart.fileName(r.scenario(), r.strategy()));
            if (pacing.timed()) {
                files.add(SoakChart.fileName(r.scenario(), r.strategy()));
            }
        });
        hotKeys.forEach(r -> files.add(HotKeyReportWriter.jsonFileName(r.variant().label())));
        if (!hotKeys.isEmpty()) {
            files.add(HotKeyChart.PNG_FILE);
        }
        failures.forEach(r -> {
            files.add(FailureReportWriter.jsonFileName(r.fault(), r.strategy()));
            files.add(TimelineChart.fileName(r.fault(), r.strategy()));
        });
        stdout.println("Results in " + out.toAbsolutePath().normalize() + ": " + String.join(", ", files));
        List<String> parts = new ArrayList<>();
        if (!hotKeys.isEmpty()) {
            parts.add(String.format(Locale.ROOT, "hotkey scenario %.0f s", hotKeyNanos / 1e9));
        }
        if (!failures.isEmpty()) {
            parts.add(String.format(Locale.ROOT, "fault scenarios %.0f s", faultsNanos / 1e9));
        }
        stdout.printf(Locale.ROOT, "Total time %.0f s%s.%n", (System.nanoTime() - startNanos) / 1e9,
                parts.isEmpty() ? "" : ", of which " + String.join(", ", parts));
        long failed = reports.stream().mapToLong(r -> r.statistics().errors() + r.statistics().timeouts()).sum()
                + hotKeys.stream().mapToLong(r -> r.report().statistics().errors() + r.report().statistics().timeouts())
                        .sum()
                + failures.stream().mapToLong(FailureReport::clientErrors).sum();
        if (failed > 0) {
            stdout.println(failed + " request(s) failed or timed out: exit code 1.");
            return 1;
        }
        return 0;
    }

    /** One embedded run's report and, for {@code pid}, its balancer's trace. */
    private record EmbeddedRun(RunReport report, PidTrace pidTrace) {
    }

    /**
     * Starts the scenario's agents and the proxy, warms up, then sends the measured load while
     * sampling each agent's utilization every {@link #UTILIZATION_SAMPLE_PERIOD} and, for
     * {@code pid}, the balancer's weights every {@link #PID_SAMPLE_PERIOD} from the proxy's start.
     */
    private EmbeddedRun runEmbedded(String strategy, Scenario scenario, AgentConfig template, LoadTestConfig config,
                                    ReportWriter writer) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(scenario, template, seed,
                ProxyConfig.builder().strategy(strategy), () -> Strategies.create(strategy), replicas)) {
            String target = String.join(", ", cluster.baseUrls());
            stdout.printf(Locale.ROOT, "== %s, %s scenario: agents %s (%d-%d ms) behind the demo proxy at %s%n",
                    strategy, scenario.label(), String.join(", ", cluster.agentIds()), template.delayMinMs(),
                    template.delayMaxMs(), target);
            PidTrace trace = cluster.balancer() instanceof PidWeightedLB ? new PidTrace(scenario.label()) : null;
            long startNanos = System.nanoTime();
            try (PeriodicSampler pidSampler = trace == null ? null : PeriodicSampler.start("pid", PID_SAMPLE_PERIOD,
                    () -> samplePid((PidWeightedLB) cluster.balancer(), cluster, trace, startNanos))) {
                if (config.warmupConfig().isPresent()) {
                    new RunConsole(stdout).warmUp(strategy, cluster.baseUrls(), config.warmupConfig().get());
                    if (trace != null) {
                        trace.markWarmupEnd((System.nanoTime() - startNanos) / 1e9);
                    }
                }
                Map<String, UtilizationSeries> series = new TreeMap<>();
                cluster.agents().forEach(a -> series.put(a.config().agentId(), new UtilizationSeries()));
                LoadRunner.RunResult result;
                try (PeriodicSampler utilization = PeriodicSampler.start("utilization", UTILIZATION_SAMPLE_PERIOD,
                        () -> sampleUtilization(cluster, series))) {
                    result = new LoadRunner(config, stdout).run(cluster.baseUrls(), strategy, started -> { });
                }
                RunStatistics stats = RunStatistics.of(result.outcomes(), cluster.agentIds(), result.durationNanos());
                AvnSummary avn = cluster.balancer() instanceof AdaptiveVirtualNodeLB lb
                        ? new AvnSummary(cluster.byAgentId(lb.virtualNodes()), lb.imbalanceIndex(), lb.reallocations())
                        : null;
                RunReport report = new RunReport(strategy, scenario, target, true, config, stats,
                        UtilizationSummary.of(series), avn, PaceReport.counted(Pacing.CLOSED_COUNTED, result.selfCheck()));
                return new EmbeddedRun(new RunConsole(stdout).written(report, writer), trace);
            }
        }
    }

    private static void sampleUtilization(EmbeddedCluster cluster, Map<String, UtilizationSeries> series) {
        for (StubAgent agent : cluster.agents()) {
            series.get(agent.config().agentId()).add(System.nanoTime(), agent.load().utilization());
        }
    }

    private static void samplePid(PidWeightedLB balancer, EmbeddedCluster cluster, PidTrace trace, long startNanos) {
        PidWeights weights = balancer.weights();
        trace.record((System.nanoTime() - startNanos) / 1e9, cluster.byAgentId(weights.weights()),
                cluster.byAgentId(weights.utilizations()));
    }

    private RunReport runAgainst(String target, String label, Scenario scenario, LoadTestConfig config,
                                 ReportWriter writer) throws Exception {
        stdout.printf("== %s: balancer at %s%n", label, target);
        if (config.warmupConfig().isPresent()) {
            new RunConsole(stdout).warmUp(label, target, config.warmupConfig().get());
        }
        LoadRunner.RunResult result = new LoadRunner(config, stdout).run(target, label);
        RunStatistics stats = RunStatistics.of(result.outcomes(), List.of(), result.durationNanos());
        if (stats.successes() == 0) {
            stdout.println(nothingSucceeded(stats, target));
        }
        return new RunConsole(stdout).written(new RunReport(label, scenario, target, false, config, stats, null, null,
                PaceReport.counted(Pacing.CLOSED_COUNTED, result.selfCheck())), writer);
    }

    /** {@code out} if given, else {@value #DEFAULT_URL_OUT} for a {@code --url} run and {@value #DEFAULT_OUT} otherwise. */
    static Path outputDirectory(Path out, boolean againstUrl) {
        return out != null ? out : Path.of(againstUrl ? DEFAULT_URL_OUT : DEFAULT_OUT);
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

    /**
     * The load of a run with hot share {@code share}: {@code --users}, or when not given
     * {@link #defaultUsers} of the requests left to users 1..N (printed when scaled down).
     */
    private LoadTestConfig validatedConfig(double share) {
        if (!(share >= 0 && share < 1)) {
            throw usage("--hot-share must be >= 0 and < 1, was " + share);
        }
        int hot = requests < 1 ? 0 : Workload.hotRequests(requests, share);
        int others = requests - hot;
        int n = users != null ? users : defaultUsers(others);
        if (requests >= 1 && (n < 1 || n > others)) {
            throw usage(hot == 0
                    ? "--users must be in 1.." + requests + " (--requests " + requests + "), was " + n
                            + ": lower --users or raise --requests"
                    : "--users must be in 1.." + others + " (--requests " + requests + " less the hot user's " + hot
                            + "), was " + n + ": lower --users or --hot-share, or raise --requests");
        }
        try {
            LoadTestConfig config = LoadTestConfig.custom().requests(requests).users(n).concurrency(concurrency)
                    .seed(seed).timeoutMs(timeoutMs).warmup(warmup).hotShare(share).build();
            if (users == null && n != LoadTestConfig.DEFAULT_USERS) {
                stdout.printf(Locale.ROOT, "--users not given: %d users sharing %d requests%n", n, others);
            }
            return config;
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /**
     * Users when {@code --users} is not given: {@value LoadTestConfig#DEFAULT_USERS}, or a tenth of
     * {@code requests} (at least 1) when there are fewer than that many users' requests, so that
     * each user still sends about 10 and stickiness means something.
     */
    static int defaultUsers(int requests) {
        return requests >= LoadTestConfig.DEFAULT_USERS ? LoadTestConfig.DEFAULT_USERS : Math.max(1, requests / 10);
    }

    private Pacing validatedPacing() {
        try {
            return pacingOptions.pacing();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /**
     * Fills {@code scenarios} and {@code faults} with what to run, in the order of
     * {@link Scenario} and {@link Fault}: all by default; with --url exactly one scenario, a label.
     */
    private boolean validatedScenarios(List<Scenario> scenarios, List<Fault> faults) {
        boolean defaultPacing = pacingOptions.rate == null && pacingOptions.duration == null;
        List<String> choices;
        if (scenario != null) {
            choices = scenario.stream().map(c -> c.trim().toLowerCase(Locale.ROOT)).toList();
        } else if (url != null || !defaultPacing) {
            choices = List.of(Scenario.UNIFORM.label());
        } else if (replicas > 1) {
            choices = List.of(Scenario.UNIFORM.label(), Scenario.HETEROGENEOUS.label(), HotKeyScenario.LABEL);
        } else {
            choices = List.of(ALL_SCENARIOS);
        }
        boolean all = choices.contains(ALL_SCENARIOS);
        for (String choice : choices) {
            boolean known = ALL_SCENARIOS.equals(choice) || HotKeyScenario.LABEL.equals(choice)
                    || Arrays.stream(Scenario.values()).anyMatch(s -> s.label().equals(choice))
                    || Arrays.stream(Fault.values()).anyMatch(f -> f.label().equals(choice));
            if (!known) {
                throw usage("--scenario must be uniform, heterogeneous, hotkey, failure, hang or all, was '"
                        + choice + "'");
            }
        }
        Arrays.stream(Scenario.values()).filter(s -> all || choices.contains(s.label())).forEach(scenarios::add);
        Arrays.stream(Fault.values()).filter(f -> all || choices.contains(f.label())).forEach(faults::add);
        boolean hotkey = all || choices.contains(HotKeyScenario.LABEL);
        if (url != null && (all || scenarios.size() != 1 || !faults.isEmpty() || hotkey)) {
            throw usage("with --url, --scenario must be one scenario (uniform or heterogeneous), was '"
                    + String.join(",", choices) + "'");
        }
        return hotkey;
    }

    private LoadTestConfig validatedFaultConfig() {
        if (failureRequests < 3) {
            throw usage("--failure-requests must be >= 3 (three phases), was " + failureRequests);
        }
        try {
            return LoadTestConfig.custom().requests(failureRequests).users(failureUsers).concurrency(concurrency)
                    .seed(seed).timeoutMs(timeoutMs).warmup(warmup).build();
        } catch (IllegalArgumentException e) {
            throw usage("failure scenario: " + e.getMessage());
        }
    }

    private AgentConfig validatedAgentTemplate() {
        try {
            return AgentConfig.custom().delayMs(agentDelayMinMs, agentDelayMaxMs).build();
        } catch (IllegalArgumentException e) {
            throw usage("agent delay: " + e.getMessage());
        }
    }

    private List<String> validatedStrategies() {
        List<String> known = Strategies.names();
        if (strategies == null || strategies.isEmpty()) {
            return known;
        }
        for (String s : strategies) {
            if (!known.contains(s)) {
                throw usage("unknown strategy '" + s + "'; known: " + String.join(", ", known));
            }
        }
        if (new HashSet<>(strategies).size() != strategies.size()) {
            throw usage("--strategy lists a strategy twice: " + String.join(",", strategies));
        }
        return List.copyOf(strategies);
    }

    private String validatedLabel() {
        if (strategies == null || strategies.size() != 1) {
            throw usage("with --url, --strategy must name the running balancer's strategy once: one of "
                    + String.join(", ", Strategies.names()) + ", or another label of 1-40 letters, digits, '_' or '-' "
                    + "(e.g. --strategy nginx); " + (strategies == null ? "it was not given"
                            : "was " + String.join(",", strategies)));
        }
        try {
            return RunReport.requireLabel(strategies.get(0));
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /** {@link #url} without a trailing slash, checked to be an absolute http(s) URL without query. */
    private String baseUrl() {
        URI uri;
        try {
            uri = URI.create(url.trim());
        } catch (IllegalArgumentException e) {
            throw usage("--url is not a URL: '" + url + "'");
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getQuery() != null || uri.getFragment() != null) {
            throw usage("--url must be http(s)://host[:port][/path] without query, was '" + url + "'");
        }
        String s = uri.toString();
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** The strategy names for the help text. */
    static final class StrategyNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Strategies.names().iterator();
        }
    }
}
