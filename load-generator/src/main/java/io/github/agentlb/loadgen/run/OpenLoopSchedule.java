package io.github.agentlb.loadgen.run;

/**
 * The constant-rate schedule of an open loop: request {@code i} (0-based) is intended to be sent
 * at {@code start + floor(i x 1e9 / rate)} ns, whatever happened to the requests before it (wrk2's
 * model). Pure arithmetic on the times it is given; immutable and thread-safe.
 */
public final class OpenLoopSchedule {

    private final double nanosPerRequest;
    private final long startNanos;
    private final long total;

    /**
     * @param ratePerSecond requests per second, > 0
     * @param startNanos    when request 0 is due ({@link System#nanoTime()} or an injected clock)
     * @param total         requests in the schedule, >= 1
     * @throws IllegalArgumentException naming the bad argument
     */
    public OpenLoopSchedule(double ratePerSecond, long startNanos, long total) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("ratePerSecond must be > 0, was " + ratePerSecond);
        }
        if (total < 1) {
            throw new IllegalArgumentException("total must be >= 1, was " + total);
        }
        this.nanosPerRequest = 1e9 / ratePerSecond;
        this.startNanos = startNanos;
        this.total = total;
    }

    /** The intended send time of request {@code index}, ns. */
    public long intendedNanos(long index) {
        return startNanos + (long) Math.floor(index * nanosPerRequest);
    }

    /** Requests in the schedule. */
    public long total() {
        return total;
    }

    /**
     * How many requests are due at {@code nowNanos}: those whose intended time is at or before
     * it, at most {@link #total()}. Non-decreasing in {@code nowNanos}.
     */
    public long dueBy(long nowNanos) {
        if (nowNanos < startNanos) {
            return 0;
        }
        long due = Math.min(total, (long) Math.floor((nowNanos - startNanos) / nanosPerRequest) + 1);
        // The division above and intendedNanos's multiplication may round apart by one request.
        while (due > 0 && intendedNanos(due - 1) > nowNanos) {
            due--;
        }
        while (due < total && intendedNanos(due) <= nowNanos) {
            due++;
        }
        return due;
    }
}
