package io.github.agentlb.loadgen.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The generator's self-check: did its own pacing keep up, so that its throughput is the system's?
 * Fed times measured elsewhere (it reads no clock): in an open loop each send's lag behind its
 * intended time (more than {@link #MAX_LATE_SHARE} of sends over {@link #LATE_THRESHOLD_NANOS}
 * late: it fell behind); in a closed loop each worker's gap between an answer and its next send
 * against its time waiting for answers (over {@link #MAX_GAP_SHARE} in gaps: the workers fell
 * behind); in both the JVM's share of the cores (from {@link #MAX_CPU_SHARE}: CPU-bound).
 * Thread-safe: the recording methods synchronize (a few hundred ns per request).
 */
public final class PacingCheck {

    /** A send later than this after its intended time is late. */
    public static final long LATE_THRESHOLD_NANOS = 5_000_000;
    /** Share of late sends above which the open loop fell behind. */
    public static final double MAX_LATE_SHARE = 0.01;
    /** Share of the workers' time between an answer and the next send above which they fell behind. */
    public static final double MAX_GAP_SHARE = 0.05;
    /** Share of the cores' time from which the JVM counts as CPU-bound. */
    public static final double MAX_CPU_SHARE = 0.9;

    private final Histogram lagsMicros = new Histogram(LatencySummary.SIGNIFICANT_DIGITS);
    private final Histogram gapsMicros = new Histogram(LatencySummary.SIGNIFICANT_DIGITS);
    private long lateSends;
    private long maxLagNanos;
    private long gapNanos;
    private long busyNanos;

    /** An open-loop request was sent {@code lagNanos} after its intended time (negative counts as 0). */
    public synchronized void sendLag(long lagNanos) {
        long lag = Math.max(0, lagNanos);
        lagsMicros.recordValue(lag / 1_000);
        maxLagNanos = Math.max(maxLagNanos, lag);
        lateSends += lag > LATE_THRESHOLD_NANOS ? 1 : 0;
    }

    /** A worker sent its next request {@code gapNanos} after its previous answer came. */
    public synchronized void workerGap(long gapNanos) {
        long gap = Math.max(0, gapNanos);
        gapsMicros.recordValue(gap / 1_000);
        this.gapNanos += gap;
    }

    /** A worker waited {@code latencyNanos} for an answer (or a failure). */
    public synchronized void workerBusy(long latencyNanos) {
        busyNanos += Math.max(0, latencyNanos);
    }

    /** The verdict, with the JVM's CPU time per completed request, ms (NaN if not measured; taken from a shared system). */
    public synchronized Result result(double cpuShare, int cores, double cpuMsPerRequest) {
        double gapShare = gapNanos + busyNanos == 0 ? 0 : (double) gapNanos / (gapNanos + busyNanos);
        double p99Lag = LatencySummary.ms(lagsMicros, 99, maxLagNanos / 1_000);
        return new Result(lagsMicros.getTotalCount(), lateSends, p99Lag, maxLagNanos / 1e6, gapsMicros.getTotalCount(),
                gapShare, LatencySummary.ms(gapsMicros, 99, Long.MAX_VALUE), cpuShare, cores, cpuMsPerRequest);
    }

    /** {@code cpuNanos / requests} in ms; NaN when the CPU time is unknown (negative) or nothing completed. */
    public static double cpuMsPerRequest(long cpuNanos, long requests) {
        return cpuNanos < 0 || requests <= 0 ? Double.NaN : cpuNanos / 1e6 / requests;
    }

    /**
     * What the self-check found: open-loop sends (0 in a closed loop), of which late, p99 and max lag,
     * ms; worker gaps (0 in an open loop), their share of the workers' time (0..1) and p99, ms; the
     * JVM's share of the cores' time (0..1) and its CPU time per completed request, ms (NaN when not
     * measured); available cores.
     */
    public record Result(long sends, long lateSends, double p99LagMs, double maxLagMs, long gaps, double gapShare,
                         double p99GapMs, double cpuShare, int cores, double cpuMsPerRequest) {

        /** Whether late sends exceed {@link #MAX_LATE_SHARE} of the sends. */
        public boolean fellBehindSchedule() {
            return sends > 0 && lateSends > MAX_LATE_SHARE * sends;
        }

        /** Whether the workers' gaps exceed {@link #MAX_GAP_SHARE} of their time. */
        public boolean workersFellBehind() {
            return gaps > 0 && gapShare > MAX_GAP_SHARE;
        }

        /** Whether the JVM used at least {@link #MAX_CPU_SHARE} of the cores. */
        public boolean cpuBound() {
            return !Double.isNaN(cpuShare) && cpuShare >= MAX_CPU_SHARE;
        }

        /** Whether the generator kept pace, so its throughput is the system's. */
        public boolean keptPace() {
            return !fellBehindSchedule() && !workersFellBehind() && !cpuBound();
        }

        /** One line per finding, each starting with "Self-check:"; one line saying it kept pace when it did. */
        public List<String> lines() {
            List<String> lines = new ArrayList<>();
            if (fellBehindSchedule()) {
                lines.add(String.format(Locale.ROOT, "Self-check: the generator FELL BEHIND its schedule: %d of %d "
                                + "requests (%.1f%%) were sent more than %d ms late (p99 %.1f ms, max %.1f ms). Latencies "
                                + "still count from the intended send times, so they include that delay; the "
                                + "throughput is the generator's, not necessarily the system's.", lateSends, sends,
                        100.0 * lateSends / sends, LATE_THRESHOLD_NANOS / 1_000_000, p99LagMs, maxLagMs));
            }
            if (workersFellBehind()) {
                lines.add(String.format(Locale.ROOT, "Self-check: the workers FELL BEHIND: they spent %.1f%% of their "
                                + "time between an answer and their next send (p99 gap %.1f ms), so the throughput is "
                                + "partly the generator's limit, not the system's.", 100 * gapShare, p99GapMs));
            }
            if (cpuBound()) {
                lines.add(String.format(Locale.ROOT, "Self-check: this JVM was CPU-BOUND: it used %.0f%% of the %d "
                                + "cores (embedded agents and proxy included); the throughput may be the machine's "
                                + "limit, not the system's.", 100 * cpuShare, cores));
            }
            if (lines.isEmpty()) {
                lines.add("Self-check: the generator kept pace (" + detail() + ").");
            }
            return lines;
        }

        private String detail() {
            List<String> parts = new ArrayList<>();
            if (sends > 0) {
                parts.add(String.format(Locale.ROOT, "%d of %d sends more than %d ms late, p99 lag %.1f ms",
                        lateSends, sends, LATE_THRESHOLD_NANOS / 1_000_000, p99LagMs));
            }
            if (gaps > 0) {
                parts.add(String.format(Locale.ROOT, "workers between requests %.2f%% of the time, p99 gap %.2f ms",
                        100 * gapShare, p99GapMs));
            }
            if (!Double.isNaN(cpuShare)) {
                parts.add(String.format(Locale.ROOT, "JVM CPU %.0f%% of %d cores", 100 * cpuShare, cores)
                        + (Double.isNaN(cpuMsPerRequest) ? ""
                        : String.format(Locale.ROOT, ", %.3f ms per request", cpuMsPerRequest)));
            }
            return String.join("; ", parts);
        }
    }
}
