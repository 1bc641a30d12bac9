package io.github.agentlb.loadgen.cli;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.report.ReportWriter;
import io.github.agentlb.loadgen.scenario.FailureReport;
import io.github.agentlb.loadgen.scenario.FailureScenario;
import io.github.agentlb.loadgen.scenario.Fault;
import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.scenario.JobScenario;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine;

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
 * {@code --failure-requests}, with a section per fault in {@code report.md}. Last the
 * {@link JobScenario}s on the class path (the fleet scenario: A4 joins, A2 is drained and comes
 * back), each with its section. With {@code --url} it
 * loads a balancer that is already running, once, under the label given by {@code --strategy}:
 * the uniform or heterogeneous load, or a job scenario's with a {@code --url} mode
 * ({@link JobScenario#runsAgainstUrl()}: {@code --scenario agents}).
 *
 * <p>{@code --replicas N} starts N proxies (each its own balancer) over the same agents in each
 * in-process closed-loop run, request {@code i} going to replica {@code i mod N}.
 *
 * <p>Warm-up ({@link LoadTestConfig#warmupConfig()}): the first {@code min(users, warmup)} users
 * of the measured run, so a balancer learns about the traffic then measured; consistent-hash
 * stickiness is counted on the measured run alone, so it is unaffected. Sent with {@code --url} too.
 *
 * <p>The options and their validation are {@link LoadOptions}'s; the in-process runs
 * {@link EmbeddedJob}'s (paced ones {@link PacedJob}'s), the closed-loop {@code --url} run
 * {@link UrlJob}'s, and {@code report.md} with the closing console summary {@link JobSummary}'s.
 *
 * <p>The output directory is created and checked to be writable before any load is sent; when it
 * is not, one line names {@code --out} and the path, exit code 2. A write failing later ends the
 * run with one line and exit code 1, no stack trace.
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
                    + "timeline_<fault>_<strategy>.png; for the fleet scenario report-fleet-<strategy>.json and "
                    + "timeline_fleet_<strategy>.png; for the agents scenario agents.png (with --url: "
                    + "agents-url-<label>.json, its conversations sent to the running balancer).",
            "Without --url: for each scenario and strategy, starts agents A1-A3 and the demo proxy in-process "
                    + "on free ports."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:every request was answered",
            "1:some request failed or timed out (reports still written), or the run failed",
            "2:invalid arguments, or --out is not a writable directory"})
public final class LoadGeneratorMain implements Callable<Integer> {

    @Mixin
    private LoadOptions options = new LoadOptions();

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
        // The message and a pointer to --help, not the whole usage: about 90 lines that scroll the
        // message away.
        cli.setParameterExceptionHandler((e, given) -> {
            PrintWriter w = e.getCommandLine().getErr();
            w.println(e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, w);
            w.println("Run with --help for the options.");
            return e.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        });
        return cli.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        long startNanos = System.nanoTime();
        if (options.replicas < 1) {
            throw options.usage("--replicas must be >= 1, was " + options.replicas);
        }
        if (options.url != null) {
            options.baseUrl(); // a malformed --url is refused before any other line is printed
        }
        List<Scenario> scenarios = new ArrayList<>();
        List<Fault> faults = new ArrayList<>();
        List<JobScenario> jobs = new ArrayList<>();
        boolean hotkey = options.validatedScenarios(scenarios, faults, JobScenario.installed(), jobs);
        // Said only for the scenarios that run: the hotkey scenario has its own hot user, hence its own default.
        LoadTestConfig config = options.validatedConfig(options.hotShare == null ? 0 : options.hotShare,
                scenarios.isEmpty() ? null : stdout, null);
        Pacing pacing = options.validatedPacing();
        options.checkCombination(pacing, faults, hotkey, jobs);
        LoadTestConfig hotConfig = hotkey ? options.validatedConfig(
                options.hotShare == null ? HotKeyScenario.DEFAULT_HOT_SHARE : options.hotShare, stdout,
                HotKeyScenario.LABEL) : null;
        LoadTestConfig faultConfig = faults.isEmpty() ? null : options.validatedFaultConfig();
        Path outDir = outputDirectory(options.out, options.url != null);
        String unusable = unusableOutput(outDir);
        if (unusable != null) {
            options.err().println(unusable);
            return 2;
        }
        try {
            return run(outDir, config, pacing, scenarios, faults, hotkey, hotConfig, faultConfig, jobs, startNanos);
        } catch (IOException | UncheckedIOException e) {
            // Expected when the disk fills or the directory goes away mid-run: one line, no stack trace.
            options.err().println("could not write the results into --out " + outDir + ": " + describe(e));
            return 1;
        }
    }

    private int run(Path outDir, LoadTestConfig config, Pacing pacing, List<Scenario> scenarios, List<Fault> faults,
                    boolean hotkey, LoadTestConfig hotConfig, LoadTestConfig faultConfig, List<JobScenario> jobs,
                    long startNanos) throws Exception {
        ReportWriter writer = new ReportWriter(outDir);
        PacedJob paced = new PacedJob(stdout, config, pacing, writer);
        JobResults results;
        if (options.url != null) {
            options.validatedLabel(); // a missing label is refused before the target is tried
            String unreachable = Reachability.problem(options.baseUrl(), (int) Math.min(config.timeoutMs(), 3_000));
            if (unreachable != null) {
                options.err().println(unreachable);
                return 1;
            }
            if (!jobs.isEmpty()) {
                JobScenario.Setup setup = new JobScenario.Setup(options.validatedAgentTemplate(),
                        List.of(options.validatedLabel()), config, stdout, outDir);
                results = JobResults.of(JobResults.TimedSection.of(() -> jobs.get(0).runAgainst(options.baseUrl(),
                        options.validatedLabel(), setup)));
                return new JobSummary(stdout, writer).finish(results, scenarios, false, startNanos);
            }
            results = JobResults.of(pacing.isDefault()
                    ? new UrlJob(stdout, writer).run(options.baseUrl(), options.validatedLabel(), scenarios.get(0),
                            config)
                    : paced.runAgainst(options.baseUrl(), options.validatedLabel(), scenarios.get(0)));
        } else {
            AgentConfig template = options.validatedAgentTemplate();
            List<String> names = options.validatedStrategies();
            List<HotKeyScenario.Variant> variants = options.validatedVariants(names, hotkey);
            EmbeddedJob job = new EmbeddedJob(stdout, template, options.seed, options.replicas, writer);
            EmbeddedJob.ScenarioRuns runs = job.runScenarios(scenarios, names, config,
                    pacing.isDefault() ? null : paced);
            long hotKeyStartNanos = System.nanoTime();
            List<HotKeyScenario.HotKeyRun> hotKeys = job.runHotKey(variants, hotConfig);
            long hotKeyNanos = System.nanoTime() - hotKeyStartNanos;
            long faultsStartNanos = System.nanoTime();
            List<FailureReport> failures = job.runFaults(faults, names, faultConfig);
            long faultsNanos = System.nanoTime() - faultsStartNanos;
            List<JobResults.TimedSection> sections = new ArrayList<>();
            JobScenario.Setup setup = new JobScenario.Setup(template, names, config, stdout, outDir);
            for (JobScenario jobScenario : jobs) {
                sections.add(JobResults.TimedSection.of(() -> jobScenario.run(setup)));
            }
            results = new JobResults(runs.reports(), runs.convergence(), hotKeys, hotKeyNanos, failures, faultsNanos,
                    sections);
        }
        return new JobSummary(stdout, writer).finish(results, scenarios, pacing.timed(), startNanos);
    }

    /** {@code out} if given, else {@value #DEFAULT_URL_OUT} for a {@code --url} run and {@value #DEFAULT_OUT} otherwise. */
    static Path outputDirectory(Path out, boolean againstUrl) {
        return out != null ? out : Path.of(againstUrl ? DEFAULT_URL_OUT : DEFAULT_OUT);
    }

    /**
     * Creates {@code dir} if missing and checks that a file can be written in it, before any load
     * is sent (a run can last minutes).
     *
     * @return {@code null} when usable, else one line naming {@code --out}, the path and the reason
     */
    static String unusableOutput(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".write-check", ".tmp"));
            return null;
        } catch (IOException | UncheckedIOException e) {
            return "--out " + dir + " is not a writable directory: " + describe(e);
        }
    }

    private static String describe(Exception e) {
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : " " + cause.getMessage());
    }

    /** What to tell the user when no request of a {@code --url} run succeeded; see {@link UrlJob#nothingSucceeded}. */
    static String nothingSucceeded(RunStatistics stats, String target) {
        return UrlJob.nothingSucceeded(stats, target);
    }


    /** Users when {@code --users} is not given; see {@link LoadOptions#defaultUsers}. */
    static int defaultUsers(int requests) {
        return LoadOptions.defaultUsers(requests);
    }
}
