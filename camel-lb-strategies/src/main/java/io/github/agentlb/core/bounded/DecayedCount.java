package io.github.agentlb.core.bounded;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A count of events that fades exponentially: an event {@code age} ns old weighs
 * {@code e^(-age/tau)}, so at a steady rate r (events/s) the count settles at {@code r x tau}:
 * roughly "the events of the last tau". Chosen over a sliding window because it is one value per
 * counter, moves smoothly (no bucket edge where a burst leaves the window at once) and needs no
 * timer; the price is a tail: an event 3 tau old still weighs 5%.
 *
 * <p>Thread-safe and lock-free: the value and the time it was last brought up to date are one
 * immutable pair swapped by compare-and-set. A time earlier than the stored one (two threads'
 * clock readings racing) decays nothing, so the count never grows by going back in time.
 * O(1) per call, one {@link Math#exp} and one small allocation per {@link #add}.
 */
final class DecayedCount {

    private record State(double value, long nanos) {
    }

    private static final State EMPTY = new State(0, Long.MIN_VALUE);

    private final double tauNanos;
    private final AtomicReference<State> state;

    /**
     * An empty count: zero, and no time yet, so the first {@link #add} sets the time whatever
     * clock reading came before (a balancer built before its clock was injected).
     *
     * @param tauNanos the decay time constant tau, ns, > 0
     */
    DecayedCount(double tauNanos) {
        this.tauNanos = tauNanos;
        this.state = new AtomicReference<>(EMPTY);
    }

    /** Adds {@code amount} events at {@code nowNanos}. */
    void add(double amount, long nowNanos) {
        State current;
        State next;
        do {
            current = state.get();
            long latest = current == EMPTY ? nowNanos : Math.max(current.nanos, nowNanos);
            next = new State(decayed(current, latest) + amount, latest);
        } while (!state.compareAndSet(current, next));
    }

    /** The clock reading of the latest {@link #add}, ns ({@link Long#MIN_VALUE} before the first). */
    long lastNanos() {
        return state.get().nanos;
    }

    /** The count at {@code nowNanos}, in events. */
    double valueAt(long nowNanos) {
        return decayed(state.get(), nowNanos);
    }

    private double decayed(State s, long nowNanos) {
        long age = nowNanos - s.nanos;
        return age <= 0 ? s.value : s.value * Math.exp(-age / tauNanos);
    }
}
