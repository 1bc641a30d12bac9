package io.github.agentlb.loadgen.run;

import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Collects the outcomes of a run from many threads at once (chiefly Netty's event loops, on which
 * each answer is recorded) and prints a progress line every {@code progressEvery} completed
 * requests (and at the last one). Also tracks the requests in flight, so a run can show it kept
 * within its concurrency. Thread-safe and lock-free.
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
    private final boolean retain;
    private final OutcomeListener listener;
    private final long startNanos = System.nanoTime();

    /** Told each outcome as it is recorded, on the recording thread; must be thread-safe and quick. */
    @FunctionalInterface
    public interface OutcomeListener {
        /** {@code outcome} was recorded; it counts from {@code fromNanos} (its send or intended time). */
        void completed(RequestOutcome outcome, long fromNanos);
    }

    /**
     * @param label         prefix of progress lines, e.g. the strategy
     * @param total         requests expected
     * @param progressEvery a line every this many completed requests
     * @param out           where progress goes; {@code null} for none
     */
    public OutcomeRecorder(String label, int total, int progressEvery, PrintStream out) {
        this(label, total, progressEvery, out, true, (outcome, from) -> { });
    }

    /**
     * A recorder that keeps every outcome ({@code retain}) or only counts them and tells
     * {@code listener}, for a run too long to keep them all (a soak, whose heap is measured).
     */
    public OutcomeRecorder(String label, int total, int progressEvery, PrintStream out, boolean retain,
                           OutcomeListener listener) {
        this.label = label;
        this.total = total;
        this.progressEvery = progressEvery;
        this.out = out;
        this.retain = retain;
        this.listener = listener;
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
        if (retain) {
            outcomes.add(new TimedOutcome(outcome, sentAtNanos));
        }
        listener.completed(outcome, sentAtNanos);
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

    /** Errors and timeouts so far. */
    public long failedCount() {
        return errors.get() + timeouts.get();
    }

    /** A snapshot of the outcomes recorded so far, in completion order (none unless retained). */
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
