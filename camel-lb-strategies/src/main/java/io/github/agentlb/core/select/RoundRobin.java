package io.github.agentlb.core.select;

import io.github.agentlb.core.Check;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lock-free strict rotation over {@code n} positions.
 *
 * <p>The counter always stays in {@code [0, n)} (a compare-and-set that wraps to 0 at {@code n}),
 * so it never overflows, and after any number of calls from any number of threads with a fixed
 * {@code n}, no position has been returned more than once more than any other. When {@code n}
 * changes, rotation continues from the counter's value modulo the new {@code n}.
 *
 * <p>Thread-safe; O(1) per call (one CAS loop).
 */
public final class RoundRobin {

    private final AtomicInteger counter;

    /** A rotation whose first call returns 0. */
    public RoundRobin() {
        this(-1);
    }

    /** A rotation whose counter starts at {@code start}; for tests of the wrap-around. */
    RoundRobin(int start) {
        this.counter = new AtomicInteger(start);
    }

    /**
     * The next position.
     *
     * @param n the number of positions, >= 1
     * @return a position in {@code [0, n)}
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public int next(int n) {
        Check.atLeast("n", n, 1);
        return counter.updateAndGet(x -> x < 0 || x >= n - 1 ? 0 : x + 1);
    }
}
