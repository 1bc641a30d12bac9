package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One scenario of the load test: a workload sent through a balancer over agents started in this JVM
 * (or a running balancer at {@code --url}), a fault or change it may inject while the load goes on,
 * and checks on what it measured. It runs once per {@link Variant} (a strategy, or a balancer
 * set-up named after one) and returns a {@link Result} per run; the reports ({@code report.md},
 * {@code report-<scenario>-<variant>.json}, the charts, the console) are written from those
 * results alone, by one writer each. {@link Scenarios#all()} lists them in the main job's order.
 */
public interface Scenario {

    /** The name on the command line ({@code --scenario}), in {@code report.md} and in file names, e.g. {@code failure}. */
    String name();

    /** The measured load of each run: requests, users, concurrency, seed, timeout, warm-up, hot share. */
    LoadTestConfig workload(Setup setup);

    /** The agents each run starts (ids, delays, capacities, seeds; free ports). */
    List<AgentConfig> agents(Setup setup);

    /** What it injects while the load goes on, one phrase for progress lines; empty for nothing. */
    default String injects(Setup setup) {
        return "";
    }

    /** The variants it runs for {@link Setup#strategies()}, in order; empty when none of them applies. */
    List<Variant> variants(Setup setup);

    /** Whether its variants run at the same time, each over its own agents and proxies. */
    default boolean concurrent() {
        return false;
    }

    /**
     * Runs one variant: starts its agents and proxies, sends the load while injecting what it
     * injects, stops them, and measures and checks the run.
     *
     * @throws Exception if the agents or proxies cannot start, a change fails or the run is stuck
     */
    Result run(Variant variant, Setup setup) throws Exception;

    /**
     * Runs every variant, at the same time when {@link #concurrent()}, each one's {@link Result#lines()}
     * printed as it ends; the results in the order of {@code variants}.
     *
     * @throws Exception what the first failing run threw
     */
    default List<Result> runAll(List<Variant> variants, Setup setup) throws Exception {
        return each(variants, concurrent(), v -> setup.print(run(v, setup)));
    }

    /** Its section of {@code report.md} and of the console's closing tables, from all its results. */
    Section section(List<Result> results);

    /** Whether it can load a running balancer ({@code --url}). */
    default boolean againstUrl() {
        return false;
    }

    /**
     * Sends its load once to the running balancer at {@code baseUrl}, reported under {@code label}.
     *
     * @throws UnsupportedOperationException unless {@link #againstUrl()}
     * @throws Exception                     if the run cannot be carried out
     */
    default Result runAgainst(String baseUrl, String label, Setup setup) throws Exception {
        throw new UnsupportedOperationException("scenario " + name() + " has no --url mode");
    }

    /** One run of a scenario. */
    @FunctionalInterface
    interface Run<T, R> {
        R run(T item) throws Exception;
    }

    /**
     * Runs {@code run} on each of {@code items}, one after the other or all at once (each on a thread
     * of its own: the runs are light, 10 workers at about 100 requests per second each, so several at
     * once keep the 2-core machine well below saturation and take one run's time); the results in the
     * order of {@code items}.
     *
     * @throws Exception what the first failing run threw
     */
    static <T, R> List<R> each(List<T> items, boolean atOnce, Run<T, R> run) throws Exception {
        List<R> results = new ArrayList<>();
        if (!atOnce) {
            for (T item : items) {
                results.add(run.run(item));
            }
            return results;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, items.size()), r -> {
            Thread t = new Thread(r, "loadgen-variant");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<R>> futures = new ArrayList<>();
            items.forEach(item -> futures.add(pool.submit(() -> run.run(item))));
            for (Future<R> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
