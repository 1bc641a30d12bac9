package io.github.agentlb.loadgen.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * Makes a run's changes (a fault on, an agent killed, added or drained) just before a given request
 * is sent, so every run changes at the same requests: on the thread starting it, or on a controller
 * thread for a long change (stopping a server). Each is stamped on the run's clock; what one throws
 * is rethrown by {@link #await()}, never into the load's threads. Thread-safe.
 */
public final class Changes implements IntConsumer, AutoCloseable {

    /** How long {@link #await()} waits for a change on the controller thread, s. */
    private static final long WAIT_SECONDS = 30;

    @FunctionalInterface
    public interface Action {
        /** Makes the change; returns when the phase it opens begins, ns of the run's clock: after it, or before for a kill. */
        long apply() throws Exception;
    }

    /** A change (e.g. {@code kill A1}) made just before request {@code atRequest} (1-based); async: on the controller. */
    public record Change(String label, int atRequest, boolean async, Action action) {
    }

    /** A change made on the load's thread; the phase it opens begins once it returned ({@code clock}, ns). */
    public static Action now(LongSupplier clock, Runnable change) {
        return () -> {
            change.run();
            return clock.getAsLong();
        };
    }

    /** A change made on the load's thread whose phase begins just before it, so that every answer it causes follows the stamp. */
    public static Action before(LongSupplier clock, Runnable change) {
        return () -> {
            long start = clock.getAsLong();
            change.run();
            return start;
        };
    }

    /** A change as made: began just before the action, and where its phase starts ({@link Action#apply()}), run clock. */
    public record Made(long beganNanos, long startNanos) {
    }

    private final List<Change> changes;
    private final LongSupplier clock;
    private final ExecutorService controller = Executors.newSingleThreadExecutor(Parallel.daemon("loadgen-changes"));
    private final AtomicReferenceArray<Future<Made>> made;

    /** @param clock the clock of the outcomes' send times, ns */
    public Changes(List<Change> changes, LongSupplier clock) {
        this.changes = List.copyOf(changes);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.made = new AtomicReferenceArray<>(changes.size());
    }

    /** The 1-based request starting part {@code k} of {@code parts} of {@code requests} (>= parts): {@code k n / parts + 1}. */
    public static int atRequest(int k, int parts, int requests) {
        if (requests < parts) {
            throw new IllegalArgumentException("requests must be >= " + parts + " for " + parts + " phases, was "
                    + requests);
        }
        return k * requests / parts + 1;
    }

    @Override
    public void accept(int started) {
        for (int i = 0; i < changes.size(); i++) {
            Change c = changes.get(i);
            if (c.atRequest() == started) {
                FutureTask<Made> task = new FutureTask<>(() -> new Made(clock.getAsLong(), c.action().apply()));
                made.set(i, task);
                if (c.async()) {
                    controller.execute(task);
                } else {
                    task.run();
                }
            }
        }
    }

    /** Waits for the changes, returned as made; rethrows a change's failure; IllegalStateException if one never came due. */
    public List<Made> await() throws Exception {
        List<Made> all = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            Future<Made> f = made.get(i);
            if (f == null) {
                throw new IllegalStateException("the run ended before request " + changes.get(i).atRequest()
                        + ", where '" + changes.get(i).label() + "' was due");
            }
            try {
                all.add(f.get(WAIT_SECONDS, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
        return all;
    }

    @Override
    public void close() {
        controller.shutdownNow();
    }
}
