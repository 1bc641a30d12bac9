package io.github.agentlb.camel.http;

import io.github.agentlb.core.stats.NearestRank;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The times to first byte of the last {@value #SIZE} answers of one component's agent endpoints, from
 * sending the request to the answer's head, for the stall rule ({@link AgentEndpoint#getStallFactor()}).
 * Thread-safe: recording is lock-free (one slot written per answer, from any event loop); a
 * percentile is read from a copy, so it may mix a few times recorded while it is read.
 */
final class FirstByteTimes {

    /** Answers held: enough for a 99th percentile, few enough to follow a change of load within seconds. */
    static final int SIZE = 1024;

    private final AtomicLongArray nanos = new AtomicLongArray(SIZE);
    private final AtomicLong recorded = new AtomicLong();
    /** When the last answer's head came, System.nanoTime(); meaningful once one was recorded. */
    private volatile long lastNanos;

    /**
     * @param timeNanos one answer's time to first byte, ns, &gt;= 0
     * @param nowNanos  when its head came, System.nanoTime()
     */
    void record(long timeNanos, long nowNanos) {
        nanos.set((int) (recorded.getAndIncrement() % SIZE), timeNanos);
        lastNanos = nowNanos;
    }

    /** Whether an answer's head came after {@code sinceNanos} (System.nanoTime()), from any endpoint of the component. */
    boolean answeredSince(long sinceNanos) {
        return recorded.get() > 0 && lastNanos - sinceNanos > 0;
    }

    /**
     * The nearest-rank 99th percentile of the times held: the smallest time that at least 99% of
     * them do not exceed.
     *
     * @return ns, or -1 while no answer was recorded
     */
    long p99() {
        int held = (int) Math.min(recorded.get(), SIZE);
        if (held == 0) {
            return -1;
        }
        long[] times = new long[held];
        for (int i = 0; i < held; i++) {
            times[i] = nanos.get(i);
        }
        return NearestRank.of(times, held, 99);
    }
}
