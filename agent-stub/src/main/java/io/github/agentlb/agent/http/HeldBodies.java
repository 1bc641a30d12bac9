package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpRequest;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;

/**
 * How much of request bodies a server holds in memory, per body and for all its connections.
 *
 * <p>Per body ({@link Http11Component}): the first {@code heldBytes} before the request is handed
 * on while the rest still arrives, and more while {@code enough} says the bytes held do not yet
 * decide what the route reads of them (a routing key read from the body: a prompt whose first turn
 * begins late, say), asked at {@code heldBytes} and at each doubling, up to {@code maxHeldBytes},
 * as long as all connections together hold at most {@code maxExtraBytes} beyond their first
 * {@code heldBytes} (else the request is handed on with what it has). A body that ends sooner is
 * held whole. {@code enough} runs on the connection's event loop with the request's head and a
 * read-only view of the bytes held, and must be quick, never block and never keep the buffer.
 *
 * <p>For all connections together, at most {@code maxBytes} of bodies still arriving (nginx keeps
 * them in temporary files; a proxy that keeps them in memory must bound them, or many slow clients
 * exhaust it): the parts of a body gathered whole until it is whole, when it is over
 * {@value #SMALL_BODY_BYTES} bytes or chunked; the prefix of a body handed on before its end until
 * that request is freed (its exchange ended); the parts of its rest not yet sent on. A body
 * announced by {@code Content-Length} begins only once its least held (the whole, for one gathered
 * whole) fits, so that every body begun can be handed on, and a chunked one past
 * {@value #SMALL_BODY_BYTES} bytes goes on only once the largest body fits ({@code JsonLimitAggregator});
 * a body larger than {@code maxBytes} begins
 * when nothing else is held. A connection whose body does not fit, or whose chunked body or unsent
 * rest passes the most, is not read until bytes are given back (backpressure: its client waits, the
 * request's read timeout still running); a read already made is held, so the bytes held pass
 * {@code maxBytes} by at most a read per waiting connection. Bodies of at most
 * {@value #SMALL_BODY_BYTES} bytes are neither counted nor kept waiting, as a request's head.
 *
 * <p>Immutable settings and counters; thread-safe, shared by every connection of a component.
 */
public final class HeldBodies {

    /** Bytes of a body gathered whole that are neither counted nor kept waiting: a request's head is as large. */
    public static final int SMALL_BODY_BYTES = 16 * 1024;

    /** The bytes a connection woken to read again is taken to hold: a read's most. */
    static final long WAKE_BYTES = 64 * 1024;

    /** Every body gathered whole, none counted. */
    public static final HeldBodies NONE = of(0);

    private final int heldBytes;
    private final int maxHeldBytes;
    private final long maxExtraBytes;
    private final long maxBytes;
    private final BiPredicate<HttpRequest, ByteBuf> enough;
    private final AtomicLong extraHeld = new AtomicLong();
    private final AtomicLong bytesHeld = new AtomicLong();
    private final Deque<Waiting> waiting = new ConcurrentLinkedDeque<>();
    private final AtomicInteger connectionsWaiting = new AtomicInteger();

    /** A connection not read until bytes are given back, and what it does then, on its event loop. */
    private record Waiting(Channel channel, long need, Runnable woken) {
    }

    /** As {@link #HeldBodies(int, int, long, long, BiPredicate)} with no most for all bodies together. */
    public HeldBodies(int heldBytes, int maxHeldBytes, long maxExtraBytes, BiPredicate<HttpRequest, ByteBuf> enough) {
        this(heldBytes, maxHeldBytes, maxExtraBytes, Long.MAX_VALUE, enough);
    }

    /**
     * @param heldBytes     bytes of a body held at least, &gt;= 0; 0: every body is gathered whole
     * @param maxHeldBytes  bytes of a body held at most, &gt;= {@code heldBytes}
     * @param maxExtraBytes bytes held beyond {@code heldBytes} by all connections together, &gt;= 0
     * @param maxBytes      bytes of bodies still arriving held by all connections together, &gt;= 1
     * @param enough        whether the bytes held are enough to hand the request on
     * @throws IllegalArgumentException naming the field and value of a bound out of range
     * @throws NullPointerException     when {@code enough} is null
     */
    public HeldBodies(int heldBytes, int maxHeldBytes, long maxExtraBytes, long maxBytes, BiPredicate<HttpRequest, ByteBuf> enough) {
        if (heldBytes < 0) {
            throw new IllegalArgumentException("heldBytes must be >= 0, was " + heldBytes);
        }
        if (maxHeldBytes < heldBytes) {
            throw new IllegalArgumentException("maxHeldBytes must be >= heldBytes (" + heldBytes + "), was " + maxHeldBytes);
        }
        if (maxExtraBytes < 0) {
            throw new IllegalArgumentException("maxExtraBytes must be >= 0, was " + maxExtraBytes);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be >= 1, was " + maxBytes);
        }
        this.heldBytes = heldBytes;
        this.maxHeldBytes = maxHeldBytes;
        this.maxExtraBytes = maxExtraBytes;
        this.maxBytes = maxBytes;
        this.enough = Objects.requireNonNull(enough, "enough");
    }

