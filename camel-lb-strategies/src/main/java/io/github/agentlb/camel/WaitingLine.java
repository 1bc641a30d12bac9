package io.github.agentlb.camel;

import io.github.agentlb.core.queue.FairQueue;
import io.github.agentlb.core.queue.PromptCosts;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A {@link RequestQueue}'s exchanges waiting: its {@link FairQueue} (made anew for a changed
 * {@code queueSize} once empty), each exchange marked with {@link AgentLb#QUEUED_PROPERTY} while it
 * is in it, and what a waiting exchange is charged, from the prompts of those that waited
 * ({@link PromptCosts}). Guarded by the queue's lock; not thread-safe.
 */
final class WaitingLine {

    private final PromptCosts costs = new PromptCosts();
    /** Null until an exchange first waits. */
    private FairQueue<WaitingExchange> queue;

    /**
     * Offers {@code w}; false when the line is full. One that comes back ({@link RequestQueue#waitAgain})
     * goes ahead of its tenant's others ({@code back}), at no cost when its tenant was charged at its
     * first release ({@code charged}).
     */
    boolean offer(WaitingExchange w, FlowControl flow, String tenant, long deadlineNanos, boolean back, boolean charged) {
        if (queue == null || queue.size() == 0 && queue.capacity() != flow.queueSize()) {
            queue = new FairQueue<>(flow.queueSize());
        }
        w.exchange.setProperty(AgentLb.QUEUED_PROPERTY, w);
        int band = flow.bandOf(w.exchange);
        double cost = charged ? 0 : costs.costOf(FlowControl.promptTokens(w.exchange));
        w.entry = back ? queue.offerFirst(w, band, tenant, cost, deadlineNanos) : queue.offer(w, band, tenant, cost, deadlineNanos);
        if (w.entry == null) {
            w.exchange.removeProperty(AgentLb.QUEUED_PROPERTY);
        }
        return w.entry != null;
    }

    /** The one a full line drops to make room for {@code tenant}, less backlogged ({@link FairQueue#displaceFor}); else null. */
    WaitingExchange displaceFor(int band, String tenant) {
        FairQueue.Entry<WaitingExchange> out = queue.displaceFor(band, tenant);
        return out == null ? null : unmarked(out);
    }

    /** The next to go, the first whose tenant is {@code eligible} (null: any); null when none may. */
    WaitingExchange poll(Predicate<String> eligible) {
        FairQueue.Entry<WaitingExchange> entry = eligible == null ? queue.poll() : queue.poll(eligible);
        return entry == null ? null : unmarked(entry);
    }

    /** Every exchange waiting, in the order they would go; the line is empty after. */
    List<WaitingExchange> pollAll() {
        List<WaitingExchange> out = new ArrayList<>();
        for (WaitingExchange w = size() == 0 ? null : poll(null); w != null; w = poll(null)) {
            out.add(w);
        }
        return out;
    }

    /** The exchanges whose deadline is at or before {@code nowNanos}, removed. */
    List<WaitingExchange> expire(long nowNanos) {
        List<WaitingExchange> out = new ArrayList<>();
        if (size() > 0) {
            for (FairQueue.Entry<WaitingExchange> entry : queue.expire(nowNanos)) {
                out.add(unmarked(entry));
            }
        }
        return out;
    }

    /** Removes {@code w}; false when it is no longer waiting. */
    boolean remove(WaitingExchange w) {
        return w.entry != null && queue.remove(w.entry);
    }

    /** Charges the tenant of {@code entry}, released earlier, the {@code tokens} its answer used ({@link FairQueue#charge}). */
    void charge(FairQueue.Entry<?> entry, double tokens) {
        queue.charge(entry.band(), entry.tenant(), tokens);
    }

    int size() {
        return queue == null ? 0 : queue.size();
    }

    /** The earliest deadline of an exchange waiting, ns; {@code Long.MAX_VALUE} when none. */
    long nextDeadline() {
        return queue == null ? Long.MAX_VALUE : queue.nextDeadline();
    }

    /** The figures; while nothing waits the capacity is {@code flow}'s {@code queueSize}, which the next offer takes. */
    QueueFigures figures(QueueCounts counts, int admitted, FlowControl flow) {
        return counts.figures(queue, size() > 0 ? queue.capacity() : flow.queueSize(), admitted);
    }

    private static WaitingExchange unmarked(FairQueue.Entry<WaitingExchange> entry) {
        entry.value().exchange.removeProperty(AgentLb.QUEUED_PROPERTY);
        return entry.value();
    }
}
