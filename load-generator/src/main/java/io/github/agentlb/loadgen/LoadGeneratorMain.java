package io.github.agentlb.loadgen;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.demo.Strategies;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
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
        PacedJob paced = new PacedJob(stdout, config, pacing, writer);
        JobResults results;
        if (url != null) {
            results = JobResults.of(pacing.isDefault()
                    ? new UrlJob(stdout, writer).run(baseUrl(), validatedLabel(), scenarios.get(0), config)
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
            EmbeddedJob job = new EmbeddedJob(stdout, template, seed, replicas, writer);
            EmbeddedJob.ScenarioRuns runs = job.runScenarios(scenarios, names, config,
                    pacing.isDefault() ? null : paced);
            long hotKeyStartNanos = System.nanoTime();
            List<HotKeyScenario.HotKeyRun> hotKeys = job.runHotKey(variants, hotConfig);
            long hotKeyNanos = System.nanoTime() - hotKeyStartNanos;
            long faultsStartNanos = System.nanoTime();
            List<FailureReport> failures = job.runFaults(faults, names, faultConfig);
            results = new JobResults(runs.reports(), runs.convergence(), hotKeys, hotKeyNanos, failures,
                    System.nanoTime() - faultsStartNanos);
        }
        return new JobSummary(stdout, writer).finish(results, scenarios, pacing.timed(), startNanos);
    }

    /** {@code out} if given, else {@value #DEFAULT_URL_OUT} for a {@code --url} run and {@value #DEFAULT_OUT} otherwise. */
    static Path outputDirectory(Path out, boolean againstUrl) {
        return out != null ? out : Path.of(againstUrl ? DEFAULT_URL_OUT : DEFAULT_OUT);
    }

    /** What to tell the user when no request of a {@code --url} run succeeded; see {@link UrlJob#nothingSucceeded}. */
    static String nothingSucceeded(RunStatistics stats, String target) {
        return UrlJob.nothingSucceeded(stats, target);
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
