package io.github.agentlb.agent;

import java.util.concurrent.RejectedExecutionException;

/**
 * Runs a task once after a delay, without holding a thread while waiting. Production code
 * backs it by a {@link java.util.concurrent.ScheduledExecutorService}; tests use a fake whose
 * clock they advance by hand.
 */
@FunctionalInterface
public interface DelayScheduler {

    /**
     * Schedules {@code task} to run once after {@code delayNanos}.
     *
     * @param task the task to run
     * @param delayNanos delay, ns, >= 0
     * @throws RejectedExecutionException if the scheduler is stopped
     */
    void schedule(Runnable task, long delayNanos);
}
