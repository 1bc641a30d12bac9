package io.github.agentlb.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/** A {@link TaskScheduler} with a clock of its own: tasks run on the test's thread when it is advanced. */
final class ManualScheduler implements TaskScheduler {

    private record Task(long dueNanos, long order, FutureTask<Void> future) {
    }

    private final List<Task> tasks = new ArrayList<>();
    private long nowNanos;
    private long order;

    @Override
    public synchronized Future<?> schedule(Runnable task, Duration delay) {
        FutureTask<Void> future = new FutureTask<>(task, null);
        tasks.add(new Task(nowNanos + delay.toNanos(), order++, future));
        return future;
    }

    /** Moves the clock by {@code duration}, running each task that falls due, in due order. */
    void advance(Duration duration) {
        long end;
        synchronized (this) {
            end = nowNanos + duration.toNanos();
        }
        while (true) {
            Task due;
            synchronized (this) {
                due = tasks.stream().filter(t -> t.dueNanos <= end)
                        .min(Comparator.comparingLong(Task::dueNanos).thenComparingLong(Task::order)).orElse(null);
                if (due == null) {
                    nowNanos = end;
                    return;
                }
                tasks.remove(due);
                nowNanos = due.dueNanos;
            }
            due.future.run();
        }
    }

    /** @return the delay until the next task not cancelled, or null if none is pending */
    synchronized Duration nextDelay() {
        return tasks.stream().filter(t -> !t.future.isCancelled()).mapToLong(Task::dueNanos).min()
                .stream().mapToObj(due -> Duration.ofNanos(due - nowNanos)).findFirst().orElse(null);
    }

    /** @return tasks pending and not cancelled */
    synchronized long pending() {
        return tasks.stream().filter(t -> !t.future.isCancelled()).count();
    }
}
