package io.github.agentlb.camel;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.camel.CamelContext;

/**
 * The balancer's timer for the steps of attempts that wait: a failover attempt after its backoff
 * ({@link io.github.agentlb.core.retry.RetryBackoff}), a hedge after its delay ({@link HedgedRequest}). No thread waits: the step is a task on one
 * scheduler thread of the balancer ({@code agentlb-attempts}), made by the CamelContext's
 * {@code ExecutorServiceManager} at the first wait (so Camel shuts it down with the context, after
 * the exchanges in flight ended), or given by a test ({@link #use}). The task sends the attempt on
 * that thread: an asynchronous child ({@code agent:}, vertx-http) returns at once, a blocking one
 * (camel-http) holds the thread for its call and delays the other waits meanwhile.
 *
 * <p>Also counts the balancer's backoff draws, so that one seed repeats one sequence of waits.
 * One per balancer; thread-safe, lock-free.
 */
final class AttemptTimer {

    private final AtomicReference<ScheduledExecutorService> scheduler = new AtomicReference<>();
    private final AtomicLong draws = new AtomicLong();

    /** Runs the waits on {@code given} instead of a thread of the balancer's own; for tests, before the first wait. */
    void use(ScheduledExecutorService given) {
        scheduler.set(given);
    }

    /** @return the next draw's number: 0, 1, 2, ... over the balancer's life */
    long nextDraw() {
        return draws.getAndIncrement();
    }

    /**
     * Runs {@code step} in {@code delayNanos} on the balancer's scheduler; at once on this thread
     * when the scheduler refuses it (its context stopped), so that the exchange still ends; the
     * next wait then makes a new scheduler.
     *
     * @param camel the context whose executor service manager makes the scheduler at the first wait
     * @param owner the scheduler's owner, for Camel's thread names and shutdown
     */
    void schedule(Runnable step, long delayNanos, CamelContext camel, Object owner) {
        ScheduledExecutorService timer = scheduler.get();
        if (timer == null) {
            ScheduledExecutorService made = camel.getExecutorServiceManager()
                    .newSingleThreadScheduledExecutor(owner, "agentlb-attempts");
            if (scheduler.compareAndSet(null, made)) {
                timer = made;
            } else {
                camel.getExecutorServiceManager().shutdown(made);
                timer = scheduler.get();
            }
        }
        try {
            timer.schedule(step, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopped) {
            scheduler.compareAndSet(timer, null);
            step.run();
        }
    }
}
