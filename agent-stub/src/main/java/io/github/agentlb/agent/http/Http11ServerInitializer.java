package io.github.agentlb.agent.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import org.apache.camel.component.netty.NettyConsumer;
import org.apache.camel.component.netty.ServerInitializerFactory;
import org.apache.camel.component.netty.http.NettyHttpConfiguration;
import org.apache.camel.component.netty.http.NettyHttpConsumer;

/**
 * The server pipeline of {@link Http11Component}: camel-netty-http's own
 * ({@code HttpServerInitializerFactory}) with {@link Http11ServerCodec} (Netty's server codec
 * that also refuses {@code Transfer-Encoding} with {@code Content-Length}) in place of its
 * separate request decoder and response encoder, so that the encoder knows which request each
 * answer is for (no body after a HEAD answer), {@link JsonLimitAggregator} (a body over
 * {@code chunkedMaxContentLength} gets a JSON 413), {@link OneRequestAtATime} before Camel's
 * handler, so that pipelined requests are answered in the order they came,
 * {@link Http1Only} after it, so that only well-formed HTTP/1.x reaches Camel, and
 * {@link WhileStopping}, so that a request that arrives while the server shuts down gets a JSON 503
 * (camel-netty-http's own is an empty {@code text/plain} one).
 *
 * <p>Options of the consumer honoured: {@code maxInitialLineLength}, {@code maxHeaderSize},
 * {@code maxChunkSize}, {@code chunkedMaxContentLength}, {@code usingExecutorService}. Not
 * supported: SSL, compression and streaming ({@code disableStreamCache}), refused when the
 * consumer is created; custom {@code decoders} and {@code encoders}, ignored.
 */
public class Http11ServerInitializer extends ServerInitializerFactory {

    private final NettyHttpConsumer consumer;
    private final long requestReadTimeoutMs;
    private final HeldBodies heldBodies;
    private final Refusals refusals;

    /** The pipeline for {@code consumer}'s connections, every body gathered whole, refusals not counted. */
    public Http11ServerInitializer(NettyHttpConsumer consumer, long requestReadTimeoutMs) {
        this(consumer, requestReadTimeoutMs, HeldBodies.NONE, null);
    }

    /**
     * The pipeline for {@code consumer}'s connections.
     *
     * @param requestReadTimeoutMs time for a request's head and body to arrive once its first
     *                             byte came, ms, &gt;= 1 ({@link RequestReadTimeout}: 408 after it;
     *                             for a streamed body, until its held prefix came); also the
     *                             longest a new connection may send no byte (one kept alive after
     *                             its last answer was written: 75 s): then closed without an answer
     * @param heldBodies           what of a body is held before the request is handed on while the
     *                             rest arrives ({@link StreamedBodies}), and how much of all bodies;
     *                             {@link HeldBodies#NONE}: all gathered whole, none counted
     * @param refusals             where the requests the server answers itself are counted, or null
     */
    Http11ServerInitializer(NettyHttpConsumer consumer, long requestReadTimeoutMs, HeldBodies heldBodies,
                            Refusals refusals) {
        if (requestReadTimeoutMs < 1) {
            throw new IllegalArgumentException("requestReadTimeoutMs must be >= 1, was " + requestReadTimeoutMs);
        }
        this.consumer = consumer;
        this.requestReadTimeoutMs = requestReadTimeoutMs;
        this.heldBodies = heldBodies;
        this.refusals = refusals;
        NettyHttpConfiguration c = consumer.getConfiguration();
        if (c.isSsl() || c.isCompression() || c.isDisableStreamCache()) {
            throw new IllegalArgumentException("endpoint " + consumer.getEndpoint().getEndpointUri()
                    + ": ssl=" + c.isSsl() + ", compression=" + c.isCompression() + ", disableStreamCache="
                    + c.isDisableStreamCache() + ": none is supported by " + Http11Component.SCHEME);
        }
    }

    @Override
    public ServerInitializerFactory createPipelineFactory(NettyConsumer nettyConsumer) {
        return new Http11ServerInitializer((NettyHttpConsumer) nettyConsumer, requestReadTimeoutMs, heldBodies, refusals);
    }

    @Override
    protected void initChannel(Channel channel) {
        NettyHttpConfiguration c = consumer.getConfiguration();
        ChannelPipeline pipeline = channel.pipeline();
        if (refusals != null) {
            channel.attr(Refusals.KEY).set(refusals);
        }
        RequestReadTimeout readTimeout = new RequestReadTimeout(requestReadTimeoutMs);
        pipeline.addLast("read-timeout", readTimeout.bytes());
        pipeline.addLast("codec", new Http11ServerCodec(c.getMaxInitialLineLength(), c.getMaxHeaderSize(), c.getMaxChunkSize()));
        if (heldBodies.heldBytes() > 0) {
            pipeline.addLast("streamed-bodies", new StreamedBodies(heldBodies, c.getChunkedMaxContentLength()));
        }
        pipeline.addLast("aggregator", new JsonLimitAggregator(c.getChunkedMaxContentLength(), heldBodies));
        pipeline.addLast("read-timeout-end", readTimeout.requests());
        pipeline.addLast("in-order", new OneRequestAtATime());
        pipeline.addLast("http1-only", Http1Only.INSTANCE);
        pipeline.addLast("while-stopping", new WhileStopping(consumer));
        ChannelHandler handler = consumer.getEndpoint().getComponent().getMultiplexChannelHandler(c.getPort())
                .getChannelHandler();
        if (c.isUsingExecutorService()) {
            pipeline.addLast(consumer.getEndpoint().getComponent().getExecutorService(), "handler", handler);
        } else {
            pipeline.addLast("handler", handler);
        }
        pipeline.addLast("streamed", DropStreamedAnswer.INSTANCE);
    }
}
