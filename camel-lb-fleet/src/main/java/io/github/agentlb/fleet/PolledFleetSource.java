package io.github.agentlb.fleet;

import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.FleetListener;
import io.github.agentlb.core.fleet.FleetSource;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the sources that read their fleet again and again share: one lock, the last good fleet
 * ({@link LastGoodFleet}), one read scheduled at a time on a {@link TaskScheduler} (by default a
 * daemon thread of the source's own) and a close that stops it. A subclass's {@code start} calls
 * {@link #startable}, reads its first fleet and calls {@link #started}, all under {@link #lock},
 * and each read task calls {@link #scheduleNext}. Thread-safe: state changes under {@link #lock}.
 */
abstract class PolledFleetSource implements FleetSource {

    /** Guards the fields of this class and of the subclass. */
    final Object lock = new Object();
    /** The last good fleet, null before start. */
    LastGoodFleet fleet;
    private ScheduledExecutorService ownExecutor;
    private TaskScheduler scheduler;
    private Future<?> next;
    private boolean closed;

    /**
     * The first step of {@code start}, under {@link #lock}: checks that the source may start.
     *
     * @return the last good fleet that hands {@code listener} its fleets, for {@link #started}
     * @throws NullPointerException  if {@code listener} is null
     * @throws IllegalStateException if started or closed already
     */
    final LastGoodFleet startable(FleetListener listener) {
        Objects.requireNonNull(listener, "listener");
        if (fleet != null || closed) {
            throw new IllegalStateException(describe() + (closed ? " closed" : " already started"));
        }
        return new LastGoodFleet(describe(), listener, getClass());
    }

    /**
     * Records the first fleet and schedules the first read; call under {@link #lock}.
     *
     * @param given      the scheduler given to the builder, or null for a thread of the source's own
     * @param threadName the name of that thread
     */
    final void started(LastGoodFleet first, TaskScheduler given, String threadName, Runnable read, Duration delay) {
        fleet = first;
        if (given == null) {
            ownExecutor = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, threadName);
                thread.setDaemon(true);
                return thread;
            });
            scheduler = TaskScheduler.of(ownExecutor);
        } else {
            scheduler = given;
        }
        next = scheduler.schedule(read, delay);
    }

    /** Schedules {@code read} after {@code delay} unless closed; call under {@link #lock}. */
    final void scheduleNext(Runnable read, Duration delay) {
        if (!closed) {
            next = scheduler.schedule(read, delay);
        }
    }

    /** @return whether {@link #close()} was called; call under {@link #lock} */
    final boolean isClosed() {
        return closed;
    }

    /** @return the last fleet handed to the listener; empty before start */
    public final List<AgentSpec> fleet() {
        synchronized (lock) {
            return fleet == null ? List.of() : fleet.fleet();
        }
    }

    /** @return why the last read was not applied, or why a part of it failed (the rest applied), or null when it was read whole */
    public final String problem() {
        synchronized (lock) {
            return fleet == null ? null : fleet.problem();
        }
    }

    /** Stops the reads and frees what the subclass holds ({@link #closing()}). */
    @Override
    public final void close() {
        synchronized (lock) {
            closed = true;
            if (next != null) {
                next.cancel(false);
            }
            if (ownExecutor != null) {
                ownExecutor.shutdownNow();
            }
            closing();
        }
    }

    /** Frees what the subclass holds, under {@link #lock}; nothing by default. */
    void closing() {
    }

    @Override
    public String toString() {
        return describe();
    }
}
