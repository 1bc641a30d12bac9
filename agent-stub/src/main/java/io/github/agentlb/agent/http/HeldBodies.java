package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * How much of a request body a server holds before it hands the request on while the rest still
 * arrives ({@link Http11Component}): the first {@code heldBytes}, and more while {@code enough}
 * says the bytes held do not yet decide what the route reads of them (a routing key read from the
 * body: a prompt whose first turn begins late, say), asked at {@code heldBytes} and at each
 * doubling, up to {@code maxHeldBytes}; a body that ends sooner is held whole. {@code enough} runs
 * on the connection's event loop with the request's head and a read-only view of the bytes held,
 * and must be quick, never block and never keep the buffer.
 *
 * @param heldBytes    bytes held at least, &gt;= 0; 0: every body is gathered whole
 * @param maxHeldBytes bytes held at most, &gt;= {@code heldBytes}
 * @param enough       whether the bytes held are enough to hand the request on
 */
public record HeldBodies(int heldBytes, int maxHeldBytes, BiPredicate<HttpRequest, ByteBuf> enough) {

    /** Every body gathered whole. */
    public static final HeldBodies NONE = of(0);

    /**
     * @throws IllegalArgumentException naming the field and value when {@code heldBytes < 0} or
     *     {@code maxHeldBytes < heldBytes}
     * @throws NullPointerException when {@code enough} is null
     */
    public HeldBodies {
        if (heldBytes < 0) {
            throw new IllegalArgumentException("heldBytes must be >= 0, was " + heldBytes);
        }
        if (maxHeldBytes < heldBytes) {
            throw new IllegalArgumentException("maxHeldBytes must be >= heldBytes (" + heldBytes + "), was " + maxHeldBytes);
        }
        Objects.requireNonNull(enough, "enough");
    }

    /** The first {@code heldBytes} of a body, always enough. */
    public static HeldBodies of(int heldBytes) {
        return new HeldBodies(heldBytes, heldBytes, (head, held) -> true);
    }
}
