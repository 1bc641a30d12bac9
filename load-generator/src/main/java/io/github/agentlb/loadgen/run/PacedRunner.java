package io.github.agentlb.loadgen.run;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.IntervalSeries;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.SoakVerdict;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Runs one open-loop ({@link OpenLoopRoute}) or time-bound closed-loop ({@link WorkerLoopRoute})
 * load. A time-bound run keeps no list of outcomes (memory stays flat, so the heap measured is the
 * proxy's), counts them per interval ({@link IntervalSeries}) and prints a progress line per
 * interval; with {@code sampleJvm} (agents and proxy in this JVM) it also samples heap after GC and
 * live threads every second. Not meant to run concurrently with itself on one instance.
 */
public final class PacedRunner {

    /** How often a time-bound run samples the JVM and looks for a finished interval to print. */
    static final Duration SAMPLE_PERIOD = Duration.ofSeconds(1);

    /**
     * The result of a run.
     *
     * @param statistics  figures over the whole run (latencies from intended send times in an open loop)
     * @param maxInFlight the most requests in flight at once
     * @param pace        pacing, self-check, and for a time-bound run intervals and verdict
     */
    public record Result(RunStatistics statistics, int maxInFlight, PaceReport pace) {
    }

    private final LoadTestConfig config;
    private final Pacing pacing;
    private final PrintStream progress;
    private final boolean sampleJvm;

    /**
     * @param progress  where progress lines go; {@code null} for none
     * @param sampleJvm whether to sample this JVM's heap and threads (embedded runs)
     * @throws IllegalArgumentException if {@code pacing} is the default one, which {@link LoadRunner} serves
     */
    public PacedRunner(LoadTestConfig config, Pacing pacing, PrintStream progress, boolean sampleJvm) {
        this.config = Objects.requireNonNull(config, "config");
        this.pacing = Objects.requireNonNull(pacing, "pacing");
        if (pacing.isDefault()) {
            throw new IllegalArgumentException("pacing must be open-loop or time-bound, was " + pacing);
        }
        this.progress = progress;
        this.sampleJvm = sampleJvm;
    }

    /**
     * Sends the load to {@code baseUrl} and returns its figures.
     *
     * @param knownAgents agents listed even when they answered nothing (may be empty)
     * @throws IllegalStateException if the run does not end within its worst case
     * @throws Exception             if the Camel context cannot start
     */
    public Result run(String baseUrl, String label, Collection<String> knownAgents) throws Exception {
        Workload workload = config.workload();
        long total = pacing.openLoop() ? pacing.openLoopRequests(config.requests()) : Long.MAX_VALUE;
        long start = System.nanoTime();
        IntervalSeries series = pacing.timed()
                ? new IntervalSeries(start, pacing.interval().toNanos(), pacing.duration().toNanos())
                : new IntervalSeries(start, pacing.interval().toNanos());
        RunStatistics.Accumulator accumulator = new RunStatistics.Accumulator();
        CompletableFuture<Long> done = new CompletableFuture<>();
        AtomicLong completed = new AtomicLong();
        AtomicLong lastCompletion = new AtomicLong(start);
        OutcomeRecorder recorder = new OutcomeRecorder(label, (int) Math.min(Integer.MAX_VALUE, total),
                config.progressEvery(), pacing.timed() ? null : progress, false, (outcome, from) -> {
                    long at = from + outcome.latencyNanos();
                    series.record(at, outcome);
                    synchronized (accumulator) {
                        accumulator.add(outcome);
                    }
                    lastCompletion.accumulateAndGet(at, Math::max);
                    if (completed.incrementAndGet() == total) {
                        done.complete(at);
                    }
                });
        PacingCheck check = new PacingCheck();
        RequestSteps steps = new RequestSteps(recorder, n -> { }, System::nanoTime, check);
        OpenLoopDispatcher dispatcher = pacing.openLoop()
                ? new OpenLoopDispatcher(pacing.ratePerSecond(), total, workload, System::nanoTime) : null;
        long deadline = pacing.timed() ? start + pacing.duration().toNanos() : Long.MAX_VALUE;
        long boundMs = (pacing.timed() ? pacing.duration().toMillis()
                : (long) (total * 1000 / pacing.ratePerSecond())) + config.timeoutMs() + 30_000;
        long cpuBefore = JvmGauges.processCpuNanos();
        CamelContext camel = new DefaultCamelContext();
        IntervalPrinter printer = new IntervalPrinter(label, series, progress);
        try (JvmGauges gauges = new JvmGauges();
             PeriodicSampler sampler = pacing.timed()
                     ? PeriodicSampler.start("progress", SAMPLE_PERIOD, () -> sample(series, gauges, printer)) : null) {
            camel.getShutdownStrategy().setTimeout(10);
            camel.addRoutes(dispatcher != null
                    ? new OpenLoopRoute(dispatcher, baseUrl, config.timeoutMs(), steps)
                    : WorkerLoopRoute.untilDeadline(workload, baseUrl, config, steps, System::nanoTime, deadline, done));
            camel.start();
            long endOrWall;
            try {
                endOrWall = done.get(boundMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException stuck) {
                throw new IllegalStateException("paced run against " + baseUrl + " did not finish within " + boundMs
                        + " ms; " + completed.get() + " requests completed");
            }
            long end = lastCompletion.get();
            long from = dispatcher != null ? dispatcher.startNanos() : start;
            long durationNanos = dispatcher != null ? Math.max(0, end - from) : endOrWall;
            long cpuNanos = cpuBefore < 0 ? -1 : JvmGauges.processCpuNanos() - cpuBefore;
            double cpuShare = JvmGauges.cpuShare(cpuNanos, System.nanoTime() - start, JvmGauges.cores());
            RunStatistics statistics;
            synchronized (accumulator) {
                statistics = accumulator.statistics(knownAgents, durationNanos);
            }
            PacingCheck.Result selfCheck = check.result(cpuShare, JvmGauges.cores(),
                    PacingCheck.cpuMsPerRequest(cpuNanos, completed.get()));
            if (!pacing.timed()) {
                return new Result(statistics, recorder.maxInFlight(), PaceReport.counted(pacing, selfCheck));
            }
            if (sampler != null) {
                sampler.close();
            }
            // The run's end, not its last answer: later answers are in the last interval, which keeps its length.
            List<IntervalSeries.Interval> intervals = series.intervals(deadline);
            printer.printRest(intervals);
            return new Result(statistics, recorder.maxInFlight(),
                    new PaceReport(pacing, selfCheck, intervals, SoakVerdict.of(series, intervals)));
        } finally {
            camel.stop();
        }
    }

    /** One sample of a timed run: samples the JVM (when asked) and prints each interval once it is over. */
    private void sample(IntervalSeries series, JvmGauges gauges, IntervalPrinter printer) {
        long now = System.nanoTime();
        if (sampleJvm) {
            series.sampleJvm(now, gauges.heapAfterGcBytes(), JvmGauges.liveThreads());
        }
        printer.printOver(now);
    }

    /**
     * Prints each interval of a series once: while the run lasts each one that is over, at its end
     * the rest, the last one included (it absorbs the answers after the run's end). Thread-safe.
     */
    static final class IntervalPrinter {
        private final String label;
        private final IntervalSeries series;
        private final PrintStream progress;
        private int printed;

        /** @param progress where the lines go; {@code null} for none */
        IntervalPrinter(String label, IntervalSeries series, PrintStream progress) {
            this.label = label;
            this.series = series;
            this.progress = progress;
        }

        /**
         * Prints the intervals over at {@code nowNanos}, except a bounded series' last one, which
         * only {@link #printRest} prints.
         */
        synchronized void printOver(long nowNanos) {
            // Answers completing at an interval's end may be recorded a little later: wait half a sample period.
            // A bounded series' index stops at its last interval, so that one is left to printRest.
            print(series.indexOf(nowNanos - SAMPLE_PERIOD.toNanos() / 2), nowNanos);
        }

        /** Prints the intervals of {@code intervals} not printed yet, once the run is over. */
        synchronized void printRest(List<IntervalSeries.Interval> intervals) {
            for (int i = printed; i < intervals.size() && progress != null; i++) {
                progress.println(progressLine(label, intervals.get(i)));
            }
            printed = Math.max(printed, intervals.size());
        }

        private void print(int upTo, long nowNanos) {
            if (progress == null || upTo <= printed) {
                return;
            }
            List<IntervalSeries.Interval> intervals = series.intervals(nowNanos);
            for (int i = printed; i < upTo; i++) {
                progress.println(progressLine(label, intervals.get(i)));
            }
            printed = upTo;
        }
    }

    /** "[rr] 0:10-0:20: 9734 requests, 973.4 req/s, p50 100.2 ms, p99 148.0 ms, 0 errors, 0 timeouts[, heap ...]". */
    static String progressLine(String label, IntervalSeries.Interval i) {
        String jvm = Double.isNaN(i.heapAfterGcMb()) ? ""
                : String.format(Locale.ROOT, ", heap after GC %.1f MB, %d threads", i.heapAfterGcMb(), i.liveThreads());
        return String.format(Locale.ROOT, "[%s] %s-%s: %d requests, %.1f req/s, p50 %.1f ms, p99 %.1f ms, %d errors, "
                        + "%d timeouts%s", label, clock(i.startSeconds()), clock(i.startSeconds() + i.lengthSeconds()),
                i.requests(), i.throughputRps(), i.p50Ms(), i.p99Ms(), i.errors(), i.timeouts(), jvm);
    }

    private static String clock(double seconds) {
        long s = Math.round(seconds);
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
