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
 * client gets {@code 408 {"error":"request timeout",...}} and the connection is closed. And nginx's
 * {@code client_header_timeout} for a new connection and {@code keepalive_timeout} for a kept-alive
 * one: a connection on which no byte arrives for {@code timeoutMs} from its accept, or for
 * {@value #KEEP_ALIVE_TIMEOUT_MS} ms from the end of writing its last answer (the write complete,
 * so an answer streamed for minutes or read slowly is never cut), while no request is being read
 * or answered, is closed without an answer, as nginx does; idle connections would otherwise hold a
 * file descriptor each for ever. The kept-alive time is nginx's default, longer than the 60 s a
 * client such as this project's {@code agent:} component keeps a connection idle in its pool, so
 * that the client, not the server, closes an idle connection. Bytes of a
 * next request that came in the same read as the end of the one before are timed as idle from the
 * end of its answer. Two handlers share the clocks: {@link #bytes()} at the front of the pipeline
 * starts the request's clock when bytes arrive (and halts the idle one), {@link #requests()} after
 * the aggregator halts it when the whole request has arrived, counts answers and starts the idle
 * clock when the last is written, so that a 408 never cuts into an answer being written (the check
 * is then repeated). The rest of a streamed body still arriving after its request was answered (an
 * agent that answered early) is timed alike, but its end closes the connection without an answer,
 * as nginx ends a body it discards: a second answer would be taken for the next request's. One
 * instance per connection.
 */
final class RequestReadTimeout {

    /** How long a connection kept alive after an answer may send no byte, ms: nginx's {@code keepalive_timeout}. */
    static final long KEEP_ALIVE_TIMEOUT_MS = 75_000;

    private final long timeoutMs;
    private ScheduledFuture<?> timer;
    /** The idle clock: runs while no byte of a request arrived and no request is being answered. */
    private ScheduledFuture<?> idle;
    private long requests;
    private long answers;

    RequestReadTimeout(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /** The handler to put first: starts the clock on the first byte of a request, and the idle clock on a new connection. */
    ChannelInboundHandlerAdapter bytes() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                if (ctx.channel().isActive()) {
                    startIdle(ctx, timeoutMs);
                }
            }

            @Override
            public void channelActive(ChannelHandlerContext ctx) throws Exception {
                startIdle(ctx, timeoutMs);
                super.channelActive(ctx);
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
                if (msg instanceof ByteBuf buf && buf.isReadable()) {
                    stopIdle();
                    if (timer == null) {
                        timer = ctx.executor().schedule(() -> expired(ctx), timeoutMs, TimeUnit.MILLISECONDS);
                    }
                }
                super.channelRead(ctx, msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) throws Exception {
                stop();
                stopIdle();
                super.channelInactive(ctx);
            }
        };
    }

    /**
     * The handler to put after the aggregator: halts the clock on a whole request, counts answers,
     * starts the idle clock once the last answer is written.
     */
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
                if (!(msg instanceof LastHttpContent)) {
                    super.write(ctx, msg, promise);
                    return;
                }
                answers++;
                ChannelPromise written = promise.unvoid();
                super.write(ctx, msg, written);
                written.addListener(f -> answered(ctx));
            }
        };
    }

    /**
     * An answer was written: the idle clock starts, or, when the body of the request answered is
     * still arriving (its agent answered before it ended), the request's clock: the client owes the
     * rest of its body, and a client silent in it is closed after the client timeout, not the keep-alive time.
     */
    private void answered(ChannelHandlerContext ctx) {
        if (timer == null && answers >= requests && ctx.channel().isActive() && StreamedBodies.arriving(ctx.channel())) {
            timer = ctx.executor().schedule(() -> expired(ctx), timeoutMs, TimeUnit.MILLISECONDS);
        } else {
            startIdle(ctx, KEEP_ALIVE_TIMEOUT_MS);
        }
    }

    /** Starts the idle clock unless it runs, a request is being read or one is waiting for its answer. */
    private void startIdle(ChannelHandlerContext ctx, long ms) {
        if (idle == null && timer == null && answers >= requests && ctx.channel().isActive()) {
            idle = ctx.executor().schedule(() -> idleExpired(ctx), ms, TimeUnit.MILLISECONDS);
        }
    }

    private void stopIdle() {
        if (idle != null) {
            idle.cancel(false);
            idle = null;
        }
    }

    /** No byte for the idle time: closed without an answer, as nginx closes an idle connection. */
    private void idleExpired(ChannelHandlerContext ctx) {
        idle = null;
        if (timer == null && answers >= requests) {
            ctx.channel().close();
        }
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
        if (requests > 0 && StreamedBodies.arriving(ctx.channel())) {
            // The body of a request already answered (its agent answered before it ended): no second answer.
            ctx.channel().close();
            return;
        }
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
        Refusals.count(ctx.channel(), HttpResponseStatus.REQUEST_TIMEOUT.code());
        ctx.channel().writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
