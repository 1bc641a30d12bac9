package io.github.agentlb.loadgen.cli;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.main.JvmRelaunch;
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
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine;

/**
 * The load generator's command line: each {@link Scenario} chosen with each of its variants for the strategies
 * chosen, over agents and demo proxies started in this JVM, or with {@code --url} one run of a balancer already
 * running. What it writes and when: the module's README; options: {@link LoadOptions}; exit codes: the command's
 * {@code exitCodeList}. The output directory is created and checked before any load is sent (else one line,
 * exit 2); a later write failure ends the run with one line, exit 1.
 *
 * <p>Over 300 lines: the command's help text, its relaunch, the order of the checks before any load,
 * and the run's writing and stop, each a few lines the others depend on; the options themselves are
 * {@link LoadOptions}'.
 */
@Command(name = "load-generator", mixinStandardHelpOptions = true, version = "load-generator 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Sends a seeded load through a balancer and reports how it spread: requests per agent, "
                    + "spread, variance, CV, stickiness, latency percentiles, per-agent utilization; writes "
                    + "report-<scenario>-<variant>.json for every run of every scenario (one shape, see the module's "
                    + "README), report.md and the charts into --out: distribution_[<scenario>_]<strategy>.png and, "
                    + "for pid, pid_convergence[_<scenario>].png/.csv (the scenario in the name except for uniform), "
                    + "hotkey.png, timeline_<scenario>_<strategy>.png (failure, hang, busy, gray, fleet, brownout), agents.png, "
                    + "soak_[<scenario>_]<strategy>.png (--duration).",
            "Without --url: for each scenario and strategy, starts agents A1-A3 and the demo proxy in-process "
                    + "on free ports."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:every request was answered, less the errors a scenario allows (busy: 1 in 30, gray: 1 in 20 of the "
                    + "requests sent while A1 is faulty)",
            "1:some other request failed or timed out (reports still written), or the run failed",
            "2:invalid arguments, or --out is not a writable directory"})
public final class LoadGeneratorMain implements Callable<Integer> {

    static final String DEFAULT_OUT = "results";
    static final String DEFAULT_URL_OUT = "results/url";
    /** C1 only (no C2 threads) and the serial collector (no concurrent GC threads): see {@link #main}. */
    static final List<String> URL_RUN_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    static final String RELAUNCHED_PROPERTY = "agentlb.loadgen.relaunched";

    @Mixin
    private LoadOptions options = new LoadOptions();
    private final PrintStream stdout;
    private final boolean checkOnly;

    private LoadGeneratorMain(PrintStream stdout, boolean checkOnly) {
        this.stdout = stdout;
        this.checkOnly = checkOnly;
    }

    /**
     * A {@code --url} run started without JVM options of its own restarts the JVM with
     * {@link #URL_RUN_OPTIONS} (a manifest cannot carry them): it shares the machine with the system
     * it measures, whose CPU the default C2 and G1 threads take. In-process runs are left as they are
     * (their proxy would be measured C1-compiled); {@code LOADGEN_RELAUNCH=0} turns it off.
     */
    public static void main(String[] args) throws Exception {
        List<String> command = relaunchCommand(args, JvmRelaunch.currentOptions(),
                System.getenv("LOADGEN_RELAUNCH"), System.getProperty(RELAUNCHED_PROPERTY) != null);
        if (command.isEmpty()) {
            if (System.getProperty(RELAUNCHED_PROPERTY) != null) {
                JvmRelaunch.whenLauncherEnds(() -> System.exit(143));
            }
            System.exit(execute(System.out, System.err, args));
        }
        int refused = execute(new PrintStream(OutputStream.nullOutputStream()), System.err, true, args);
        if (refused != 0) {
            System.exit(refused); // refused before the restart, which would print its notice first
        }
        System.err.println("load-generator: a --url run restarts its JVM with " + String.join(" ", URL_RUN_OPTIONS)
                + " so that its pacing keeps up on a shared machine (LOADGEN_RELAUNCH=0: no restart)");
        System.exit(JvmRelaunch.run(command));
    }

    /** The command that restarts this JVM, or empty: no {@code --url}, own JVM options, turned off, or restarted. */
    static List<String> relaunchCommand(String[] args, List<String> jvmOptions, String relaunchEnv, boolean relaunched) {
        boolean urlRun = Arrays.stream(args).anyMatch(arg -> arg.equals("--url") || arg.startsWith("--url="));
        boolean ownOptions = JvmRelaunch.anyStartsWith(jvmOptions, List.of("-XX:", "-Xm", "-agentlib", "-javaagent"));
        if (!urlRun || ownOptions || relaunched || "0".equals(relaunchEnv)) {
            return List.of();
        }
        return JvmRelaunch.command(URL_RUN_OPTIONS, jvmOptions, RELAUNCHED_PROPERTY, LoadGeneratorMain.class.getName(), args);
    }

