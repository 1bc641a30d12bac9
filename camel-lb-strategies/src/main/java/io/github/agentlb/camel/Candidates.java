package io.github.agentlb.camel;

import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Candidate orders that keep a strategy's own distribution on failover. Lazy; not thread-safe
 * (one per exchange), except the pickers, which make one per exchange.
 */
final class Candidates {

    private Candidates() {
    }

    /**
     * The picker of a smooth weighted round-robin {@code schedule}: an exchange takes the slot of
     * the next {@code turn}, on failover up to {@code agents - 1} further slots ({@link Drawing}),
     * then the schedule's failover order; no candidates when the schedule has no slots. O(1) per
     * exchange, lock-free; thread-safe.
     *
     * @param agents the agents of the state the schedule is for
     * @param turn   the schedule's turn, shared by the pickers of the successive states
     */
    static Picker weighted(SmoothWeightedRoundRobin.Schedule schedule, int agents, AtomicLong turn) {
        List<String> slots = schedule.slots();
        if (slots.isEmpty()) {
            return exchange -> Selection.of(Collections.emptyIterator());
        }
        return exchange -> {
            String first = slots.get(Math.floorMod(turn.getAndIncrement(), slots.size()));
            return Selection.of(new Drawing(first, agents - 1, schedule.failoverOrder()) {
                @Override
                protected String draw() {
                    return slots.get(Math.floorMod(turn.getAndIncrement(), slots.size()));
                }
            });
        };
    }

    /**
     * {@code first}, then up to {@code draws} further picks from the strategy's shared schedule
     * ({@code draw}), then every agent of {@code sweep}. The balancer skips agents already tried,
     * ejected or gone, so a skipped pick is followed by the schedule's next pick: round-robin
     * continues its rotation over the live agents and weighted round-robin its weights, instead of
     * handing a failed agent's whole share to its neighbour (nginx's round-robin does the same).
     * The sweep guarantees every agent is reached even when concurrent callers take the picks.
     */
    static Iterator<String> drawing(String first, Supplier<String> draw, int draws, Iterator<String> sweep) {
        return new Drawing(first, draws, () -> sweep) {
            @Override
            protected String draw() {
                return draw.get();
            }
        };
    }

    /**
     * {@link #drawing} as a class to extend with the strategy's draw: one object per exchange
     * instead of an iterator, a supplier and the sweep's iterator, and the sweep's iterator made
     * only when a failover reaches it (most exchanges never ask past the first agent).
     */
    abstract static class Drawing implements Iterator<String> {
        private final String first;
        private final int draws;
        private final Iterable<String> sweep;
        private boolean firstReturned;
        private int drawn;
        private Iterator<String> swept;

        /** @param sweep every agent, walked after the draws; its iterator is made on first need */
        Drawing(String first, int draws, Iterable<String> sweep) {
            this.first = first;
            this.draws = draws;
            this.sweep = sweep;
        }

        /** The strategy's next pick from its shared schedule. */
        protected abstract String draw();

        @Override
        public boolean hasNext() {
            return !firstReturned || drawn < draws || sweep().hasNext();
        }

        @Override
        public String next() {
            if (!firstReturned) {
                firstReturned = true;
                return first;
            }
            if (drawn < draws) {
                drawn++;
                return draw();
            }
            if (!sweep().hasNext()) {
                throw new NoSuchElementException();
            }
            return swept.next();
        }

        private Iterator<String> sweep() {
            if (swept == null) {
                swept = sweep.iterator();
            }
            return swept;
        }
    }
}
