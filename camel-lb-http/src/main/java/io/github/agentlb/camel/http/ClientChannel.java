package io.github.agentlb.camel.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The handler an {@code agent:} endpoint adds at the end of a client connection's pipeline, once
 * per connection: it holds the connection's open {@link NettyDownstream}s (one per request, shared
 * by the request's attempts), tells them when the client leaves, and drops the consumer's reply to
 * an exchange whose answer was already written ({@link NettyDownstream#answeredBody()}), as any
 * reply written once the connection is closed. The answer itself is written through this
 * handler's context, so it never meets that check.
 *
 * <p>Thread-safe: requests open from the consumer's threads, the rest runs on the event loop.
 */
final class ClientChannel extends ChannelDuplexHandler {

    /** The handler's name in the pipeline. */
    static final String NAME = "agentlb-client";

    private final Map<FullHttpRequest, NettyDownstream> open = new IdentityHashMap<>(4);
    private ChannelHandlerContext context;

    /** The connection's handler, added at the end of its pipeline if it has none. */
    static ClientChannel on(Channel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        synchronized (channel) {
            ClientChannel client = pipeline.get(ClientChannel.class);
            if (client == null) {
                client = new ClientChannel();
                pipeline.addLast(NAME, client);
                client.context = pipeline.context(client);
            }
            return client;
        }
    }

    ChannelHandlerContext context() {
        return context;
    }

    /**
     * The downstream of {@code request}: the open one, else a new one. Downstreams whose answer
     * ended are let go here (a consumer that writes no reply of its own never tells).
     */
    synchronized NettyDownstream open(FullHttpRequest request, String target, String clientAddress) {
        NettyDownstream known = open.get(request);
        if (known != null) {
            return known;
        }
        for (NettyDownstream done : List.copyOf(open.values())) {
            if (done.ended()) {
                done.release();
            }
        }
        NettyDownstream down = new NettyDownstream(this, request, target, clientAddress);
        open.put(request, down);
        return down;
    }

    /** Forgets a released downstream. */
    synchronized void closed(NettyDownstream down) {
        open.remove(down.request(), down);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof NettyDownstream.StreamedAnswer answered) {
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
