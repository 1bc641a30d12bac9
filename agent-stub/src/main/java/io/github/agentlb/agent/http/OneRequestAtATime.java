package io.github.agentlb.agent.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * Hands the requests of one connection to the next handler one at a time: a request that
 * arrives while another is being answered waits until that answer's last part is written, so
 * pipelined requests are answered in the order they came (RFC 9112 §9.3.2), as nginx does.
 * After an answer with {@code Connection: close} the waiting requests are dropped, as the
 * connection is about to close. A request refused by an earlier handler (its framing, its length)
 * comes as one whose decoder result failed, and waits as any other, so that its refusal
 * ({@link Http1Only}) comes after the answers before it; what is left of it (a body part decoded
 * from the same bytes) waits behind it, to be dropped with it.
 *
 * <p>Reading stops while {@value #MAX_WAITING} requests wait, so a client that pipelines without
 * reading cannot fill the heap. Not sharable: one instance per connection; all state is touched
 * on the connection's event loop only.
 */
public final class OneRequestAtATime extends ChannelDuplexHandler {

    /** Requests that may wait behind the one being answered before reading pauses. */
    static final int MAX_WAITING = 16;

    private final Queue<Object> waiting = new ArrayDeque<>();
    private boolean answering;
    private boolean closing;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpRequest)) {
            if (waiting.isEmpty()) {
                ctx.fireChannelRead(msg);
            } else {
                // The rest of a request refused undecoded, which waits: after it, to be dropped then.
                waiting.add(msg);
            }
        } else if (closing) {
            ReferenceCountUtil.release(msg);
        } else if (answering || !waiting.isEmpty()) {
            // Behind the one being answered, or behind those already waiting for next().
            waiting.add(msg);
            if (waiting.size() >= MAX_WAITING) {
                ctx.channel().config().setAutoRead(false);
            }
        } else {
            answering = true;
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response
                && HttpHeaderValues.CLOSE.contentEqualsIgnoreCase(response.headers().get(HttpHeaderNames.CONNECTION))) {
            closing = true;
            releaseWaiting();
        }
        boolean last = msg instanceof LastHttpContent;
        ctx.write(msg, promise);
        if (last && answering) {
            answering = false;
            // After this write has gone down the pipeline, not inside it.
            ctx.channel().eventLoop().execute(() -> next(ctx));
        }
    }

    private void next(ChannelHandlerContext ctx) {
        if (answering) {
            return;
        }
        Object request = waiting.poll();
        while (request != null && !(request instanceof HttpRequest) && ctx.channel().isActive()) {
            ctx.fireChannelRead(request);
            request = waiting.poll();
        }
        if (request == null) {
            ctx.channel().config().setAutoRead(true);
        } else if (!ctx.channel().isActive()) {
            ReferenceCountUtil.release(request);
            releaseWaiting();
        } else {
            answering = true;
            ctx.fireChannelRead(request);
        }
    }

    /** Also when the connection closes: Netty removes every handler of a closed channel. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseWaiting();
    }

    private void releaseWaiting() {
        for (Object request; (request = waiting.poll()) != null; ) {
            ReferenceCountUtil.release(request);
        }
    }
}
