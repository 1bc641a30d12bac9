package io.github.agentlb.loadgen.cli;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.report.Charts;
import io.github.agentlb.loadgen.report.JsonReport;
import io.github.agentlb.loadgen.report.MarkdownReport;
import io.github.agentlb.loadgen.scenario.Chart;
import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.scenario.OutageScenario;
import io.github.agentlb.loadgen.scenario.PlainScenario;
import io.github.agentlb.loadgen.scenario.Result;
import io.github.agentlb.loadgen.scenario.Scenario;
import io.github.agentlb.loadgen.scenario.Section;
import io.github.agentlb.loadgen.scenario.Setup;
import io.github.agentlb.loadgen.scenario.Variant;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine;

/**
 * The load generator's command line.
 *
 * <p>Without {@code --url} it runs the main job: each {@link Scenario} chosen ({@code --scenario},
 * all by default, in the order of {@code Scenarios.all()}) with each of its variants for the
 * strategies chosen ({@code --strategy}), over agents and demo proxies started in this JVM on free
 * loopback ports; each run's JSON report and charts are written as its scenario ends, then
 * {@code report.md}, the console's tables per scenario, the files written and the time taken. With
 * {@code --url} it loads a balancer that is already running, once, under the label given by
 * {@code --strategy}: the uniform or heterogeneous load, or the agents scenario's conversations.
 * {@code --replicas N} starts N proxies (each its own balancer) over the same agents in the
 * uniform, heterogeneous and hotkey runs, request {@code i} going to replica {@code i mod N}.
 * {@code --rate} and {@code --duration} pace the uniform and heterogeneous runs ({@link Pacing}).
 *
 * <p>The output directory is created and checked to be writable before any load is sent; when it
 * is not, one line names {@code --out} and the path, exit code 2. A write failing later ends the
 * run with one line and exit code 1, no stack trace.
 *
 * <p>Exit codes: 0 when every request was answered; 1 when any request failed or timed out (the
 * reports are still written; a scenario's trial may allow some, as busy and gray do) or the run
 * could not be carried out; 2 for invalid arguments.
 */
