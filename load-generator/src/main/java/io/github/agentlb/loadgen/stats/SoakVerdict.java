package io.github.agentlb.loadgen.stats;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The verdict of a time-bound run: errors, latency drift and heap drift. Its windows are the first
 * and the last {@code k = min(60 s / interval, floor(n / 2))} (at least 1) of the {@code n}
 * intervals: a minute each, or halves of a shorter run, never overlapping (an odd {@code n} under
 * two minutes leaves the middle one out). Latency drift: the last window's p99 over the first's
 * above {@link #MAX_P99_RATIO} and by more than {@link #MIN_P99_DRIFT_MS}. Heap drift (only when the
 * JVM was sampled, embedded runs): heap after GC at the end over that at the first window's end
 * above {@code 1 +} {@link #MAX_HEAP_GROWTH} and by more than {@link #MIN_HEAP_DRIFT_MB}. Pass: no
 * error or timeout, no drift.
 *
 * @param failures      errors and timeouts over the run
 * @param windowSec     each window's length, s; 0 when the run had fewer than two intervals
 * @param firstP99Ms    p99 of the first window, ms; NaN when nothing was answered in it
 * @param lastP99Ms     p99 of the last window, ms; NaN when nothing was answered in it
 * @param firstHeapMb   heap used after GC at the first window's end, MB; NaN when not sampled
 * @param lastHeapMb    heap used after GC at the end, MB; NaN when not sampled
 * @param lastWindowSec the last window's length, s: shorter when the last interval was cut short; 0 as {@code windowSec}
 */
public record SoakVerdict(long failures, double windowSec, double firstP99Ms, double lastP99Ms, double firstHeapMb,
                          double lastHeapMb, double lastWindowSec) {

    /** Largest p99 ratio and heap growth (fraction) without drift; smaller rises are noise (ms, MB). */
    public static final double MAX_P99_RATIO = 1.2, MIN_P99_DRIFT_MS = 5, MAX_HEAP_GROWTH = 0.2, MIN_HEAP_DRIFT_MB = 8;

    /** The verdict of {@code intervals}, taken from {@code series}. */
    public static SoakVerdict of(IntervalSeries series, List<IntervalSeries.Interval> intervals) {
        long failures = intervals.stream().mapToLong(IntervalSeries.Interval::failures).sum();
        int n = intervals.size();
        if (n < 2) {
            return new SoakVerdict(failures, 0, 0, 0, Double.NaN, Double.NaN, 0);
        }
        int perMinute = (int) Math.max(1, Duration.ofMinutes(1).toNanos() / series.intervalNanos());
        int k = Math.max(1, Math.min(perMinute, n / 2));
        return new SoakVerdict(failures, k * series.intervalNanos() / 1e9, series.p99Ms(0, k), series.p99Ms(n - k, n),
                lastSampled(intervals.subList(0, k)), lastSampled(intervals),
                intervals.subList(n - k, n).stream().mapToDouble(IntervalSeries.Interval::lengthSeconds).sum());
    }

    private static double lastSampled(List<IntervalSeries.Interval> intervals) {
        return intervals.stream().mapToDouble(IntervalSeries.Interval::heapAfterGcMb).filter(mb -> !Double.isNaN(mb))
                .reduce((earlier, later) -> later).orElse(Double.NaN);
    }

    /** Whether drift could be judged: at least two intervals. */
    public boolean comparable() {
        return windowSec > 0;
    }

    /** Whether the heap was sampled at both ends. */
    public boolean heapMeasured() {
        return !Double.isNaN(firstHeapMb) && !Double.isNaN(lastHeapMb);
    }

    /** Whether p99 rose beyond {@link #MAX_P99_RATIO} and {@link #MIN_P99_DRIFT_MS}. */
    public boolean latencyDrift() {
        return comparable() && lastP99Ms - firstP99Ms > MIN_P99_DRIFT_MS
                && lastP99Ms > MAX_P99_RATIO * firstP99Ms;
    }

    /** Whether the heap after GC grew beyond {@link #MAX_HEAP_GROWTH} and {@link #MIN_HEAP_DRIFT_MB}. */
    public boolean heapDrift() {
        return comparable() && heapMeasured() && lastHeapMb - firstHeapMb > MIN_HEAP_DRIFT_MB
                && lastHeapMb > (1 + MAX_HEAP_GROWTH) * firstHeapMb;
    }

    /** No failure and no drift. */
    public boolean pass() {
        return failures == 0 && !latencyDrift() && !heapDrift();
    }

    /** "Verdict: PASS: 0 errors; p99 ...; heap after GC ...". */
    public String line() {
        StringBuilder sb = new StringBuilder("Verdict: ").append(pass() ? "PASS" : "FAIL").append(": ")
                .append(failures).append(failures == 1 ? " error or timeout" : " errors and timeouts");
        if (!comparable()) {
            return sb.append("; run too short (one interval) to compare its start and end").toString();
        }
        String window = windowSec >= 60 ? "minute" : String.format(Locale.ROOT, "%.0f s", windowSec);
        String last = lastWindowSec >= 60 ? "minute" : String.format(Locale.ROOT, "%.0f s", lastWindowSec);
        if (Double.isNaN(firstP99Ms) || Double.isNaN(lastP99Ms)) {
            sb.append("; p99 not measured: no request answered in the first ").append(window).append(" or the last ")
                    .append(last);
        } else {
            sb.append(String.format(Locale.ROOT, "; p99 last %s %.1f ms vs first %s %.1f ms (x%.2f, %s)", last,
                    lastP99Ms, window, firstP99Ms, firstP99Ms == 0 ? 0 : lastP99Ms / firstP99Ms,
                    latencyDrift() ? "LATENCY DRIFT" : "no drift"));
        }
        if (heapMeasured()) {
            sb.append(String.format(Locale.ROOT, "; heap after GC %.1f MB at the end vs %.1f MB after the first %s "
                            + "(%+.0f%%, %s)", lastHeapMb, firstHeapMb, window,
                    firstHeapMb == 0 ? 0 : 100 * (lastHeapMb / firstHeapMb - 1), heapDrift() ? "HEAP DRIFT" : "no drift"));
        } else {
            sb.append("; heap not measured (the proxy runs in another JVM)");
        }
        return sb.toString();
    }
}
