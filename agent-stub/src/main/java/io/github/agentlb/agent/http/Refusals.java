package io.github.agentlb.agent.http;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The requests a server answered itself, before its route saw them, counted by status: a request
 * that is not HTTP/1.x or has no {@code Host} (400), did not arrive in time (408), a body over the
 * limit (413), a request line or headers too long (414, 431), an expectation other than
 * {@code 100-continue} (417), an unknown method (501), a request while the server stops (503),
 * another HTTP version (505). What Envoy's {@code downstream_rq_4xx} and nginx's access log show of
 * the requests a proxy never forwarded.
 *
 * <p>Thread-safe: counted on the connections' event loops, read from any thread.
 */
public final class Refusals {

    /** Every status a server refuses a request with, in ascending order. */
    public static final List<Integer> STATUSES = List.of(400, 408, 413, 414, 417, 431, 501, 503, 505);

    /** The counts of the server a connection belongs to, set when the connection is made. */
    static final AttributeKey<Refusals> KEY = AttributeKey.valueOf(Refusals.class, "refusals");

    private final LongAdder[] counts = new LongAdder[STATUSES.size()];

    Refusals() {
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    /**
     * @param status one of {@link #STATUSES}
     * @return the requests refused with {@code status} since the server's component was made
     * @throws IllegalArgumentException for a status not in {@link #STATUSES}
     */
    public long count(int status) {
        return counts[index(status)].sum();
    }

    /** Counts a refusal with {@code status} on the server of {@code channel}, if it has counts. */
    static void count(Channel channel, int status) {
        Refusals refusals = channel.attr(KEY).get();
        if (refusals != null) {
            refusals.counts[index(status)].increment();
        }
    }

    private static int index(int status) {
        int i = STATUSES.indexOf(status);
        if (i < 0) {
            throw new IllegalArgumentException("status must be one of " + STATUSES + ", was " + status);
        }
        return i;
    }
}