    /** Runs the command line without exiting; returns the exit code (see the class). */
    public static int execute(PrintStream out, PrintStream err, String... args) {
        return execute(out, err, false, args);
    }

    /** With {@code checkOnly}, checks the command line and prints its notices, sending no load: 0 when it would run. */
    static int execute(PrintStream out, PrintStream err, boolean checkOnly, String... args) {
        CommandLine cli = new CommandLine(new LoadGeneratorMain(out, checkOnly)).setCaseInsensitiveEnumValuesAllowed(true);
        // A number that is none, or past its type, is refused as the option's own bounds are: named with its value.
        CommandLine.ITypeConverter<Integer> ints = t -> number(t, Integer::valueOf, "a whole number up to " + Integer.MAX_VALUE);
        CommandLine.ITypeConverter<Long> longs = t -> number(t, Long::valueOf, "a whole number up to " + Long.MAX_VALUE);
        CommandLine.ITypeConverter<Double> doubles = t -> number(t, Double::valueOf, "a number");
        cli.registerConverter(int.class, ints).registerConverter(Integer.class, ints).registerConverter(long.class, longs)
                .registerConverter(Long.class, longs).registerConverter(double.class, doubles).registerConverter(Double.class, doubles);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        // The message and a pointer to --help, not the whole usage (about 90 lines).
        cli.setParameterExceptionHandler((e, given) -> {
            PrintWriter w = e.getCommandLine().getErr();
            w.println(e.getCause() instanceof CommandLine.TypeConversionException t && e.getArgSpec() instanceof OptionSpec o
                    ? o.longestName() + " must be " + t.getMessage() : e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, w);
            w.println("Run with --help for the options.");
            return e.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        });
        return cli.execute(args);
    }

