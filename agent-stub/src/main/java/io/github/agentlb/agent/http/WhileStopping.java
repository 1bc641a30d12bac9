package io.github.agentlb.agent.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.apache.camel.component.netty.http.NettyHttpConsumer;

/**
 * A request that arrives while its consumer is suspended or stopping (the server shuts down and
 * lets the requests in flight finish) gets {@code 503 {"error":"unavailable",...}} with
 * {@code Connection: close} and {@code Retry-After: 5}, so a client or an outer balancer knows to
 * go elsewhere: a 503 with {@code Retry-After} is the busy answer balancers send elsewhere (an
 * idempotent request at once) while they rest the agent for that long. Requests already handed to
 * Camel finish as usual. One per connection; runs on its event loop.
 */
final class WhileStopping extends ChannelInboundHandlerAdapter {

    /**
     * {@code Retry-After} of the answer, s: a few seconds of a drain go elsewhere per try, and an
     * agent that restarts is tried again soon.
     */
    static final int RETRY_AFTER_SECONDS = 5;

    private final NettyHttpConsumer consumer;

    WhileStopping(NettyHttpConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof HttpRequest && (consumer.isSuspending() || consumer.isSuspended()
                || consumer.isStopping() || consumer.isStopped())) {
            Http1Only.refuse(ctx, msg, HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable",
                    "the server is shutting down: send the request elsewhere", RETRY_AFTER_SECONDS);
            return;
        }
        ctx.fireChannelRead(msg);
    }
}
