package io.github.agentlb.loadgen.fleet;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * Makes a fleet run's changes by request count, so every run changes at the same requests: just
 * before request {@code n/4 + 1} is sent A4 joins, before {@code n/2 + 1} A2 is drained, before
 * {@code 3n/4 + 1} A2 is added again ({@link FleetPhase#startsAtRequest}). Each change is a call
 * on the balancer, made on the thread that starts that request (it takes microseconds and does
 * not wait for the drain), stamped before and after on the run's clock. A change that throws is
 * kept and rethrown by {@link #changes()}, never into the load's threads.
 *
 * <p>Thread-safe: {@link #accept} is called from the load's threads.
 */
final class FleetTrigger implements IntConsumer {

    /** The membership changes of a fleet run, on the balancer under test. */
    interface Actions {
        /** Adds the joining agent. */
        void join();

        /** Drains the leaving agent; the future completes when it has left. */
        CompletableFuture<Void> drain();

        /** Adds the leaving agent again. */
        void comeBack();
    }

    /**
     * One change as made.
     *
     * @param phase        the phase it opens
     * @param beganNanos   just before the call, run clock
     * @param appliedNanos just after it returned: requests sent from then on see the new state
     */
    record Change(FleetPhase phase, long beganNanos, long appliedNanos) {
    }

    private final int requests;
    private final Actions actions;
    private final LongSupplier clock;
    private final Map<FleetPhase, Change> made = Collections.synchronizedMap(new EnumMap<>(FleetPhase.class));
    private final CompletableFuture<Long> left = new CompletableFuture<>();
    private volatile RuntimeException failure;

    /**
     * @param requests the run's requests, >= 4
     * @param clock    the clock of the outcomes' send times, ns
     */
    FleetTrigger(int requests, Actions actions, LongSupplier clock) {
        FleetPhase.RETURNED.startsAtRequest(requests); // validates
        this.requests = requests;
        this.actions = actions;
        this.clock = clock;
    }

    @Override
    public void accept(int started) {
        for (FleetPhase phase : FleetPhase.values()) {
            if (phase != FleetPhase.BEFORE && started == phase.startsAtRequest(requests)) {
                make(phase);
            }
        }
    }

    private void make(FleetPhase phase) {
        long began = clock.getAsLong();
        try {
            switch (phase) {
                case JOINED -> actions.join();
                case DRAINED -> actions.drain().thenRun(() -> left.complete(clock.getAsLong()));
                case RETURNED -> actions.comeBack();
                default -> throw new IllegalArgumentException("no change opens " + phase);
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        made.put(phase, new Change(phase, began, clock.getAsLong()));
    }

    /**
     * The changes made, by the phase each opens.
     *
     * @throws IllegalStateException if a change was not made (the run ended before its request)
     * @throws RuntimeException      what a change threw
     */
    Map<FleetPhase, Change> changes() {
        if (failure != null) {
            throw failure;
        }
        synchronized (made) {
            if (made.size() != FleetPhase.values().length - 1) {
                throw new IllegalStateException("the run ended before every change was made; made: " + made.keySet());
            }
            return Map.copyOf(made);
        }
    }

    /** When the drained agent had left (its last request in flight ended), run clock; null if it had not. */
    Long leftNanos() {
        return left.getNow(null);
    }
}
