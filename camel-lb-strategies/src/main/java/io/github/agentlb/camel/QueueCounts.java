package io.github.agentlb.camel;

import io.github.agentlb.core.queue.FairQueue;
import java.util.Map;

/**
 * What a {@link RequestQueue} has done since it was made, for its {@link QueueFigures}: exchanges
 * released, refused when full, expired, left, and the total and longest wait of those released.
 * Guarded by the queue's lock; not thread-safe.
 */
final class QueueCounts {

    long released;
    long rejectedFull;
    long expired;
    long left;
    private long waitNanos;
    private long maxWaitNanos;

    /** One exchange released after waiting {@code waitedNanos}. */
    void released(long waitedNanos) {
        released++;
        waitNanos += waitedNanos;
        maxWaitNanos = Math.max(maxWaitNanos, waitedNanos);
    }

    /** The figures with the queue's own state: {@code queue} (null before anything waited), its capacity and the exchanges let through. */
    QueueFigures figures(FairQueue<?> queue, int capacity, int admitted) {
        return new QueueFigures(queue == null ? Map.of() : queue.sizes(), capacity,
                admitted, released, rejectedFull, expired, left, waitNanos, maxWaitNanos);
    }
}
