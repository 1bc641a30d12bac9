package io.github.agentlb.loadgen.run;

import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.PacingCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Hands out the open loop's due requests: at each timer tick, every request of the
 * {@link OpenLoopSchedule} whose intended time has come and that was not handed out yet, with its
 * intended time. The schedule starts at the first tick. A late tick (a busy timer thread, a GC
 * pause) hands out everything that fell due meanwhile at once, each still with its own intended
 * time, so the lag shows in the {@link PacingCheck} and in the latencies, never as a lower rate.
 * Thread-safe.
 */
final class OpenLoopDispatcher {

    /** A request to send now and when it was meant to be sent (ns of the clock). */
    record Due(Workload.PlannedRequest request, long intendedNanos) {
    }

    private final double ratePerSecond;
    private final long total;
    private final Workload workload;
    private final LongSupplier clock;
    private OpenLoopSchedule schedule;
    private long next;

    /**
     * @param total    requests to hand out, >= 1
     * @param workload their users and ids ({@link Workload#requestAt})
     * @param clock    nanoTime, injected for tests
     */
    OpenLoopDispatcher(double ratePerSecond, long total, Workload workload, LongSupplier clock) {
        this.ratePerSecond = ratePerSecond;
        this.total = total;
        this.workload = Objects.requireNonNull(workload, "workload");
        this.clock = Objects.requireNonNull(clock, "clock");
        new OpenLoopSchedule(ratePerSecond, 0, total); // validates the arguments now
    }

    /** The requests due now and not handed out before, in schedule order; empty when none. */
    synchronized List<Due> due() {
        long now = clock.getAsLong();
        if (schedule == null) {
            schedule = new OpenLoopSchedule(ratePerSecond, now, total);
        }
        long dueBy = schedule.dueBy(now);
        if (dueBy <= next) {
            return List.of();
        }
        List<Due> due = new ArrayList<>((int) (dueBy - next));
        for (; next < dueBy; next++) {
            due.add(new Due(workload.requestAt(next), schedule.intendedNanos(next)));
        }
        return due;
    }

    /** How long until the next request is due, ns (0 before the first tick); {@code Long.MAX_VALUE} once all were handed out. */
    synchronized long nanosUntilNext() {
        if (schedule == null) {
            return 0;
        }
        return next >= total ? Long.MAX_VALUE : Math.max(0, schedule.intendedNanos(next) - clock.getAsLong());
    }

    /** When request 0 was due, ns; {@code Long.MIN_VALUE} before the first tick. */
    synchronized long startNanos() {
        return schedule == null ? Long.MIN_VALUE : schedule.intendedNanos(0);
    }

    /** Requests in the schedule. */
    long total() {
        return total;
    }
}
