package io.github.agentlb.loadgen;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Collects the outcomes of a run from many worker threads and prints a progress line every
 * {@code progressEvery} completed requests (and at the last one). Also tracks the requests in
 * flight, so a run can show it kept within its concurrency. Thread-safe and lock-free.
 */
public final class OutcomeRecorder {

    private final ConcurrentLinkedQueue<TimedOutcome> outcomes = new ConcurrentLinkedQueue<>();
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final String label;
    private final int total;
    private final int progressEvery;
    private final PrintStream out;
    private final long startNanos = System.nanoTime();

    /**
     * @param label         prefix of progress lines, e.g. the strategy
     * @param total         requests expected
     * @param progressEvery a line every this many completed requests
     * @param out           where progress goes; {@code null} for none
     */
    public OutcomeRecorder(String label, int total, int progressEvery, PrintStream out) {
        this.label = label;
        this.total = total;
        this.progressEvery = progressEvery;
        this.out = out;
    }

    /**
     * A request is about to be sent.
     *
     * @return how many requests have been started, this one included (1-based)
     */
    public int started() {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        return started.incrementAndGet();
    }

    /** A request has completed with {@code outcome}; its send time unknown (recorded as 0). */
    public void completed(RequestOutcome outcome) {
        completed(outcome, 0);
    }

    /**
     * A request sent at {@code sentAtNanos} ({@link System#nanoTime()}) has completed with
     * {@code outcome}.
     */
    public void completed(RequestOutcome outcome, long sentAtNanos) {
        inFlight.decrementAndGet();
        outcomes.add(new TimedOutcome(outcome, sentAtNanos));
        switch (outcome.kind()) {
            case ERROR -> errors.incrementAndGet();
            case TIMEOUT -> timeouts.incrementAndGet();
            case SUCCESS -> { }
        }
        int n = completed.incrementAndGet();
        if (out != null && (n % progressEvery == 0 || n == total)) {
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            out.printf(Locale.ROOT, "[%s] %d/%d requests, %d errors, %d timeouts, %.0f req/s%n",
                    label, n, total, errors.get(), timeouts.get(), seconds == 0 ? 0 : n / seconds);
        }
    }

    /** Requests completed so far. */
    public int completedCount() {
        return completed.get();
    }

    /** The most requests that were in flight at once. */
    public int maxInFlight() {
        return maxInFlight.get();
    }

    /** A snapshot of the outcomes recorded so far, in completion order. */
    public List<RequestOutcome> outcomes() {
        List<RequestOutcome> list = new ArrayList<>(outcomes.size());
        outcomes.forEach(t -> list.add(t.outcome()));
        return list;
    }

    /** A snapshot of the outcomes recorded so far with their send times, in completion order. */
    public List<TimedOutcome> timedOutcomes() {
        return new ArrayList<>(outcomes);
    }
}