    /**
     * {@code text} read by {@code reader} as written (ASCII, no white space: {@code ' 300'} and
     * Arabic-Indic digits are refused); else refused as not {@code what} (the handler names the option).
     */
    private static <T> T number(String text, Function<String, T> reader, String what) {
        try {
            if (text.chars().allMatch(c -> c > ' ' && c < 127)) {
                return reader.apply(text);
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new CommandLine.TypeConversionException(what + ", was '" + text + "'");
    }

    @Override
    public Integer call() throws Exception {
        long startNanos = System.nanoTime();
        if (options.replicas < 1 || options.replicas > LoadOptions.MAX_REPLICAS) {
            throw options.usage(options.replicas < 1 ? "--replicas must be >= 1, was " + options.replicas : "--replicas "
                    + "must be <= " + LoadOptions.MAX_REPLICAS + " (each a proxy in this JVM), was " + options.replicas);
        }
        if (options.url != null) {
            options.baseUrl(); // a malformed --url is refused before any other line is printed
        }
        if (options.out != null && options.out.toString().isBlank()) {
            throw options.usage("--out must name a directory, was '" + options.out + "'");
        }
        List<Scenario> scenarios = options.validatedScenarios();
        LoadTestConfig config = options.validatedConfig(0);
        Pacing pacing = options.validatedPacing();
        options.checkCombination(pacing, scenarios);
        LoadTestConfig hotConfig = scenarios.stream().anyMatch(HotKeyScenario.class::isInstance)
                ? options.validatedConfig(HotKeyScenario.DEFAULT_HOT_SHARE) : null;
        LoadTestConfig faultConfig = options.validatedFaultConfig(); // checked whether or not the scenarios run
        faultConfig = scenarios.stream().anyMatch(OutageScenario.class::isInstance) ? faultConfig : null;
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
        options.notices(runs.keySet(), config, hotConfig).forEach(stdout::println); // every option checked
        if (checkOnly) {
            return 0;
        }
        try {
            return run(outDir, setup, runs, startNanos);
        } catch (IOException | UncheckedIOException e) {
            // Expected when the disk fills or the directory goes away mid-run: one line, no stack trace.
            options.err().println("could not write the results into --out " + outDir + ": " + describe(e));
            return 1;
        }
    }

    private int run(Path outDir, Setup setup, Map<Scenario, List<Variant>> runs, long startNanos) throws Exception {
        if (options.url != null) {
            String unreachable = unreachable(options.baseUrl(), (int) Math.min(setup.load().timeoutMs(), 3_000));
            if (unreachable != null) {
                options.err().println(unreachable);
                return 1;
            }
        }
        List<MarkdownReport.Part> done = new CopyOnWriteArrayList<>(); // read by the hook below
        List<String> files = new ArrayList<>(List.of(MarkdownReport.FILE));
        List<String> times = new ArrayList<>();
        AtomicReference<String> running = new AtomicReference<>();
        Thread stopped = new Thread(() -> Optional.ofNullable(running.get())
                .ifPresent(s -> stdout.println(interruptedLine(s, done.size(), outDir))));
        Runtime.getRuntime().addShutdownHook(stopped);
        try {
            for (Map.Entry<Scenario, List<Variant>> e : runs.entrySet()) {
                Scenario s = e.getKey();
                running.set(s.name());
                long start = System.nanoTime();
                List<Result> results = options.url != null
                        ? List.of(setup.print(s.runAgainst(options.baseUrl(), options.validatedLabel(), setup)))
                        : s.runAll(e.getValue(), setup);
                Section section = s.section(results);
                done.add(new MarkdownReport.Part(section, results));
                if (!(s instanceof PlainScenario) && options.url == null) {
                    times.add(String.format(Locale.ROOT, "%s scenario %.0f s", s.name(), (System.nanoTime() - start) / 1e9));
                }
                Map<String, Chart> charts = new LinkedHashMap<>();
                for (Result r : results) {
                    files.add(JsonReport.write(r, outDir).getFileName().toString());
                    r.charts().forEach(c -> charts.put(c.file(), c));
                }
                section.charts().forEach(c -> charts.putIfAbsent(c.file(), c));
                for (Chart c : charts.values()) {
                    files.addAll(Charts.write(c, outDir));
                }
                MarkdownReport.write(outDir, done); // the scenarios finished so far, should the run be stopped
            }
        } finally {
            running.set(null);
            try {
                Runtime.getRuntime().removeShutdownHook(stopped);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs, or ran: nothing to undo
            }
        }
        for (MarkdownReport.Part d : done) {
            stdout.printf("%nScenario %s:%n", d.section().title());
            // A blank line between tables, as report.md has: adjacent ones would read as one table.
            stdout.print(d.section().tables().stream().map(Section.Table::markdown).collect(Collectors.joining("\n")));
        }
        stdout.println();
        stdout.println("Results in " + outDir.toAbsolutePath().normalize() + ": " + String.join(", ", files));
        stdout.printf(Locale.ROOT, "Total time %.0f s%s.%n", (System.nanoTime() - startNanos) / 1e9,
                times.isEmpty() ? "" : ", of which " + String.join(", ", times));
        long failed = done.stream().flatMap(d -> d.results().stream()).mapToLong(Result::failures).sum();
        if (failed > 0) {
            stdout.println(failed + " request(s) failed or timed out: exit code 1.");
            return 1;
        }
        return 0;
    }

    /** What a run stopped (Ctrl-C, SIGTERM) in the {@code scenario} scenario leaves, after {@code finished} scenarios. */
    static String interruptedLine(String scenario, int finished, Path outDir) {
        return "Interrupted in the " + scenario + " scenario: its runs are not written; " + (finished == 0
                ? "no scenario had finished, nothing was written" : "report.md, the JSON and the charts of the "
                + finished + " scenario" + (finished == 1 ? "" : "s") + " finished before are in " + outDir) + ".";
    }

    /** {@code out} if given, else {@value #DEFAULT_URL_OUT} for a {@code --url} run and {@value #DEFAULT_OUT} otherwise. */
    static Path outputDirectory(Path out, boolean againstUrl) {
        return out != null ? out : Path.of(againstUrl ? DEFAULT_URL_OUT : DEFAULT_OUT);
    }

    /** Creates {@code dir} if missing; {@code null} when a file can be written in it, else one line saying why. */
    static String unusableOutput(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".write-check", ".tmp"));
            return null;
        } catch (IOException | UncheckedIOException e) {
            return "--out " + dir + " is not a writable directory: " + describe(e);
        }
    }

    /** Why an I/O operation failed, in words (no class name). */
    private static String describe(Exception e) {
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        String why = cause instanceof FileAlreadyExistsException ? "a file, not a directory"
                : cause instanceof AccessDeniedException ? "permission denied"
                : cause instanceof NoSuchFileException ? "no such file or directory" : "I/O error";
        return why + (cause.getMessage() == null ? "" : " (" + cause.getMessage() + ")");
    }

    /** {@code null} when the balancer at {@code baseUrl} accepts a connection, else one line why: no load sent. */
    static String unreachable(String baseUrl, int timeoutMs) {
        URI uri = URI.create(baseUrl);
        int port = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        String hostPort = uri.getHost() + ":" + port;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), port), timeoutMs);
            return null;
        } catch (IOException e) {
            String why = e instanceof UnknownHostException ? "unknown host " + uri.getHost()
                    : e instanceof ConnectException
                    ? "connection refused by " + hostPort + " (is the balancer running there?)"
                    : e instanceof SocketTimeoutException
                    ? "no answer to a connection to " + hostPort + " within " + timeoutMs + " ms"
                    : hostPort + ": " + describe(e);
            return "Cannot reach the balancer at " + baseUrl + ": " + why + ". No load sent, no report written.";
        }
    }
}
