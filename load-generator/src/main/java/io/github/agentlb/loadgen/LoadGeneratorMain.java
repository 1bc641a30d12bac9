package io.github.agentlb.loadgen;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.demo.Strategies;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The load generator's command line.
 *
 * <p>Without {@code --url} it runs the main job: for each strategy in turn it starts three stub
 * agents and the demo proxy in this JVM on free loopback ports, sends the load, stops them, and
 * writes each run's report and chart, then {@code report.md} comparing them. With {@code --url} it
 * loads a balancer that is already running, once, under the label given by {@code --strategy}.
 *
 * <p>Exit codes: 0 when every request was answered; 1 when any request failed or timed out (the
 * reports are still written) or the run could not be carried out; 2 for invalid arguments.
 */
@Command(name = "load-generator", mixinStandardHelpOptions = true, version = "load-generator 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Sends a seeded load through a balancer and reports how it spread: requests per agent, "
                    + "spread, variance, CV, stickiness, latency percentiles; writes report-<strategy>.json, "
                    + "distribution_<strategy>.png and report.md into --out.",
            "Without --url: for each strategy, starts agents A1-A3 and the demo proxy in-process on free ports."},
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

    @Option(names = "--scenario", paramLabel = "SCENARIO", defaultValue = "uniform",
            description = "Agents of the in-process run: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private Scenario scenario;

    @Option(names = "--requests", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_REQUESTS,
            description = "Requests per strategy (default: ${DEFAULT-VALUE}).")
    private int requests;

    @Option(names = "--users", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_USERS,
            description = "Distinct user_ids, each sending requests/users requests (default: ${DEFAULT-VALUE}).")
    private int users;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_CONCURRENCY,
            description = "Concurrent workers (default: ${DEFAULT-VALUE}).")
    private int concurrency;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_SEED,
            description = "Seed of the request order and the agents' delays (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "" + LoadTestConfig.DEFAULT_TIMEOUT_MS,
            description = "Per-request timeout, ms (default: ${DEFAULT-VALUE}).")
    private long timeoutMs;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "results",
            description = "Output directory (default: ${DEFAULT-VALUE}).")
    private Path out;

    @Option(names = "--agent-delay-min-ms", paramLabel = "MS", defaultValue = "" + AgentConfig.DEFAULT_DELAY_MIN_MS,
            description = "In-process agents: shortest service delay, ms (default: ${DEFAULT-VALUE}).")
    private int agentDelayMinMs;

    @Option(names = "--agent-delay-max-ms", paramLabel = "MS", defaultValue = "" + AgentConfig.DEFAULT_DELAY_MAX_MS,
            description = "In-process agents: longest service delay, ms (default: ${DEFAULT-VALUE}).")
    private int agentDelayMaxMs;

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
        LoadTestConfig config = validatedConfig();
        ReportWriter writer = new ReportWriter(out);
        List<RunReport> reports = new ArrayList<>();
        if (url != null) {
            reports.add(runAgainst(baseUrl(), validatedLabel(), config, writer));
        } else {
            AgentConfig template = validatedAgentTemplate();
            for (String strategy : validatedStrategies()) {
                reports.add(runEmbedded(strategy, template, config, writer));
            }
        }
        writer.writeComparison(reports);
        stdout.println();
        stdout.print(ComparisonTable.render(reports));
        stdout.println();
        stdout.println("Results in " + out.toAbsolutePath().normalize() + ": report.md, "
                + reports.stream().map(r -> ReportWriter.jsonFileName(r.strategy()) + ", "
                        + DistributionChart.fileName(r.strategy())).collect(Collectors.joining(", ")));
        long failed = reports.stream().mapToLong(r -> r.statistics().errors() + r.statistics().timeouts()).sum();
        if (failed > 0) {
            stdout.println(failed + " request(s) failed or timed out: exit code 1.");
            return 1;
        }
        return 0;
    }

    private RunReport runEmbedded(String strategy, AgentConfig template, LoadTestConfig config, ReportWriter writer)
            throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(strategy, scenario, template, seed)) {
            stdout.printf(Locale.ROOT, "== %s: agents %s (%d-%d ms, scenario %s) behind the demo proxy at %s%n",
                    strategy, String.join(", ", cluster.agentIds()), template.delayMinMs(), template.delayMaxMs(),
                    scenario.label(), cluster.baseUrl());
            LoadRunner.RunResult result = new LoadRunner(config, stdout).run(cluster.baseUrl(), strategy);
            RunStatistics stats = RunStatistics.of(result.outcomes(), cluster.agentIds(), result.durationNanos());
            return written(new RunReport(strategy, scenario, cluster.baseUrl(), true, config, stats), writer);
        }
    }

    private RunReport runAgainst(String target, String label, LoadTestConfig config, ReportWriter writer)
            throws Exception {
        stdout.printf("== %s: balancer at %s%n", label, target);
        LoadRunner.RunResult result = new LoadRunner(config, stdout).run(target, label);
        RunStatistics stats = RunStatistics.of(result.outcomes(), List.of(), result.durationNanos());
        if (stats.successes() == 0) {
            stdout.println("No request was answered: is a balancer running at " + target + "?");
        }
        return written(new RunReport(label, scenario, target, false, config, stats), writer);
    }

    private RunReport written(RunReport report, ReportWriter writer) throws IOException {
        writer.writeRun(report);
        RunStatistics s = report.statistics();
        stdout.printf(Locale.ROOT, "%s: %d requests, %d errors, %d timeouts; %s; spread %d, CV %.3f, "
                        + "stickiness %.3f; p95 %.1f ms; %.1f req/s%n",
                report.strategy(), s.requests(), s.errors(), s.timeouts(),
                s.agents().values().stream().map(a -> a.agentId() + "=" + a.count()).collect(Collectors.joining(" ")),
                s.spread(), s.coefficientOfVariation(), s.stickiness(), s.latency().p95Ms(), s.throughputRps());
        return report;
    }

    private LoadTestConfig validatedConfig() {
        try {
            return LoadTestConfig.custom().requests(requests).users(users).concurrency(concurrency).seed(seed)
                    .timeoutMs(timeoutMs).build();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
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
            throw usage("with --url, --strategy must name the running balancer's strategy once (e.g. --strategy rr), was "
                    + strategies);
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
