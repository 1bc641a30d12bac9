package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;

/**
 * How much of a request body a server holds before it hands the request on while the rest still
 * arrives ({@link Http11Component}): the first {@code heldBytes}, and more while {@code enough}
 * says the bytes held do not yet decide what the route reads of them (a routing key read from the
 * body: a prompt whose first turn begins late, say), asked at {@code heldBytes} and at each
 * doubling, up to {@code maxHeldBytes}, as long as all connections together hold at most
 * {@code maxExtraBytes} beyond their first {@code heldBytes} (else the request is handed on with
 * what it has: the bytes held wait in direct memory, and many slow clients must not exhaust it). A
 * body that ends sooner is held whole. {@code enough} runs on the connection's event loop with the
 * request's head and a read-only view of the bytes held, and must be quick, never block and never
 * keep the buffer.
 *
 * <p>Immutable settings and one counter of the extra bytes held; thread-safe, shared by every
 * connection of a component.
 */
public final class HeldBodies {

    /** Every body gathered whole. */
    public static final HeldBodies NONE = of(0);

    private final int heldBytes;
    private final int maxHeldBytes;
    private final long maxExtraBytes;
    private final BiPredicate<HttpRequest, ByteBuf> enough;
    private final AtomicLong extraHeld = new AtomicLong();

    /**
     * @param heldBytes     bytes of a body held at least, &gt;= 0; 0: every body is gathered whole
     * @param maxHeldBytes  bytes of a body held at most, &gt;= {@code heldBytes}
     * @param maxExtraBytes bytes held beyond {@code heldBytes} by all connections together, &gt;= 0
     * @param enough        whether the bytes held are enough to hand the request on
     * @throws IllegalArgumentException naming the field and value of a bound out of range
     * @throws NullPointerException     when {@code enough} is null
     */
    public HeldBodies(int heldBytes, int maxHeldBytes, long maxExtraBytes, BiPredicate<HttpRequest, ByteBuf> enough) {
        if (heldBytes < 0) {
            throw new IllegalArgumentException("heldBytes must be >= 0, was " + heldBytes);
        }
        if (maxHeldBytes < heldBytes) {
            throw new IllegalArgumentException("maxHeldBytes must be >= heldBytes (" + heldBytes + "), was " + maxHeldBytes);
        }
        if (maxExtraBytes < 0) {
            throw new IllegalArgumentException("maxExtraBytes must be >= 0, was " + maxExtraBytes);
        }
        this.heldBytes = heldBytes;
        this.maxHeldBytes = maxHeldBytes;
        this.maxExtraBytes = maxExtraBytes;
        this.enough = Objects.requireNonNull(enough, "enough");
    }

    /** The first {@code heldBytes} of a body, always enough. */
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

    /** @return whether the bytes held are enough to hand a request on */
    public BiPredicate<HttpRequest, ByteBuf> enough() {
        return enough;
    }

    /** @return the bytes held beyond {@link #heldBytes()} by all connections now */
    public long extraHeld() {
        return extraHeld.get();
    }

    /** Reserves {@code bytes} more held beyond the least: false, and nothing reserved, when that would pass the most. */
    boolean reserve(long bytes) {
        return extraHeld.getAndUpdate(held -> held + bytes <= maxExtraBytes ? held + bytes : held) + bytes <= maxExtraBytes;
    }

    /** Gives back {@code bytes} {@link #reserve reserved}. */
    void release(long bytes) {
        extraHeld.addAndGet(-bytes);
    }
}
