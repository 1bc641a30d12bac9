package io.github.agentlb.loadgen.run;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.IntervalSeries;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.SoakVerdict;
import io.github.agentlb.loadgen.stats.SteadyWindow;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Sends one load against a balancer, in a Camel context of its own, and returns its outcomes and
 * figures. Three ways ({@link Pacing}): the closed loop of {@code concurrency} workers
 * ({@link WorkerLoopRoute}) bound by the request count (the main job) or by a duration (a soak), and
 * the open loop at a constant rate ({@link OpenLoopRoute}). A count-bound run keeps every outcome
 * with its send time; a time-bound one counts them per interval ({@link IntervalSeries}) and keeps
 * none, so its memory stays flat (the heap measured is the proxy's), and prints a line per interval.
 * Not meant to run concurrently with itself on one instance.
 */
public final class LoadRunner {

    /** How often a time-bound run samples the JVM and looks for a finished interval to print. */
    static final Duration SAMPLE_PERIOD = Duration.ofSeconds(1);

    /**
     * What a run measured.
     *
     * @param timedOutcomes every request's outcome with its send time, in completion order; empty for a time-bound run
     * @param statistics    the figures over the whole run (latencies from intended send times in an open loop);
     *                      its duration the wall time: closed loop from the first send to the last worker's end,
     *                      open loop from the first intended send to the last answer
     * @param maxInFlight   the most requests in flight at once
     * @param pace          the pacing, the self-check and, time-bound, the intervals and the soak verdict
     */
    public record Result(List<TimedOutcome> timedOutcomes, RunStatistics statistics, int maxInFlight, PaceReport pace) {

        /** The outcomes alone, in completion order. */
        public List<RequestOutcome> outcomes() {
            return timedOutcomes.stream().map(TimedOutcome::outcome).toList();
        }
    }

    private final LoadTestConfig config;
    private final Pacing pacing;
    private final PrintStream progress;

    /** A runner of {@code config} paced by {@code pacing}; progress lines to {@code progress}, {@code null} for none. */
    public LoadRunner(LoadTestConfig config, Pacing pacing, PrintStream progress) {
        this.config = config;
        this.pacing = pacing;
        this.progress = progress;
    }

    /**
     * Sends the load and waits for every request's outcome.
     *
     * @param baseUrls    one per balancer replica: request {@code i} goes to {@code baseUrls[i mod n]}
     *                    (closed count-bound loop; the other modes use the first)
     * @param label       prefix of progress lines
     * @param knownAgents agents listed in the figures even when they answered nothing (may be empty)
     * @param onStarted   told the 1-based count of requests started, just before each is sent (on a Netty
     *                    event loop or the sender thread: quick, never blocking), to inject a change
     * @param sampleJvm   whether a time-bound run samples this JVM's heap and threads (embedded runs)
     * @throws IllegalStateException if the run does not end within its worst case (the route is stuck)
     */
    public Result run(List<String> baseUrls, String label, Collection<String> knownAgents, IntConsumer onStarted,
                      boolean sampleJvm) throws Exception {
        Workload workload = config.workload();
        boolean timed = pacing.timed();
        long total = pacing.openLoop() ? pacing.openLoopRequests(config.requests()) : timed ? Long.MAX_VALUE : config.requests();
        long start = System.nanoTime();
        IntervalSeries series = new IntervalSeries(start, pacing.interval().toNanos(),
                timed ? pacing.duration().toNanos() : Long.MAX_VALUE);
        RunStatistics.Accumulator accumulator = new RunStatistics.Accumulator();
        CompletableFuture<Long> done = new CompletableFuture<>();
        AtomicLong completed = new AtomicLong();
        AtomicLong lastCompletion = new AtomicLong(start);
        OutcomeRecorder recorder = new OutcomeRecorder(label, (int) Math.min(Integer.MAX_VALUE, total),
                config.progressEvery(), timed ? null : progress, !timed, (outcome, from) -> {
                    long at = from + outcome.latencyNanos();
                    if (timed) {
                        series.record(at, outcome);
                    }
                    synchronized (accumulator) {
                        accumulator.add(outcome);
                    }
                    lastCompletion.accumulateAndGet(at, Math::max);
                    if (completed.incrementAndGet() == total && pacing.openLoop()) {
                        done.complete(at);
                    }
                });
        PacingCheck check = new PacingCheck();
        RequestSteps steps = new RequestSteps(recorder, onStarted, System::nanoTime, check);
        OpenLoopRoute.Dispatcher dispatcher = pacing.openLoop()
                ? new OpenLoopRoute.Dispatcher(pacing.ratePerSecond(), total, workload, System::nanoTime) : null;
        OpenLoopRoute open = dispatcher == null ? null
                : new OpenLoopRoute(dispatcher, baseUrls.get(0), config.timeoutMs(), steps);
        long deadline = timed ? start + pacing.duration().toNanos() : Long.MAX_VALUE;
        long boundMs = (timed ? pacing.duration().toMillis() : pacing.openLoop() ? (long) (total * 1000 / pacing.ratePerSecond())
                : (config.requests() + config.concurrency() - 1L) / config.concurrency() * (config.timeoutMs() + 1_000))
                + config.timeoutMs() + 30_000;
        long cpuBefore = JvmGauges.processCpuNanos();
        IntervalPrinter printer = new IntervalPrinter(label, series, progress);
        CamelContext camel = new DefaultCamelContext();
        try (PeriodicSampler sampler = !timed ? null : PeriodicSampler.start("progress", SAMPLE_PERIOD, () -> {
            long now = System.nanoTime();
            if (sampleJvm) {
                series.sampleJvm(now, JvmGauges.heapAfterGcBytes(), JvmGauges.liveThreads());
            }
            printer.printOver(now);
        })) {
            camel.getShutdownStrategy().setTimeout(10);
            camel.addRoutes(open != null ? open : new WorkerLoopRoute(workload,
                    timed ? baseUrls.subList(0, 1) : baseUrls, config, steps, System::nanoTime, deadline, total, done));
            camel.start();
            if (open != null) {
                open.startSender(camel);
            }
            long endOrWall;
            try {
                endOrWall = done.get(boundMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException stuck) {
                throw new IllegalStateException("load run against " + String.join(", ", baseUrls) + " did not finish "
                        + "within " + boundMs + " ms; " + completed.get() + " requests completed");
            }
            long durationNanos = dispatcher != null ? Math.max(0, lastCompletion.get() - dispatcher.startNanos()) : endOrWall;
            PaceReport pace = pace(pacing, check, cpuBefore, System.nanoTime() - start, completed.get());
            List<TimedOutcome> outcomes = recorder.timedOutcomes();
            SteadyWindow steady = timed || dispatcher != null ? null
                    : SteadyWindow.of(outcomes, config.concurrency()).orElse(null);
            RunStatistics statistics;
            synchronized (accumulator) {
                statistics = accumulator.statistics(knownAgents, durationNanos, steady);
            }
            if (timed) {
                sampler.close();
                // The run's end, not its last answer: later answers go to the last interval.
                List<IntervalSeries.Interval> intervals = series.intervals(deadline);
                printer.printRest(intervals);
                pace = new PaceReport(pacing, pace.selfCheck(), intervals, SoakVerdict.of(series, intervals));
            }
            return new Result(outcomes, statistics, recorder.maxInFlight(), pace);
        } finally {
            camel.stop();
        }
    }

    /**
     * A count-bound run's pace: {@code check}'s verdict with the JVM's share of the cores and its CPU time per
     * completed request since {@code cpuBefore} ({@link JvmGauges#processCpuNanos()}, negative when unknown).
     */
    public static PaceReport pace(Pacing pacing, PacingCheck check, long cpuBefore, long wallNanos, long completed) {
        long cpuNanos = cpuBefore < 0 ? -1 : JvmGauges.processCpuNanos() - cpuBefore;
        int cores = Runtime.getRuntime().availableProcessors();
        return PaceReport.counted(pacing, check.result(JvmGauges.cpuShare(cpuNanos, wallNanos, cores), cores,
                PacingCheck.cpuMsPerRequest(cpuNanos, completed)));
    }

    /**
     * Sends {@code load}'s warm-up, if any, not counted, and prints one line about it. A closed loop alternates
     * across {@code targets}; an open-loop {@code pacing} sends to the first at the run's rate, so
     * that its send path is compiled before it is measured (a cold JVM lags its schedule by 10-100s of ms).
     */
    public static void warmUp(PrintStream stdout, String label, List<String> targets, LoadTestConfig load, Pacing pacing)
            throws Exception {
        LoadTestConfig warm = load.warmupConfig().orElse(null);
        if (warm == null) {
            return;
        }
        Pacing paced = pacing.openLoop() ? new Pacing(pacing.ratePerSecond(), null, pacing.interval()) : Pacing.CLOSED_COUNTED;
        RunStatistics s = new LoadRunner(warm, paced, null).run(targets, label + " warm-up", List.of(), started -> { },
                false).statistics();
        stdout.printf(Locale.ROOT, "[%s] warm-up: %d requests%s in %.1f s, %d failed (not counted)%n", label,
                s.requests(), pacing.openLoop() ? " at " + pacing.ratePerSecond() + " req/s" : "", s.durationMs() / 1e3,
                s.clientErrors());
    }

    /** Prints each interval of a time-bound run once: each one over while it lasts, the rest at its end. Thread-safe. */
    static final class IntervalPrinter {
        private final String label;
        private final IntervalSeries series;
        private final PrintStream progress;
        private int printed;

        IntervalPrinter(String label, IntervalSeries series, PrintStream progress) {
            this.label = label;
            this.series = series;
            this.progress = progress;
        }

        /** Prints the intervals over half a sample period before {@code nowNanos} (late answers), not the last. */
        synchronized void printOver(long nowNanos) {
            // Answers completing at an interval's end may be recorded a little later: wait half a sample period.
            int upTo = series.indexOf(nowNanos - SAMPLE_PERIOD.toNanos() / 2);
            if (upTo > printed) {
                print(series.intervals(nowNanos), upTo);
            }
        }

        /** Prints the intervals of {@code intervals} not printed yet, once the run is over. */
        synchronized void printRest(List<IntervalSeries.Interval> intervals) {
            print(intervals, intervals.size());
        }

        private void print(List<IntervalSeries.Interval> intervals, int upTo) {
            for (int i = printed; i < upTo && progress != null; i++) {
                progress.println(progressLine(label, intervals.get(i)));
            }
            printed = Math.max(printed, upTo);
        }
    }

    /** "[rr] 0:10-0:20: 9734 requests, 973.4 req/s, p50 100.2 ms, p99 148.0 ms, 0 errors, 0 timeouts[, heap ...]". */
    static String progressLine(String label, IntervalSeries.Interval i) {
        String jvm = Double.isNaN(i.heapAfterGcMb()) ? ""
                : String.format(Locale.ROOT, ", heap after GC %.1f MB, %d threads", i.heapAfterGcMb(), i.liveThreads());
        return String.format(Locale.ROOT, "[%s] %s-%s: %d requests, %.1f req/s, p50 %s, p99 %s, %d errors, "
                        + "%d timeouts%s", label, clock(i.startSeconds()), clock(i.startSeconds() + i.lengthSeconds()),
                i.requests(), i.throughputRps(), ms(i.p50Ms()), ms(i.p99Ms()), i.errors(), i.timeouts(), jvm);
    }

    /** {@code 100.2 ms}, or {@code n/a} for a latency not observed (NaN). */
    private static String ms(double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f ms", value);
    }

    private static String clock(double seconds) {
        long s = Math.round(seconds);
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