@Command(name = "load-generator", mixinStandardHelpOptions = true, version = "load-generator 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Sends a seeded load through a balancer and reports how it spread: requests per agent, "
                    + "spread, variance, CV, stickiness, latency percentiles, per-agent utilization; writes "
                    + "report-<scenario>-<variant>.json for every run of every scenario (one shape, see the module's "
                    + "README), report.md and the charts into --out: distribution_[<scenario>_]<strategy>.png and, "
                    + "for pid, pid_convergence[_<scenario>].png/.csv (the scenario in the name except for uniform), "
                    + "hotkey.png, timeline_<scenario>_<strategy>.png (failure, hang, busy, gray, fleet), agents.png, "
                    + "soak_[<scenario>_]<strategy>.png (--duration).",
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
        List<Scenario> scenarios = options.validatedScenarios();
        boolean plain = scenarios.stream().anyMatch(PlainScenario.class::isInstance);
        // Said only for the scenarios that run: the hotkey scenario has its own hot user, hence its own default.
        LoadTestConfig config = options.validatedConfig(options.hotShare == null ? 0 : options.hotShare,
                plain ? stdout : null, null);
        Pacing pacing = options.validatedPacing();
        options.checkCombination(pacing, scenarios);
        LoadTestConfig hotConfig = scenarios.stream().anyMatch(HotKeyScenario.class::isInstance)
                ? options.validatedConfig(options.hotShare == null ? HotKeyScenario.DEFAULT_HOT_SHARE : options.hotShare,
                        stdout, "hotkey") : null;
        LoadTestConfig faultConfig = scenarios.stream().anyMatch(OutageScenario.class::isInstance)
                ? options.validatedFaultConfig() : null;
        AgentConfig template = options.validatedAgentTemplate();
        List<String> strategies = options.url != null ? List.of(options.validatedLabel()) : options.validatedStrategies();
        Setup setup = new Setup(template, strategies, config, hotConfig, faultConfig, pacing, options.replicas, stdout);
        Map<Scenario, List<Variant>> runs = new LinkedHashMap<>();
        for (Scenario s : scenarios) {
            List<Variant> variants = options.url != null ? List.of() : s.variants(setup);
            options.checkVariants(s, options.url != null ? 1 : variants.size(), strategies);
            if (options.url != null || !variants.isEmpty()) {
                runs.put(s, variants);
            }
        }
        Path outDir = outputDirectory(options.out, options.url != null);
        String unusable = unusableOutput(outDir);
        if (unusable != null) {
            options.err().println(unusable);
            return 2;
        }
        try {
            return run(outDir, setup, runs, startNanos);
        } catch (IOException | UncheckedIOException e) {
            // Expected when the disk fills or the directory goes away mid-run: one line, no stack trace.
            options.err().println("could not write the results into --out " + outDir + ": " + describe(e));
            return 1;
        }
    }

    /** A scenario's results, section and wall time, ns. */
    private record Done(Scenario scenario, List<Result> results, Section section, long nanos) {
    }

    private int run(Path outDir, Setup setup, Map<Scenario, List<Variant>> runs, long startNanos) throws Exception {
        if (options.url != null) {
            String unreachable = Reachability.problem(options.baseUrl(), (int) Math.min(setup.load().timeoutMs(), 3_000));
            if (unreachable != null) {
                options.err().println(unreachable);
                return 1;
            }
        }
        List<Done> done = new ArrayList<>();
        List<String> files = new ArrayList<>(List.of(MarkdownReport.FILE));
        for (Map.Entry<Scenario, List<Variant>> e : runs.entrySet()) {
            Scenario s = e.getKey();
            long start = System.nanoTime();
            List<Result> results = options.url != null
                    ? List.of(setup.print(s.runAgainst(options.baseUrl(), options.validatedLabel(), setup)))
                    : s.runAll(e.getValue(), setup);
            Section section = s.section(results);
            done.add(new Done(s, results, section, System.nanoTime() - start));
            Map<String, Chart> charts = new LinkedHashMap<>();
            for (Result r : results) {
                files.add(JsonReport.write(r, outDir).getFileName().toString());
                r.charts().forEach(c -> charts.put(c.file(), c));
            }
            section.charts().forEach(c -> charts.putIfAbsent(c.file(), c));
            for (Chart c : charts.values()) {
                files.addAll(Charts.write(c, outDir));
            }
        }
        MarkdownReport.write(outDir, done.stream().map(d -> new MarkdownReport.Part(d.section(), d.results())).toList());
        List<String> parts = new ArrayList<>();
        for (Done d : done) {
            stdout.println();
            stdout.println("Scenario " + d.section().title() + ":");
            d.section().tables().forEach(t -> stdout.print(t.markdown()));
            if (!(d.scenario() instanceof PlainScenario) && options.url == null) {
                parts.add(String.format(Locale.ROOT, "%s scenario %.0f s", d.scenario().name(), d.nanos() / 1e9));
            }
        }
        stdout.println();
        stdout.println("Results in " + outDir.toAbsolutePath().normalize() + ": " + String.join(", ", files));
        stdout.printf(Locale.ROOT, "Total time %.0f s%s.%n", (System.nanoTime() - startNanos) / 1e9,
                parts.isEmpty() ? "" : ", of which " + String.join(", ", parts));
        long failed = done.stream().flatMap(d -> d.results().stream()).mapToLong(Result::failures).sum();
        if (failed > 0) {
            stdout.println(failed + " request(s) failed or timed out: exit code 1.");
            return 1;
        }
        return 0;
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

    /** What to tell the user when no request of a {@code --url} run succeeded; see {@link PlainScenario#nothingSucceeded}. */
    static String nothingSucceeded(RunStatistics stats, String target) {
        return PlainScenario.nothingSucceeded(stats, target);
    }


    /** Users when {@code --users} is not given; see {@link LoadOptions#defaultUsers}. */
    static int defaultUsers(int requests) {
        return LoadOptions.defaultUsers(requests);
    }
}
