package io.github.agentlb.core.avn;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The ring positions of the last keyed requests, in a ring buffer written lock-free. A slot is read
 * only once its flag says it was written, so a half-claimed slot never reads as position 0.
 * Thread-safe; {@link #add} O(1), {@link #positions} O(size).
 */
final class KeyHistory {
    private final AtomicLongArray positions;
    private final AtomicIntegerArray written;
    private final AtomicLong next = new AtomicLong();

    KeyHistory(int size) {
        positions = new AtomicLongArray(size);
        written = new AtomicIntegerArray(size);
    }

    void add(long position) {
        int slot = (int) (next.getAndIncrement() % positions.length());
        positions.set(slot, position);
        written.set(slot, 1);
    }

    long[] positions() {
        long[] copy = new long[positions.length()];
        int n = 0;
        for (int i = 0; i < copy.length; i++) {
            if (written.get(i) == 1) {
                copy[n++] = positions.get(i);
            }
        }
        return Arrays.copyOf(copy, n);
    }
}
