package io.github.agentlb.agent;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import org.apache.camel.component.netty.NettyConsumer;
import org.apache.camel.component.netty.ServerInitializerFactory;
import org.apache.camel.component.netty.http.NettyHttpConfiguration;
import org.apache.camel.component.netty.http.NettyHttpConsumer;

/**
 * The server pipeline of {@link Http11Component}: camel-netty-http's own
 * ({@code HttpServerInitializerFactory}) with Netty's {@link HttpServerCodec} in place of its
 * separate request decoder and response encoder, so that the encoder knows which request each
 * answer is for (no body after a HEAD answer), {@link OneRequestAtATime} before Camel's
 * handler, so that pipelined requests are answered in the order they came, and
 * {@link Http1Only} after it, so that only well-formed HTTP/1.x reaches Camel.
 *
 * <p>Options of the consumer honoured: {@code maxInitialLineLength}, {@code maxHeaderSize},
 * {@code maxChunkSize}, {@code chunkedMaxContentLength}, {@code usingExecutorService}. Not
 * supported: SSL, compression and streaming ({@code disableStreamCache}), refused when the
 * consumer is created; custom {@code decoders} and {@code encoders}, ignored.
 */
public class Http11ServerInitializer extends ServerInitializerFactory {

    private final NettyHttpConsumer consumer;

    /** The pipeline for {@code consumer}'s connections. */
    public Http11ServerInitializer(NettyHttpConsumer consumer) {
        this.consumer = consumer;
        NettyHttpConfiguration c = consumer.getConfiguration();
        if (c.isSsl() || c.isCompression() || c.isDisableStreamCache()) {
            throw new IllegalArgumentException("endpoint " + consumer.getEndpoint().getEndpointUri()
                    + ": ssl=" + c.isSsl() + ", compression=" + c.isCompression() + ", disableStreamCache="
                    + c.isDisableStreamCache() + ": none is supported by " + Http11Component.SCHEME);
        }
    }

    @Override
    public ServerInitializerFactory createPipelineFactory(NettyConsumer nettyConsumer) {
        return new Http11ServerInitializer((NettyHttpConsumer) nettyConsumer);
    }

    @Override
    protected void initChannel(Channel channel) {
        NettyHttpConfiguration c = consumer.getConfiguration();
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast("codec", new HttpServerCodec(c.getMaxInitialLineLength(), c.getMaxHeaderSize(), c.getMaxChunkSize()));
        pipeline.addLast("aggregator", new HttpObjectAggregator(c.getChunkedMaxContentLength()));
        pipeline.addLast("in-order", new OneRequestAtATime());
        pipeline.addLast("http1-only", Http1Only.INSTANCE);
        ChannelHandler handler = consumer.getEndpoint().getComponent().getMultiplexChannelHandler(c.getPort())
                .getChannelHandler();
        if (c.isUsingExecutorService()) {
            pipeline.addLast(consumer.getEndpoint().getComponent().getExecutorService(), "handler", handler);
        } else {
            pipeline.addLast("handler", handler);
        }
    }
}
