package io.github.agentlb.camel.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The handler an {@code agent:} endpoint adds to a client connection's pipeline, once per
 * connection, just before the consumer's handler: it holds the connection's open
 * {@link NettyDownstream}s (one per request, shared by the request's attempts), tells them when the client leaves, and drops the consumer's reply to
 * an exchange whose answer was already written ({@link NettyDownstream#answeredBody()}), as any
 * reply written once the connection is closed. The answer itself is written through this
 * handler's context, so it never meets that check.
 *
 * <p>Thread-safe: requests open from the consumer's threads, the rest runs on the event loop.
 */
final class ClientChannel extends ChannelDuplexHandler {

    /** The handler's name in the pipeline. */
    static final String NAME = "agentlb-client";
    /** The name camel-netty-http gives its consumer's handler in the pipeline. */
    private static final String CONSUMER = "handler";
    private static final AttributeKey<ClientChannel> KEY = AttributeKey.valueOf(ClientChannel.class, NAME);

    /** By the consumer's request, else by an exchange's id, interned: by identity. */
    private final Map<Object, NettyDownstream> open = new IdentityHashMap<>(4);
    private volatile ChannelHandlerContext context;

    /** The connection's handler, added to its pipeline if it has none. */
    static ClientChannel on(Channel channel) {
        ClientChannel client = channel.attr(KEY).get();
        if (client != null) {
            return client;
        }
        ChannelPipeline pipeline = channel.pipeline();
        synchronized (pipeline) {
            client = channel.attr(KEY).get();
            if (client == null) {
                client = new ClientChannel();
                if (pipeline.get(CONSUMER) != null) {
                    // On the event loop, before the consumer's handler, which may run on another executor group:
                    // after it, closing the channel would hop between the two (and fail once the group stopped).
                    pipeline.addBefore(CONSUMER, NAME, client);
                } else {
                    pipeline.addLast(NAME, client);
                }
                client.context = pipeline.context(client);
                channel.attr(KEY).set(client);
            }
            return client;
        }
    }

    ChannelHandlerContext context() {
        return context;
    }

    /**
     * The downstream of {@code request}, known by {@code key} (the consumer's request, or an exchange's
     * id): the open one, else a new one. Downstreams whose answer
     * ended are let go here (a consumer that writes no reply of its own never tells).
     */
    synchronized NettyDownstream open(Object key, FullHttpRequest request, String target, String clientAddress) {
        NettyDownstream known = open.get(key);
        if (known != null) {
            return known;
        }
        for (NettyDownstream done : List.copyOf(open.values())) {
            if (done.ended()) {
                done.release();
            }
        }
        NettyDownstream down = new NettyDownstream(this, key, request, target, clientAddress);
        open.put(key, down);
        return down;
    }

    /** Forgets a released downstream. */
    synchronized void closed(NettyDownstream down) {
        open.remove(down.key(), down);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof StreamedAnswer answered) {
            promise.trySuccess();
            answered.downstream().release();
        } else if (msg instanceof HttpResponse && !ctx.channel().isActive()) {
            // A route's reply to an answer cut mid-stream: the connection is gone, nothing to write or to log.
            ReferenceCountUtil.release(msg);
            promise.trySuccess();
        } else {
            ctx.write(msg, promise);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        List<NettyDownstream> left;
        synchronized (this) {
            left = new ArrayList<>(open.values());
        }
        for (NettyDownstream down : left) {
            down.clientClosed();
            down.release();
        }
        super.channelInactive(ctx);
    }
}
