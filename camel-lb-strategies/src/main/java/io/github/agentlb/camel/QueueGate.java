package io.github.agentlb.camel;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RequestQueue}'s gate, which counts places, not exchanges: it lets an exchange through
 * while the exchanges it let through that hold no agent's place yet ({@code pending}) are fewer than
 * the places free on the agents that can take a request ({@link BalancerState#freePlaces}), so an
 * exchange let through finds an agent with room. An exchange stops pending once: when its first
 * attempt is sent (its agent counts its place from then on), when it completes or when it goes back
 * to wait ({@link QueuePermit#settle}). Thread-safe: two atomics; letting one through is one CAS.
 */
final class QueueGate {

    private final AtomicInteger pending = new AtomicInteger();
    /** Exchanges let through that have not completed nor gone back to wait: {@link QueueFigures#admitted()}. */
    private final AtomicInteger through = new AtomicInteger();

    /** The places free at {@code now} (ns) under the balancer's {@code maxInFlightPerAgent}. */
    static int free(BalancerState state, long now) {
        return state.freePlaces(now, state.config.flowControl().maxInFlightPerAgent());
    }

    /**
     * Whether no agent is left to try: there are agents, and each is ejected with its time not up,
     * marked down, or failing (at its failure threshold, kept in by the ejection cap, its last failure
     * within a base ejection time: {@link io.github.agentlb.core.health.OutlierDetector#hasAgentToTry}). An
     * exchange that finds no place then is answered, not queued: the queue waits for agents that
     * are full or resting, and the ejected come back by a trial that a later arrival makes. O(agents).
     */
    static boolean noAgentToTry(BalancerState state) {
        return !state.agentIds().isEmpty() && !state.detector.hasAgentToTry();
    }

    /** Lets one exchange through when fewer than {@code free} are pending. */
    boolean tryAdmit(int free) {
        boolean admitted = pending.getAndUpdate(n -> n < free ? n + 1 : n) < free;
        if (admitted) {
            through.incrementAndGet();
        }
        return admitted;
    }

    /** Takes back one let through by {@link #tryAdmit} that found nobody to go (every tenant waiting at its limit). */
    void unused() {
        pending.decrementAndGet();
        through.decrementAndGet();
    }

    /**
     * {@code permit}'s exchange took an agent's place, if it still was pending.
     *
     * @return whether it was: its agent's count rose before this one fell, so a read of the gate in
     *     between saw one place too few, and the queue should look again
     */
    boolean placed(QueuePermit permit) {
        if (permit.settle()) {
            pending.decrementAndGet();
            return true;
        }
        return false;
    }

    /** {@code permit}'s exchange completed or went back to wait. */
    void left(QueuePermit permit) {
        placed(permit);
        through.decrementAndGet();
    }

    int through() {
        return through.get();
    }
}
