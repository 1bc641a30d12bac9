package io.github.agentlb.loadgen.run;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.SteadyWindow;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.io.PrintStream;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Runs one count-bound closed-loop load against a balancer (the main job): starts a Camel context
 * with {@link WorkerLoopRoute#forRequests}, waits until every request has an outcome, stops the
 * context. Each {@link #run} is independent; not meant to
 * run concurrently with itself on one instance.
 */
public final class LoadRunner {

    /**
     * The raw result of a run.
     *
     * @param outcomes      every request's outcome, in completion order
     * @param durationNanos wall time from the first send to the last outcome, ns
     * @param maxInFlight   the most requests in flight at once
     * @param timedOutcomes the same outcomes with their send times ({@link System#nanoTime()})
     * @param selfCheck     whether the workers kept pace ({@link PacingCheck})
     * @param concurrency   the run's workers
     */
    public record RunResult(List<RequestOutcome> outcomes, long durationNanos, int maxInFlight,
                            List<TimedOutcome> timedOutcomes, PacingCheck.Result selfCheck, int concurrency) {

        /** The part of the run in which every worker had a request in flight, if any ({@link SteadyWindow}). */
        public Optional<SteadyWindow> steadyWindow() {
            return SteadyWindow.of(timedOutcomes, concurrency);
        }

        /**
         * The run's statistics ({@link RunStatistics}), with the throughput of its
         * {@link #steadyWindow()} when it has one.
         */
        public RunStatistics statistics(Collection<String> knownAgents) {
            return RunStatistics.of(outcomes, knownAgents, durationNanos, steadyWindow().orElse(null));
        }
    }

    private final LoadTestConfig config;
    private final PrintStream progress;

    /**
     * @param config   the load's shape
     * @param progress where progress lines go; {@code null} for none
     */
    public LoadRunner(LoadTestConfig config, PrintStream progress) {
        this.config = Objects.requireNonNull(config, "config");
        this.progress = progress;
    }

    /**
     * Sends the workload of {@link #config} to {@code baseUrl} and returns every outcome.
     *
     * @param baseUrl the balancer, e.g. {@code http://localhost:8000}
     * @param label   the prefix of progress lines
     * @throws IllegalStateException if the run does not finish within its worst case (every
     *                               request timing out), which means the route is stuck
     * @throws Exception             if the Camel context cannot start
     */
    public RunResult run(String baseUrl, String label) throws Exception {
        return run(baseUrl, label, started -> { });
    }

    /**
     * As {@link #run(String, String)}, telling {@code onStarted} the 1-based count of requests
     * started just before each is sent (on Netty's event loop or a worker thread; it must be quick
     * and must not block), e.g. to inject a fault after a share of the run.
     */
    public RunResult run(String baseUrl, String label, IntConsumer onStarted) throws Exception {
        return run(List.of(baseUrl), label, onStarted);
    }

    /**
     * As {@link #run(String, String, IntConsumer)} over balancer replicas: request {@code i} of the
     * workload goes to {@code baseUrls.get(i mod n)} ({@link WorkerLoopRoute#replicaOf}), so the
     * requests alternate across them.
     *
     * @param baseUrls one base URL per replica, at least one
     */
    public RunResult run(List<String> baseUrls, String label, IntConsumer onStarted) throws Exception {
        Workload workload = config.workload();
        OutcomeRecorder recorder = new OutcomeRecorder(label, workload.size(), config.progressEvery(), progress);
        CompletableFuture<Long> duration = new CompletableFuture<>();
        PacingCheck check = new PacingCheck();
        long cpuBefore = JvmGauges.processCpuNanos();
        long wallBefore = System.nanoTime();
        CamelContext camel = new DefaultCamelContext();
        try {
            camel.getShutdownStrategy().setTimeout(10);
            RequestSteps steps = new RequestSteps(recorder, onStarted, System::nanoTime, check);
            camel.addRoutes(WorkerLoopRoute.forRequests(workload, baseUrls, config, steps, System::nanoTime, duration));
            camel.start();
            long rounds = (workload.size() + config.concurrency() - 1) / config.concurrency();
            long boundMs = rounds * (config.timeoutMs() + 1_000) + 30_000;
            long nanos;
            try {
                nanos = duration.get(boundMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException stuck) {
                throw new IllegalStateException("load run against " + String.join(", ", baseUrls) + " did not finish within "
                        + boundMs + " ms; " + recorder.completedCount() + " of " + workload.size() + " completed");
            }
            List<TimedOutcome> timed = recorder.timedOutcomes();
            long cpuNanos = cpuBefore < 0 ? -1 : JvmGauges.processCpuNanos() - cpuBefore;
            double cpuShare = JvmGauges.cpuShare(cpuNanos, System.nanoTime() - wallBefore, JvmGauges.cores());
            return new RunResult(timed.stream().map(TimedOutcome::outcome).toList(), nanos, recorder.maxInFlight(),
                    timed, check.result(cpuShare, JvmGauges.cores(), PacingCheck.cpuMsPerRequest(cpuNanos, timed.size())),
                    config.concurrency());
        } finally {
            camel.stop();
        }
    }
}
