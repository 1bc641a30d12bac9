package io.github.agentlb.loadgen.faults;

import io.github.agentlb.camel.AttemptListener;
import io.github.agentlb.camel.AttemptOutcome;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;

/**
 * Records every attempt a balancer makes on an agent with its outcome and when it ended: what an
 * agent received, busy and error answers included, which the client never sees when the balancer
 * sent the request elsewhere. Told on the request path, so recording is one clock read and one
 * lock-free append. Thread-safe.
 */
final class AttemptLog implements AttemptListener {

    /**
     * One attempt.
     *
     * @param agentId    the balancer's agent id
     * @param outcome      how it ended
     * @param startedNanos when it was sent: its end less its duration as the balancer measured it, ns
     * @param endedNanos   when the balancer learnt its outcome, ns on the log's clock
     */
    record Attempt(String agentId, AttemptOutcome outcome, long startedNanos, long endedNanos) {
        Attempt {
            Objects.requireNonNull(agentId, "agentId");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    private final ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
    private final LongSupplier nanoClock;

    /** @param nanoClock the clock of the recorded instants, ns ({@link System#nanoTime} in a run) */
    AttemptLog(LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    @Override
    public void attemptCompleted(String strategy, String agentId, AttemptOutcome outcome, long elapsedNanos) {
        long now = nanoClock.getAsLong();
        attempts.add(new Attempt(agentId, outcome, now - Math.max(0, elapsedNanos), now));
    }

    /** Every attempt so far, in the order recorded. */
    List<Attempt> attempts() {
        return List.copyOf(attempts);
    }
}
