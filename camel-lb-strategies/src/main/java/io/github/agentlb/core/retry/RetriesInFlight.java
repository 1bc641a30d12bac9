package io.github.agentlb.core.retry;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counts behind a {@link RetryBudget}: requests in flight, retries in flight, and the totals
 * of retries started and refused, and of the hedges among the retries (a hedged request's second
 * agent is a retry for the budget) sent and won. One per balancer, outside its configuration (a new budget
 * applies to the counts as they are). Thread-safe and lock-free: {@link #tryStartRetry} is one
 * compare-and-set loop on the retries in flight.
 */
public final class RetriesInFlight {

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final LongAdder started = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder hedgesSent = new LongAdder();
    private final LongAdder hedgesWon = new LongAdder();

    /** A request began. */
    public void requestStarted() {
        requests.incrementAndGet();
    }

    /** A request ended (whatever its attempts). */
    public void requestEnded() {
        requests.decrementAndGet();
    }

    /**
     * Starts a retry if {@code budget} allows one more now: the retries in flight below
     * {@link RetryBudget#allowed} of the requests in flight.
     *
     * @return true when the retry may start (then {@link #retryEnded()} must follow); false when
     *     the budget is spent (counted as refused)
     */
    public boolean tryStartRetry(RetryBudget budget) {
        long allowed = budget.allowed(requests.get());
        for (long now = retries.get(); ; now = retries.get()) {
            if (now >= allowed) {
                refused.increment();
                return false;
            }
            if (retries.compareAndSet(now, now + 1)) {
                started.increment();
                return true;
            }
        }
    }

    /**
     * Counts a retry that spends no budget (the agent before it never saw the request).
     *
     * @return true
     */
    public boolean freeRetry() {
        started.increment();
        return true;
    }

    /**
     * A retry counted as started ({@link #tryStartRetry} or {@link #freeRetry}) found no agent to
     * go to and was not sent: it is not counted (what {@link #tryStartRetry} holds in flight still
     * ends with {@link #retryEnded()}).
     */
    public void retryNotSent() {
        started.decrement();
    }

    /** A retry that {@link #tryStartRetry} started ended. */
    public void retryEnded() {
        retries.decrementAndGet();
    }

    /** @return the requests in flight now */
    public long requests() {
        return requests.get();
    }

    /** @return the retries in flight now */
    public long retries() {
        return retries.get();
    }

    /** @return the retries started since creation */
    public long retriesStarted() {
        return started.sum();
    }

    /** @return the retries the budget refused since creation */
    public long budgetExhausted() {
        return refused.sum();
    }

    /** A hedge, started as a retry by {@link #tryStartRetry}, was sent. */
    public void hedgeSent() {
        hedgesSent.increment();
    }

    /** A hedge won its request: its answer head came first. */
    public void hedgeWon() {
        hedgesWon.increment();
    }

    /** @return the hedges sent since creation */
    public long hedgesSent() {
        return hedgesSent.sum();
    }

    /** @return the hedges that won their request since creation */
    public long hedgesWon() {
        return hedgesWon.sum();
    }
}
