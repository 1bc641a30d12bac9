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
import java.util.function.ObjLongConsumer;

/**
 * Collects a run's outcomes from many threads (chiefly Netty's event loops), keeps them with their
 * send times when told to (not in a soak), tells a listener each, tracks the requests in flight and
 * prints a progress line every {@code progressEvery} completed requests and at the last. Thread-safe, lock-free.
 */
public final class OutcomeRecorder {

    private final ConcurrentLinkedQueue<TimedOutcome> outcomes = new ConcurrentLinkedQueue<>();
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final String label;
    private final int total;
    private final int progressEvery;
    private final PrintStream out;
    private final boolean retain;
    private final ObjLongConsumer<RequestOutcome> listener;
    private final long startNanos = System.nanoTime();

    /**
     * A recorder of {@code total} requests printing to {@code out} (null: no lines); keeps them when {@code retain}.
     * {@code listener} is told each outcome and its send time on the recording thread: thread-safe and quick.
     */
    public OutcomeRecorder(String label, int total, int progressEvery, PrintStream out, boolean retain,
                           ObjLongConsumer<RequestOutcome> listener) {
        this.label = label;
        this.total = total;
        this.progressEvery = progressEvery;
        this.out = out;
        this.retain = retain;
        this.listener = listener;
    }

    /** A request is about to be sent; returns how many have been started, this one included (1-based). */
    public int started() {
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        return started.incrementAndGet();
    }

    /** A request sent at {@code sentAtNanos} (its send or intended time, {@link System#nanoTime()}) completed with {@code outcome}. */
    public void completed(RequestOutcome outcome, long sentAtNanos) {
        inFlight.decrementAndGet();
        if (retain) {
            outcomes.add(new TimedOutcome(outcome, sentAtNanos));
        }
        listener.accept(outcome, sentAtNanos);
        if (!outcome.isSuccess()) {
            (outcome.kind() == RequestOutcome.Kind.TIMEOUT ? timeouts : failed).incrementAndGet();
        }
        int n = completed.incrementAndGet();
        if (out != null && (n % progressEvery == 0 || n == total)) {
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            out.printf(Locale.ROOT, "[%s] %d/%d requests, %d errors, %d timeouts, %.0f req/s%n",
                    label, n, total, failed.get(), timeouts.get(), seconds == 0 ? 0 : n / seconds);
        }
    }

    public int maxInFlight() {
        return maxInFlight.get();
    }

    /** A snapshot of the outcomes recorded so far, with their send times, in completion order (none unless kept). */
    public List<TimedOutcome> timedOutcomes() {
        return new ArrayList<>(outcomes);
    }
}
