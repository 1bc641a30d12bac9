package io.github.agentlb.camel.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;

/**
 * The client side of one proxied request, as an {@code agent:} endpoint sees it: what the agent
 * request carries (method, target, end-to-end headers, body) and the client's connection, onto
 * which the agent's answer is written as it arrives, head first, then each part. The SPI between a
 * route's HTTP consumer and the agent component.
 *
 * <p>For a route whose consumer is camel-netty-http's, nothing is to be done: an {@code agent:}
 * endpoint opens a {@link NettyDownstream} for the exchange itself. Another consumer, or a route
 * that reads the request itself first (its own target, a body limit), sets its own
 * {@code Downstream} on the exchange as property {@value #PROPERTY} before the
 * {@code loadBalance()}, and the endpoints use that one ({@link NettyDownstream#install}).
 *
 * <p>Every method but {@link #eventLoop()}, {@link #method()}, {@link #target()},
 * {@link #forwardHeaders()} and {@link #body()} is called on {@link #eventLoop()}: the agent
 * connection of a call is driven from the client connection's event loop, so one request's two
 * connections share one thread and an answer's parts are written in order, without locks.
 */
public interface Downstream {

    /** Exchange property holding the exchange's {@code Downstream}, when a consumer-side piece installed one. */
    String PROPERTY = "agentlb.downstream";

    /** The client connection's event loop, where the call runs. */
    EventLoop eventLoop();

    /** The client connection: its type is the agent connection's, its writability the call's backpressure. */
    Channel channel();

    /** The request's method. */
    HttpMethod method();

    /** The origin-form target sent to the agent, as the client sent it (path and query), e.g. {@code /v1/chat/completions}. */
    String target();

    /**
     * The request headers for the agent: the client's end-to-end ones (no hop-by-hop headers, no
     * {@code Host}, no {@code Content-Length}), with {@code Via} and {@code X-Forwarded-For} of this hop.
     */
    HttpHeaders forwardHeaders();

    /**
     * The request body, a view of its own that the caller releases (writing it does): the whole
     * body, or, when {@link #bodyRest()} is not null, its held prefix.
     */
    ByteBuf body();

    /** The body's part still arriving, sent after {@link #body()} as it comes; null (the default): {@link #body()} is all. */
    default BodyRest bodyRest() {
        return null;
    }

    /** Whether the answer's head has gone to the client: from then on no other answer can be given. */
    boolean headSent();

    /**
     * Whether the exchange has ended and its body was released ({@code false} by default): a call
     * still starting then (the losing leg of a hedged request) sends nothing.
     */
    default boolean released() {
        return false;
    }

    /** Whether the client closed its connection. */
    boolean clientGone();

    /**
     * Adds {@code hook}, run once when the client closes its connection before the answer ended (the
     * hooks of every call in flight: two while a request is hedged); null clears them all.
     */
    void onClientClose(Runnable hook);

    /**
     * Writes the answer's head: the agent's status and its end-to-end headers as given, framed for
     * this client (the agent's {@code Content-Length}, else chunked, else close-delimited for
     * HTTP/1.0). {@code bodyless}: no body follows (HEAD, 204, 304).
     */
    void sendHead(HttpResponse head, boolean bodyless);

    /** Writes and flushes a part of the answer's body; takes ownership of {@code content}. */
    ChannelFuture sendContent(ByteBuf content);

    /** Ends the answer with {@code content} (may be empty); takes ownership of it. */
    void end(ByteBuf content);

    /** Cuts the answer: closes the connection without the terminating chunk, so the client sees it incomplete. */
    void abort();

    /**
     * What the exchange's body becomes once the answer's head went to the client: what the
     * consumer then writes as its reply, since the answer is already written (for
     * camel-netty-http's consumer a marker the connection drops), or null for a consumer that
     * writes no reply of its own.
     */
    Object answeredBody();
}
