package io.github.agentlb.loadgen.run;

import io.github.agentlb.core.Check;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a sampling task on a daemon thread at start, at a fixed rate and once more when closed (so
 * a short run has a first and a last sample); a failure is logged and the schedule goes on.
 * {@link #close()} waits for the thread, so what it wrote is visible after. Thread-safe.
 */
public final class PeriodicSampler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PeriodicSampler.class);
    /** How long {@link #close()} waits for a running sample, ms. */
    private static final long CLOSE_WAIT_MS = 5_000;

    private final String name;
    private final Runnable task;
    private final ScheduledExecutorService executor;

    private PeriodicSampler(String name, Runnable task) {
        this.name = name;
        this.task = task;
        this.executor = Executors.newSingleThreadScheduledExecutor(Parallel.daemon("loadgen-sampler-" + name));
    }

    /** Samples every {@code period} (> 0) on thread {@code loadgen-sampler-<name>}; {@code task} quick, never blocking. */
    public static PeriodicSampler start(String name, Duration period, Runnable task) {
        Objects.requireNonNull(task, "task");
        Check.positive("period", period);
        PeriodicSampler sampler = new PeriodicSampler(name, task);
        sampler.executor.scheduleAtFixedRate(sampler::sample, 0, period.toNanos(), TimeUnit.NANOSECONDS);
        return sampler;
    }

    private void sample() {
        try {
            task.run();
        } catch (RuntimeException e) {
            // One failed sample must not cancel the schedule: the next one tries again.
            LOG.warn("Sampler {} failed: {}", name, e.toString());
        }
    }

    /** Stops the schedule, waits for a running sample, then takes the last sample on this thread. Idempotent. */
    @Override
    public synchronized void close() {
        if (executor.isShutdown()) {
            return;
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
                LOG.warn("Sampler {} did not stop within {} ms", name, CLOSE_WAIT_MS);
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
            return;
        }
        sample();
    }
}
