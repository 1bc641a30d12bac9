package io.github.agentlb.fleet;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs a source's next read after a delay. A source schedules one task at a time and schedules
 * the next from the task itself, so a fake that runs due tasks when its clock is advanced makes
 * every test exact (no wall clock, no sleep).
 */
@FunctionalInterface
public interface TaskScheduler {

    /**
     * Runs {@code task} once, {@code delay} from now, on the scheduler's thread.
     *
     * @return a handle whose {@code cancel(false)} cancels the task if it has not started
     */
    Future<?> schedule(Runnable task, Duration delay);

    /** A scheduler over an executor the caller owns (and shuts down). */
    static TaskScheduler of(ScheduledExecutorService executor) {
        return (task, delay) -> executor.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    }
}
