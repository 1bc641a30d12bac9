package io.github.agentlb.camel.http;

import io.netty.buffer.ByteBuf;
import java.util.function.Consumer;

/**
 * The part of a request body still arriving from the client when the agent call begins
 * ({@link Downstream#bodyRest()}): the call sends the held prefix ({@link Downstream#body()}), then
 * each part as it comes. Once a part was handed out the body cannot be sent again, to another
 * agent or on a new connection: the attempt's failure is then final (nginx's
 * {@code proxy_request_buffering off}: "the request cannot be passed to the next server if nginx
 * already started sending the request body").
 *
 * <p>Called on the client connection's event loop only.
 */
public interface BodyRest {

    /** The whole body's length, bytes (the client's {@code Content-Length}), prefix included. */
    long length();

    /** Whether a part was handed out: the body can no longer be sent whole. */
    boolean started();

    /**
     * Hands the parts to {@code part} in order (it takes ownership of each), then runs {@code end};
     * or {@code failed} once if the client's connection closes first. A later call replaces the
     * receiver while nothing was handed out.
     *
     * @throws IllegalStateException if a part was already handed out
     */
    void pipe(Consumer<ByteBuf> part, Runnable end, Consumer<Throwable> failed);

    /** Nobody will send the rest: what is held, and what arrives, is released. */
    void discard();
}