    /** The first {@code heldBytes} of a body, always enough; no most for all bodies together. */
    public static HeldBodies of(int heldBytes) {
        return new HeldBodies(heldBytes, heldBytes, 0, (head, held) -> true);
    }

    /** @return bytes of a body held at least */
    public int heldBytes() {
        return heldBytes;
    }

    /** @return bytes of a body held at most */
    public int maxHeldBytes() {
        return maxHeldBytes;
    }

    /** @return bytes held beyond {@link #heldBytes()} by all connections together, at most */
    public long maxExtraBytes() {
        return maxExtraBytes;
    }

    /** @return bytes of bodies still arriving held by all connections together, at most (but a read per waiting connection) */
    public long maxBytes() {
        return maxBytes;
    }

    /** @return whether the bytes held are enough to hand a request on */
    public BiPredicate<HttpRequest, ByteBuf> enough() {
        return enough;
    }

    /** @return the bytes held beyond {@link #heldBytes()} by all connections now */
    public long extraHeld() {
        return extraHeld.get();
    }

    /** @return the bytes of bodies still arriving held by all connections now, counted as {@link HeldBodies} says */
    public long bytesHeld() {
        return bytesHeld.get();
    }

    /** @return the connections not read now until bytes are given back */
    public int connectionsWaiting() {
        return connectionsWaiting.get();
    }

    /** Reserves {@code bytes} more held beyond the least: false, and nothing reserved, when that would pass the most. */
    boolean reserve(long bytes) {
        return extraHeld.getAndUpdate(held -> held + bytes <= maxExtraBytes ? held + bytes : held) + bytes <= maxExtraBytes;
    }

    /** Gives back {@code bytes} {@link #reserve reserved}. */
    void release(long bytes) {
        extraHeld.addAndGet(-bytes);
    }

    /** Counts {@code bytes} if all held then stay within the most, or nothing is held now: false, nothing counted, else. */
    boolean tryHold(long bytes) {
        while (true) {
            long now = bytesHeld.get();
            if (now != 0 && now + bytes > maxBytes) {
                return false;
            }
            if (bytesHeld.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Counts {@code bytes} already read, whether they fit or not: false when all held now pass the most. */
    boolean hold(long bytes) {
        return bytesHeld.addAndGet(bytes) <= maxBytes;
    }

    /** Gives back {@code bytes} counted, and wakes waiting connections whose bytes fit now (the first at least, if all held are within the most). */
    void giveBack(long bytes) {
        if (bytes != 0) {
            bytesHeld.addAndGet(-bytes);
            wake(bytesHeld.get() <= maxBytes);
        }
    }

    /**
     * Stops reading {@code channel} until bytes are given back; then {@code woken} runs on its event
     * loop (it reads again, or waits again). Woken in their order while the {@code need} of each
     * (the bytes it will hold: {@value #WAKE_BYTES} for a read) fits in what is free. Call on the
     * channel's event loop.
     */
    void await(Channel channel, long need, Runnable woken) {
        channel.config().setAutoRead(false);
        connectionsWaiting.incrementAndGet();
        waiting.add(new Waiting(channel, need, woken));
        wake(false); // given back before it was queued
    }

    /** Wakes waiting connections in their order while each one's need fits in what is free; with {@code first}, the first one whatever its need. */
    private void wake(boolean first) {
        long free = maxBytes - bytesHeld.get();
        for (boolean any = first; ; any = false) {
            Waiting next = waiting.pollFirst();
            if (next == null) {
                return;
            }
            if (!next.channel().isActive()) {
                connectionsWaiting.decrementAndGet();
                continue;
            }
            if (!any && next.need() > free && bytesHeld.get() != 0) {
                waiting.offerFirst(next);
                return;
            }
            connectionsWaiting.decrementAndGet();
            free -= next.need();
            next.channel().eventLoop().execute(next.woken());
        }
    }
}
