package io.github.agentlb.agent;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/** A {@link DelayScheduler} on a virtual clock: tasks run only when the test advances time. */
final class FakeScheduler implements DelayScheduler {

    private record Pending(long dueNanos, long order, Runnable task) {
    }

    private final List<Pending> pending = new ArrayList<>();
    private long nowNanos;
    private long order;
    private boolean stopped;
    final List<Long> scheduledDelays = new ArrayList<>();

    @Override
    public void schedule(Runnable task, long delayNanos) {
        if (stopped) {
            throw new RejectedExecutionException("stopped");
        }
        scheduledDelays.add(delayNanos);
        pending.add(new Pending(nowNanos + delayNanos, order++, task));
    }

    /** Runs every task due up to now + nanos, in due order, including tasks they schedule. */
    void advance(long nanos) {
        long target = nowNanos + nanos;
        while (true) {
            Pending next = pending.stream()
                    .filter(p -> p.dueNanos() <= target)
                    .min(Comparator.comparingLong(Pending::dueNanos).thenComparingLong(Pending::order))
                    .orElse(null);
            if (next == null) {
                break;
            }
            pending.remove(next);
            nowNanos = next.dueNanos();
            next.task().run();
        }
        nowNanos = target;
    }

    /** The virtual clock, ns: a {@code LongSupplier} for the code under test. */
    long nanoTime() {
        return nowNanos;
    }

    int pendingCount() {
        return pending.size();
    }

    void stop() {
        stopped = true;
    }
}
