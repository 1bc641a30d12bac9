package io.github.agentlb.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A clock and a timer queue for tests (after gRPC-java's {@code FakeClock} and Finagle's
 * {@code MockTimer}): time moves only when the test calls {@link #advance}, which runs the tasks
 * that fall due, in time order (ties in the order they were scheduled), on the caller's thread,
 * each seeing {@link #nanoTime()} at its due time. Code under test takes it as its
 * {@link ScheduledExecutorService} and {@code fake::nanoTime} as its clock, so a test of timeouts,
 * rests, probes or polls neither sleeps nor depends on how fast the CPU is.
 *
 * <p>As a {@code ScheduledThreadPoolExecutor}: a negative delay counts as zero; {@link #execute} and
 * {@code submit} schedule with delay zero (they run at the next {@link #runDue()} or
 * {@link #advance}, never at once); a task's exception completes its future exceptionally and
 * stops a periodic task; after {@link #shutdown()} new tasks are rejected, periodic tasks are
 * cancelled and delayed one-shot tasks still run when due. The blocking calls
 * ({@code invokeAll}, {@code invokeAny}) would wait for tasks that only the waiting thread could
 * run, so they throw {@link UnsupportedOperationException}; {@link #awaitTermination} does not wait.
 *
 * <p>Thread-safe: any thread may schedule, cancel or read the clock; tasks run on the thread that
 * advances, one at a time (advancing from two threads at once is serialized).
 *
 * <p>Over 300 lines: the whole {@link ScheduledExecutorService} contract (one-shot, fixed rate, fixed
 * delay, futures, shutdown), which code under test calls as it calls a real one.
 */
public final class FakeScheduler implements ScheduledExecutorService {

    private final Object queueLock = new Object();
    private final Object runLock = new Object();
    /** Guarded by {@link #queueLock}. */
    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    /** Guarded by {@link #queueLock}. */
    private long sequence;
    /** Guarded by {@link #queueLock}. */
    private boolean shutdown;
    private volatile long nowNanos;

    /** A scheduler whose clock reads 0 ns. */
    public FakeScheduler() {
        this(0);
    }

    /** A scheduler whose clock reads {@code startNanos}, e.g. a large value to show code that assumes a clock starting at 0. */
    public FakeScheduler(long startNanos) {
        this.nowNanos = startNanos;
    }

    /** The fake clock, ns; moves only by {@link #advance}. Any thread. */
    public long nanoTime() {
        return nowNanos;
    }

    /**
     * Moves the clock forward by {@code duration}, running each task due until then (including those
     * the tasks schedule) in time order on this thread; the clock reads each task's due time while it
     * runs and {@code now + duration} at the end.
     *
     * @return how many tasks ran
     * @throws IllegalArgumentException if {@code duration} is negative
     */
    public int advance(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must be >= 0, was " + duration);
        }
        synchronized (runLock) {
            long target = nowNanos + duration.toNanos();
            int ran = 0;
            for (Task<?> task = nextDue(target); task != null; task = nextDue(target)) {
                task.run();
                ran++;
            }
            synchronized (queueLock) {
                nowNanos = Math.max(nowNanos, target);
            }
            return ran;
        }
    }

    /** As {@link #advance(Duration)}, by {@code amount} of {@code unit}. */
    public int advance(long amount, TimeUnit unit) {
        return advance(Duration.ofNanos(unit.toNanos(amount)));
    }

    /** Runs the tasks due now (including those they schedule with delay zero), without moving the clock; how many ran. */
    public int runDue() {
        return advance(Duration.ZERO);
    }

    /** Tasks waiting, cancelled ones not counted. */
    public int pendingCount() {
        synchronized (queueLock) {
            return queue.size();
        }
    }

    /** The delay from now of each waiting task, soonest first. */
    public List<Duration> pendingDelays() {
        synchronized (queueLock) {
            return queue.stream().sorted().map(t -> Duration.ofNanos(t.dueNanos - nowNanos)).toList();
        }
    }

    /** The delay from now of the soonest waiting task; empty when none waits. */
    public Optional<Duration> nextDelay() {
        return pendingDelays().stream().findFirst();
    }

    /** Removes and returns the soonest task due by {@code target}, setting the clock to its due time; null if none. */
    private Task<?> nextDue(long target) {
        synchronized (queueLock) {
            Task<?> head = queue.peek();
            if (head == null || head.dueNanos > target) {
                return null;
            }
            queue.poll();
            nowNanos = Math.max(nowNanos, head.dueNanos);
            return head;
        }
    }

    private <V> Task<V> enqueue(Task<V> task) {
        synchronized (queueLock) {
            if (shutdown) {
                throw new RejectedExecutionException("the fake scheduler is shut down");
            }
            queue.add(task);
        }
        return task;
    }

    private long dueIn(long delay, TimeUnit unit) {
        return nowNanos + Math.max(0, unit.toNanos(delay));
    }

    private long nextSequence() {
        synchronized (queueLock) {
            return sequence++;
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        return enqueue(new Task<Void>(Executors.callable(command, null), dueIn(delay, unit), 0));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        return enqueue(new Task<>(callable, dueIn(delay, unit), 0));
    }

    /** @throws IllegalArgumentException if {@code period <= 0} */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return periodic(command, initialDelay, period, unit, 1);
    }

    /** @throws IllegalArgumentException if {@code delay <= 0} */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return periodic(command, initialDelay, delay, unit, -1);
    }

    private ScheduledFuture<?> periodic(Runnable command, long initialDelay, long period, TimeUnit unit, int sign) {
        Objects.requireNonNull(command, "command");
        if (period <= 0) {
            throw new IllegalArgumentException("period must be > 0, was " + period + " " + unit);
        }
        return enqueue(new Task<Void>(Executors.callable(command, null), dueIn(initialDelay, unit),
                sign * unit.toNanos(period)));
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        Objects.requireNonNull(task, "task");
        return schedule(Executors.callable(task, result), 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    /** Rejects new tasks and cancels the periodic ones; delayed one-shot tasks still run when due. */
    @Override
    public void shutdown() {
        List<Task<?>> periodic;
        synchronized (queueLock) {
            shutdown = true;
            periodic = queue.stream().filter(Task::isPeriodic).toList();
        }
        periodic.forEach(t -> t.cancel(false));
    }

    /** Rejects new tasks and removes every waiting one, which is returned and never runs. */
    @Override
    public List<Runnable> shutdownNow() {
        synchronized (queueLock) {
            shutdown = true;
            List<Runnable> waiting = new ArrayList<>(queue);
            queue.clear();
            return waiting;
        }
    }

    @Override
    public boolean isShutdown() {
        synchronized (queueLock) {
            return shutdown;
        }
    }

    /** Shut down with no task waiting. */
    @Override
    public boolean isTerminated() {
        synchronized (queueLock) {
            return shutdown && queue.isEmpty();
        }
    }

    /** Does not wait (time moves only by {@link #advance}): whether it is terminated now. */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    /** @throws UnsupportedOperationException always: it would wait for tasks only this thread can run */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) {
        throw blocking();
    }

    /** @throws UnsupportedOperationException always: it would wait for tasks only this thread can run */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) {
        throw blocking();
    }

    /** @throws UnsupportedOperationException always: it would wait for tasks only this thread can run */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) {
        throw blocking();
    }

    /** @throws UnsupportedOperationException always: it would wait for tasks only this thread can run */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) {
        throw blocking();
    }

    private static UnsupportedOperationException blocking() {
        return new UnsupportedOperationException("the tasks run only when the test advances the fake scheduler");
    }

    @Override
    public String toString() {
        return "FakeScheduler[now=" + nowNanos + " ns, pending=" + pendingCount() + "]";
    }

    /**
     * A task in the queue: ordered by due time, then by when it was scheduled. {@code period} is 0
     * for a one-shot task, {@code > 0} for a fixed rate, {@code < 0} for a fixed delay (as in
     * {@code ScheduledThreadPoolExecutor}).
     */
    private final class Task<V> extends FutureTask<V> implements RunnableScheduledFuture<V> {

        private final long period;
        private long dueNanos;
        private long order;

        Task(Callable<V> callable, long dueNanos, long period) {
            super(callable);
            this.dueNanos = dueNanos;
            this.period = period;
            this.order = nextSequence();
        }

        @Override
        public boolean isPeriodic() {
            return period != 0;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - nowNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            if (other instanceof Task<?> task) {
                int byDue = Long.compare(dueNanos, task.dueNanos);
                return byDue != 0 ? byDue : Long.compare(order, task.order);
            }
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public void run() {
            if (!isPeriodic()) {
                super.run();
            } else if (runAndReset()) {
                synchronized (queueLock) {
                    if (shutdown) {
                        cancel(false);
                        return;
                    }
                    dueNanos = period > 0 ? dueNanos + period : nowNanos - period;
                    order = sequence++;
                    queue.add(this);
                }
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                synchronized (queueLock) {
                    queue.remove(this);
                }
            }
            return cancelled;
        }
    }
}
