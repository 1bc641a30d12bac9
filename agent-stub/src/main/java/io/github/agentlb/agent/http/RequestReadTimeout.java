package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * nginx's {@code client_header_timeout} and {@code client_body_timeout} in one: once the first
 * byte of a request has arrived, its head and body must arrive within {@code timeoutMs}, else the
 * client gets {@code 408 {"error":"request timeout",...}} and the connection is closed. An idle
 * keep-alive connection is not timed here. Two handlers share the clock: {@link #bytes()} at the
 * front of the pipeline starts it when bytes arrive, {@link #requests()} after the aggregator
 * halts it when the whole request has arrived and counts answers, so that a 408 never cuts into
 * an answer being written (the check is then repeated). One instance per connection.
 */
final class RequestReadTimeout {

    private final long timeoutMs;
    private ScheduledFuture<?> timer;
    private long requests;
    private long answers;

    RequestReadTimeout(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /** The handler to put first: starts the clock on the first byte of a request. */
    ChannelInboundHandlerAdapter bytes() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
                if (timer == null && msg instanceof ByteBuf buf && buf.isReadable()) {
                    timer = ctx.executor().schedule(() -> expired(ctx), timeoutMs, TimeUnit.MILLISECONDS);
                }
                super.channelRead(ctx, msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) throws Exception {
                stop();
                super.channelInactive(ctx);
            }
        };
    }

    /** The handler to put after the aggregator: halts the clock on a whole request, counts answers. */
    ChannelDuplexHandler requests() {
        return new ChannelDuplexHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
                if (msg instanceof FullHttpRequest) {
                    requests++;
                    stop();
                }
                super.channelRead(ctx, msg);
            }

            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
                if (msg instanceof LastHttpContent) {
                    answers++;
                }
                super.write(ctx, msg, promise);
            }
        };
    }

    private void stop() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void expired(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            return;
        }
        if (answers < requests) {
            // An answer is on its way: time the request again after it.
            timer = ctx.executor().schedule(() -> expired(ctx), timeoutMs, TimeUnit.MILLISECONDS);
            return;
        }
        timer = null;
        byte[] body;
        try {
            body = HttpReplies.errorJson("request timeout",
                    Map.of("detail", "the request did not arrive within " + timeoutMs + " ms"));
        } catch (Exception e) {
            ctx.channel().close();
            return;
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.REQUEST_TIMEOUT, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpReplies.APPLICATION_JSON);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.channel().writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
