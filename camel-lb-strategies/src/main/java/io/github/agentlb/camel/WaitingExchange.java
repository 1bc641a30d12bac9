package io.github.agentlb.camel;

import io.github.agentlb.core.queue.FairQueue;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;

/**
 * An exchange waiting in a {@link RequestQueue}: its callback, when it came, its queue entry and,
 * once released under a tenant limit, its tenant. Its fields other than the final ones are
 * written under the queue's lock.
 */
final class WaitingExchange implements QueuedExchange {

    private final RequestQueue queue;
    final Exchange exchange;
    final AsyncCallback callback;
    /** When it came (the balancer's clock, ns). */
    final long sinceNanos;
    /** Set under the queue's lock when offered; null when refused. */
    FairQueue.Entry<WaitingExchange> entry;
    /** Set under the queue's lock when released and counted against its tenant's limit; else null. */
    String tenant;

    WaitingExchange(RequestQueue queue, Exchange exchange, AsyncCallback callback, long sinceNanos) {
        this.queue = queue;
        this.exchange = exchange;
        this.callback = callback;
        this.sinceNanos = sinceNanos;
    }

    @Override
    public boolean leave() {
        return queue.leave(this);
    }
}
