package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * A scenario of the main job that lives in a package of its own (such as
 * {@code io.github.agentlb.loadgen.fleet}) and is found with {@link ServiceLoader}: that package
 * builds on this one, and this one names none of its classes, so the two form no reference loop.
 * It runs after the fault scenarios, once for all strategies, writes its own files and gives
 * back its section of {@code report.md} and its console table.
 */
public interface JobScenario {

    /** The name on the command line ({@code --scenario}) and in file names, lower case, e.g. {@code fleet}. */
    String label();

    /**
     * Whether the main job runs it without being named ({@code --scenario} absent or {@code all});
     * false for a scenario whose time does not fit the main job's budget, which then runs only
     * when {@code --scenario} names it.
     */
    default boolean inMainJob() {
        return true;
    }

    /**
     * Runs the scenario for each strategy of {@code setup} and writes its files into
     * {@link Setup#outDir()}.
     *
     * @throws Exception if a run cannot be carried out or a file cannot be written
     */
    Section run(Setup setup) throws Exception;

    /** Whether it can load a balancer that is already running ({@link #runAgainst}); false by default. */
    default boolean runsAgainstUrl() {
        return false;
    }

    /**
     * Runs the scenario's load once against the balancer at {@code baseUrl}, reported under
     * {@code label}, and writes its files into {@link Setup#outDir()}.
     *
     * @param baseUrl {@code http(s)://host[:port][/path]}, no trailing slash
     * @param label   the running balancer's name ({@code --strategy})
     * @throws UnsupportedOperationException unless {@link #runsAgainstUrl()}
     * @throws Exception if the run cannot be carried out or a file cannot be written
     */
    default Section runAgainst(String baseUrl, String label, Setup setup) throws Exception {
        throw new UnsupportedOperationException("scenario " + label() + " has no --url mode");
    }

    /**
     * What a job scenario runs with, from the command line.
     *
     * @param template   the agents' common settings (delays)
     * @param strategies the strategies to run, in order
     * @param load       concurrency, seed (of the agents' delays and the request order), timeout and
     *                   warm-up of the main job's runs; the scenario chooses its own requests and users
     * @param stdout     where progress goes
     * @param outDir     where its files go
     */
    record Setup(AgentConfig template, List<String> strategies, LoadTestConfig load, PrintStream stdout, Path outDir) {
        public Setup {
            Objects.requireNonNull(template, "template");
            strategies = List.copyOf(strategies);
            Objects.requireNonNull(load, "load");
            Objects.requireNonNull(stdout, "stdout");
            Objects.requireNonNull(outDir, "outDir");
        }

        /**
         * What a scenario over agents in this JVM runs with: {@link #template()}'s agents, the
         * {@link #load()} seed for their delays, {@link #load()} with the scenario's own counts
         * ({@code requests} requests over {@code users} users, with the main job's concurrency,
         * seed, timeout and warm-up), progress to {@link #stdout()}.
         *
         * @throws IllegalArgumentException if the counts are out of range for {@link LoadTestConfig}
         */
        public ScenarioLoad scenarioLoad(int requests, int users) {
            LoadTestConfig config = LoadTestConfig.custom().requests(requests).users(users)
                    .concurrency(load.concurrency()).seed(load.seed()).timeoutMs(load.timeoutMs())
                    .warmup(load.warmup()).build();
            return new ScenarioLoad(template, load.seed(), config, stdout);
        }

        /**
         * Writes each of {@code reports} into {@link #outDir()} and prints its summary to
         * {@link #stdout()}, one report after the other in order. Call it from one thread.
         *
         * @return the files written, names within the output directory, in the order of {@code reports}
         * @throws IOException if a file cannot be written
         */
        public <R> List<String> writeEach(List<R> reports, ReportFiles<R> files, Function<R, String> summary)
                throws IOException {
            List<String> written = new ArrayList<>();
            for (R report : reports) {
                written.addAll(files.write(report, outDir));
                stdout.print(summary.apply(report));
            }
            return written;
        }
    }

    /** Writes one run's report files. */
    @FunctionalInterface
    interface ReportFiles<R> {
        /**
         * Writes {@code report}'s files into {@code dir}.
         *
         * @return the files written, names within {@code dir}, in order
         * @throws IOException if a file cannot be written
         */
        List<String> write(R report, Path dir) throws IOException;
    }

    /**
     * What a job scenario ran.
     *
     * @param label        the scenario's {@link #label()}
     * @param clientErrors requests that failed or timed out, over all its runs (goal 0)
     * @param markdown     its section of {@code report.md}, starting with a {@code ##} heading
     * @param table        what the console shows at the end of the job
     * @param files        the files it wrote, names within the output directory, in run order
     */
    record Section(String label, long clientErrors, String markdown, String table, List<String> files) {
        public Section {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(markdown, "markdown");
            Objects.requireNonNull(table, "table");
            files = List.copyOf(files);
        }
    }

    /** One strategy's run of a job scenario. */
    @FunctionalInterface
    interface StrategyRun<R> {
        R run(String strategy) throws Exception;
    }

    /**
     * Runs {@code run} for every strategy at the same time, each on its own agents and proxy (as
     * the hot-key variants run), and returns the results in the order of {@code strategies}. The
     * runs are light (10 workers at about 100 requests per second each), so five at once keep the
     * 2-core machine well below saturation while the main job takes one run's time, not five.
     *
     * @throws Exception what the first failing run threw
     */
    static <R> List<R> eachAtOnce(List<String> strategies, StrategyRun<R> run) throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(
                Math.max(1, strategies.size()), r -> {
                    Thread t = new Thread(r, "loadgen-scenario");
                    t.setDaemon(true);
                    return t;
                });
        try {
            List<java.util.concurrent.Future<R>> futures = new ArrayList<>();
            for (String strategy : strategies) {
                futures.add(pool.submit(() -> run.run(strategy)));
            }
            List<R> results = new ArrayList<>();
            for (java.util.concurrent.Future<R> future : futures) {
                try {
                    results.add(future.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The job scenarios on the class path, by label. */
    static List<JobScenario> installed() {
        List<JobScenario> found = new ArrayList<>();
        ServiceLoader.load(JobScenario.class, JobScenario.class.getClassLoader()).forEach(found::add);
        found.sort(Comparator.comparing(JobScenario::label));
        return List.copyOf(found);
    }
}
