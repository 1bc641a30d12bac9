package io.github.agentlb.camel;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Supplier;

/**
 * Candidate orders that keep a strategy's own distribution on failover. Lazy; not thread-safe
 * (one per exchange).
 */
final class Candidates {

    private Candidates() {
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
        return new Iterator<>() {
            private boolean firstReturned;
            private int drawn;

            @Override
            public boolean hasNext() {
                return !firstReturned || drawn < draws || sweep.hasNext();
            }

            @Override
            public String next() {
                if (!firstReturned) {
                    firstReturned = true;
                    return first;
                }
                if (drawn < draws) {
                    drawn++;
                    return draw.get();
                }
                if (!sweep.hasNext()) {
                    throw new NoSuchElementException();
                }
                return sweep.next();
            }
        };
    }
}
