package io.github.agentlb.demo;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Bounds a warning that every failed request would repeat while an outage lasts (three dead agents:
 * one per request). The first line of each distinct reason (an agent and what failed, say) is a
 * warning; its repeats within {@link #WINDOW} of that warning are not (the caller logs them at
 * DEBUG) but are counted, and the first after the window is a warning again that carries the count.
 * So a reason costs at most one WARN line per window, whatever the request rate, and the first
 * occurrence of each distinct reason is never lost. Thread-safe: one {@link ConcurrentHashMap#compute}
 * per line; the table holds the reasons seen within the last window, and those whose window ended
 * are dropped (with their count) once more than {@link #MAX_REASONS} are held, at most once a window.
 */
final class RepeatedWarnings {

    /** How long the repeats of a warning go to DEBUG, counted. */
    static final Duration WINDOW = Duration.ofSeconds(10);
    /** Reasons held before those whose window ended are dropped. */
    static final int MAX_REASONS = 256;
    private static final long WINDOW_NANOS = WINDOW.toNanos();

    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();
    private volatile long lastSweepNanos;

    /** @param nanoClock a monotonic clock, ns ({@code System::nanoTime}) */
    RepeatedWarnings(LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.lastSweepNanos = nanoClock.getAsLong() - WINDOW_NANOS;
    }

    /** A reason's window: when its last warning was logged, and the repeats since. */
    private record Window(long startNanos, int repeats) {
    }

    /**
     * One more line of {@code reason}.
     *
     * @return null when the line is a repeat within the window (log it at DEBUG); else the line is a
     *         warning, and this is what to append to it: "" or " (and N more like it since, at DEBUG)"
     */
    String admit(String reason) {
        long now = nanoClock.getAsLong();
        String[] suffix = new String[1];
        windows.compute(reason, (key, window) -> {
            if (window != null && now - window.startNanos < WINDOW_NANOS) {
                return new Window(window.startNanos, window.repeats + 1);
            }
            suffix[0] = window == null || window.repeats == 0 ? "" : " (and " + window.repeats + " more like it since, at DEBUG)";
            return new Window(now, 0);
        });
        if (windows.size() > MAX_REASONS && now - lastSweepNanos >= WINDOW_NANOS) {
            lastSweepNanos = now;
            windows.values().removeIf(window -> now - window.startNanos >= WINDOW_NANOS);
        }
        return suffix[0];
    }

    /** The reasons held, for tests. */
    int reasons() {
        return windows.size();
    }
}
