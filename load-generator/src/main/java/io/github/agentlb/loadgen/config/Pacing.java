package io.github.agentlb.loadgen.config;

import io.github.agentlb.core.Check;
import java.time.Duration;
import java.util.Locale;

/**
 * How a run paces and ends its requests, beside {@link LoadTestConfig}'s shape. Closed loop
 * ({@code ratePerSecond} 0): each of {@code concurrency} workers sends its next request when its
 * last one is answered. Open loop: request {@code i} (0-based) is due at {@code start + i / rate}
 * whatever happened to the others ({@code OpenLoopRoute}), latency counting from then.
 * Count-bound ({@code duration} null): {@code requests} requests; time-bound: until
 * {@code duration} has passed (open loop: the requests due by then), with figures per
 * {@code interval} and a soak verdict ({@code SoakVerdict}).
 *
 * @param ratePerSecond requests per second of the open loop, in (0, {@value #MAX_RATE}]; 0 for the closed loop
 * @param duration      how long to send, >= {@link #interval}, or null for a count-bound run
 * @param interval      the length of a progress line's and a soak report's interval, > 0
 */
public record Pacing(double ratePerSecond, Duration duration, Duration interval) {

    public static final double MAX_RATE = 100_000;
    /** Interval of progress lines and soak figures: 10 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
    /** The main job's pacing: closed loop, count-bound. */
    public static final Pacing CLOSED_COUNTED = new Pacing(0, null, DEFAULT_INTERVAL);

    /** @throws IllegalArgumentException naming the first bad field and its value */
    public Pacing {
        if (!(ratePerSecond == 0 || ratePerSecond > 0 && ratePerSecond <= MAX_RATE)) {
            throw new IllegalArgumentException("ratePerSecond must be 0 or in (0, " + (long) MAX_RATE + "], was "
                    + ratePerSecond);
        }
        Check.positive("interval", interval);
        if (duration != null && duration.compareTo(interval) < 0) {
            throw new IllegalArgumentException("duration must be >= interval (" + interval + "), was " + duration);
        }
    }

    /** Whether requests follow a constant-rate schedule. */
    public boolean openLoop() {
        return ratePerSecond > 0;
    }

    /** Whether the run ends after {@link #duration()} rather than after a number of requests. */
    public boolean timed() {
        return duration != null;
    }

    /** Whether this is the main job's pacing (closed loop, count-bound), served by {@code LoadRunner}. */
    public boolean isDefault() {
        return !openLoop() && !timed();
    }

    /** Requests an open loop sends: {@code requests} when count-bound, else {@code ceil(duration x rate)}. */
    public long openLoopRequests(int requests) {
        return timed() ? (long) Math.ceil(duration.toNanos() / 1e9 * ratePerSecond) : requests;
    }

    /** A human description: "open loop, 500 req/s, for 10m0s" or "closed loop, 100 workers, 6000 requests". */
    public String describe(LoadTestConfig config) {
        return (openLoop() ? "open loop at " + number(ratePerSecond) + " req/s (constant schedule)"
                : "closed loop, " + config.concurrency() + " workers") + ", "
                + (timed() ? "for " + formatDuration(duration) : config.requests() + " requests");
    }

    /** {@code 10m}, {@code 1m30s}, {@code 45s}, {@code 1.5s}. */
    public static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 != 0) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        long s = ms / 1000;
        return s < 60 ? s + "s" : s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
    }

    /** {@code value} without a fraction when whole: {@code 500}, {@code 2.5}. */
    public static String number(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }
}
