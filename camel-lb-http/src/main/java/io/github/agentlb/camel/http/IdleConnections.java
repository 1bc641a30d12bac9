package io.github.agentlb.camel.http;

import io.netty.channel.Channel;
import java.util.ArrayDeque;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The idle keep-alive connections of one agent endpoint on one event loop: a stack, the newest
 * taken first, at most {@code capacity}; each closed and dropped once idle for the pool idle timeout
 * (nginx's upstream {@code keepalive_timeout}).
 *
 * <p>Cost: O(1) per call (a push or a pop, a clock read). Since a connection goes idle at the top and
 * is taken from the top, the oldest idle are at the bottom, so one sweep at a time suffices: it is
 * scheduled on the loop for when the oldest one's time is up, closes what is due there and schedules
 * itself for the next; none is pending while the stack is empty. A connection closes between the
 * timeout and the timeout plus the loop's timer tick.
 *
 * <p>Confined to its event loop ({@code loop}), except {@link #closeIdle()}, which any thread may call.
 */
final class IdleConnections {

    /** A connection and the time it went idle, ns of {@code clock}. */
    private record Idle(Channel channel, long sinceNanos) {
    }

    private final ArrayDeque<Idle> stack = new ArrayDeque<>();
    private final ScheduledExecutorService loop;
    private final LongSupplier clock;
    private final int capacity;
    private final long timeoutNanos;
    private Future<?> sweep;

    /**
     * @param loop the event loop whose connections these are; sweeps run there
     * @param clock ns, monotonic ({@code System::nanoTime})
     * @param capacity most idle connections kept, &gt;= 0
     * @param timeoutNanos how long a connection may stay idle, ns; 0: for ever
     */
    IdleConnections(ScheduledExecutorService loop, LongSupplier clock, int capacity, long timeoutNanos) {
        this.loop = loop;
        this.clock = clock;
        this.capacity = capacity;
        this.timeoutNanos = timeoutNanos;
    }

    /** The newest idle connection that is still open, taken out of the pool; null if none. */
    Channel take() {
        for (Idle idle; (idle = stack.pollLast()) != null; ) {
            if (idle.channel.isActive()) {
                return idle.channel;
            }
        }
        return null;
    }

    /** Keeps {@code channel} as idle from now; false when the pool is full (the caller closes it). */
    boolean offer(Channel channel) {
        if (stack.size() >= capacity) {
            return false;
        }
        stack.addLast(new Idle(channel, clock.getAsLong()));
        if (sweep == null && timeoutNanos > 0) {
            sweep = loop.schedule(this::sweep, timeoutNanos, TimeUnit.NANOSECONDS);
        }
        return true;
    }

    /** Drops {@code channel} if it is idle here (it closed). */
    void remove(Channel channel) {
        stack.removeIf(idle -> idle.channel == channel);
    }

    /** Idle connections kept. */
    int size() {
        return stack.size();
    }

    /**
     * Closes every idle connection and cancels the sweep, on the loop (the connections in a call are
     * left to it). Any thread; nothing to do when the loop has shut down, its connections with it.
     */
    void closeIdle() {
        try {
            loop.execute(this::closeIdleNow);
        } catch (RejectedExecutionException e) {
            // The loop is shutting down: its connections close with it.
        }
    }

    private void closeIdleNow() {
        if (sweep != null) {
            sweep.cancel(false);
            sweep = null;
        }
        for (Idle idle; (idle = stack.pollFirst()) != null; ) {
            idle.channel.close();
        }
    }

    /** Closes the connections idle for the timeout or longer, then waits for the oldest one left. */
    private void sweep() {
        sweep = null;
        long now = clock.getAsLong();
        for (Idle oldest; (oldest = stack.peekFirst()) != null; ) {
            long left = oldest.sinceNanos + timeoutNanos - now;
            if (left > 0) {
                sweep = loop.schedule(this::sweep, left, TimeUnit.NANOSECONDS);
                return;
            }
            stack.pollFirst();
            oldest.channel.close();
        }
    }
}
