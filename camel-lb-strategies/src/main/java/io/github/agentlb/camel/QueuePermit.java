package io.github.agentlb.camel;

import io.github.agentlb.core.queue.FairQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;

/**
 * The callback of an exchange a {@link RequestQueue} let through: it frees the exchange's place
 * before the route goes on, or sends the exchange back to wait ({@link #waitAgain}); it is also the
 * exchange's property {@value #PROPERTY}, by which its first attempt sent tells the queue that the
 * exchange holds an agent's place ({@link #placed}). Thread-safe; called once, by the exchange's attempts.
 */
final class QueuePermit implements AsyncCallback, WaitsAgain {

    /** Exchange property: the permit of an exchange let through (copied to its attempts and hedge legs). */
    static final String PROPERTY = "agentlb.queue.permit";
    /** Exchange property: the exchange went back to wait once after a busy answer; a second one is the client's. */
    private static final String WAITED_AGAIN = "agentlb.queue.waitedAgain";
    private final RequestQueue queue;
    private final AtomicBoolean settled = new AtomicBoolean();
    final Exchange exchange;
    final AsyncCallback callback;
    /** Whether the queue's {@code process} already returned false for it: the route then hears {@code done(false)}. */
    final boolean released;
    /** Its entry in the queue when it waited there, else null. */
    final FairQueue.Entry<?> entry;
    /** The exchange's tenant. */
    final String tenant;
    /** Whether it holds one of its tenant's places under {@code maxInFlightPerTenant}. */
    final boolean counted;
    /** When the exchange first came, ns on the balancer's clock; its deadline in the queue counts from there. */
    final long sinceNanos;
    final long deadlineNanos;

    QueuePermit(RequestQueue queue, Exchange exchange, AsyncCallback callback, boolean released, FairQueue.Entry<?> entry,
            String tenant, boolean counted, long sinceNanos, long deadlineNanos) {
        this.queue = queue;
        this.exchange = exchange;
        this.callback = callback;
        this.released = released;
        this.entry = entry;
        this.tenant = tenant;
        this.counted = counted;
        this.sinceNanos = sinceNanos;
        this.deadlineNanos = deadlineNanos;
        exchange.setProperty(PROPERTY, this);
    }

    /** @return whether the exchange has not gone back to wait yet (it may, once) */
    boolean mayWaitAgain() {
        return exchange.getProperty(WAITED_AGAIN) == null;
    }

    /** The exchange goes back to wait: its once. */
    void waitsAgain() {
        exchange.setProperty(WAITED_AGAIN, Boolean.TRUE);
    }

    /** An attempt of an exchange let through by a queue was sent: the exchange holds an agent's place. */
    static void placed(Exchange attempt) {
        if (OwnProperties.get(attempt, PROPERTY) instanceof QueuePermit permit) {
            permit.queue.placed(permit);
        }
    }

    /** @return true once, the first time: the exchange's place is from now on its agent's to count, or it completed */
    boolean settle() {
        return settled.compareAndSet(false, true);
    }

    /**
     * The exchange's agent answered busy and no other agent can take it: it waits in the queue
     * again instead of ending with the busy answer.
     *
     * @return true when it waits again: its place is given back and this callback must then not be
     *     called, the exchange completing through the permit of its next release; false when it
     *     cannot (no queue, the queue full, its deadline passed, every agent resting)
     */
    @Override
    public boolean waitAgain() {
        return queue.waitAgain(this);
    }

    @Override
    public void done(boolean doneSync) {
        try {
            callback.done(doneSync && !released);
        } finally {
            queue.completed(this);
        }
    }
}
