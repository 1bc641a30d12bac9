package io.github.agentlb.agent.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import org.apache.camel.component.netty.http.NettyHttpConsumer;

/**
 * A request that arrives while its consumer is suspended or stopping (the server shuts down and
 * lets the requests in flight finish) gets {@code 503 {"error":"unavailable",...}} with
 * {@code Connection: close} and {@code Retry-After: 5}, so a client or an outer balancer knows to
 * go elsewhere: a 503 with {@code Retry-After} is the busy answer balancers send elsewhere (an
 * idempotent request at once) while they rest the agent for that long. Requests already handed to
 * Camel finish as usual, but an answer that begins while the server stops says
 * {@code Connection: close}, and every answer that ends while it stops (one that began before, a
 * stream, too) closes its connection after it, so that the client sends its next request elsewhere
 * rather than on a connection that would refuse it. One per connection; runs on its event loop.
 */
final class WhileStopping extends ChannelDuplexHandler {

    /**
     * {@code Retry-After} of the answer, s: a few seconds of a drain go elsewhere per try, and an
     * agent that restarts is tried again soon.
     */
    static final int RETRY_AFTER_SECONDS = 5;

    private final NettyHttpConsumer consumer;
    /** Whether the answer being written began while the server stopped: the connection closes after it. */
    private boolean closeAfter;

    WhileStopping(NettyHttpConsumer consumer) {
        this.consumer = consumer;
    }

    private boolean stopping() {
        return consumer.isSuspending() || consumer.isSuspended() || consumer.isStopping() || consumer.isStopped();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof HttpResponse response && response.status().code() >= 200 && stopping()) {
            HttpUtil.setKeepAlive(response, false);
            closeAfter = true;
        }
        if ((closeAfter || stopping()) && msg instanceof LastHttpContent) {
            closeAfter = false;
            ctx.write(msg, promise.unvoid()).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof HttpRequest && stopping()) {
            Http1Only.refuse(ctx, msg, HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable",
                    "the server is shutting down: send the request elsewhere", RETRY_AFTER_SECONDS);
            return;
        }
        ctx.fireChannelRead(msg);
    }
}
