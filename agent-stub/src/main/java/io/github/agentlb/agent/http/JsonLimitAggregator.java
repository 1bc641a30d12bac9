package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Netty's {@link HttpObjectAggregator} (a request body, chunked or not, gathered up to
 * {@code maxContentLength} bytes) whose answer to a larger body is the project's JSON error,
 * {@code 413 {"error":"content too large","detail":...}}, rather than an empty 413; the
 * connection is then closed, as the rest of the body would otherwise have to be read. A request
 * that announces such a body and asks {@code Expect: 100-continue} (curl does above 1 MiB) gets the
 * same answer before sending it, and the connection is closed too. An expectation other than
 * {@code 100-continue} gets Netty's 417 as the same JSON ({@code "expectation failed"}), the
 * connection closed (RFC 9110 §10.1.1).
 *
 * <p>A body over {@value HeldBodies#SMALL_BODY_BYTES} bytes or chunked counts in all bodies' most
 * ({@link HeldBodies}) while it is gathered: one announced by {@code Content-Length} is begun once
 * all of it fits, a chunked one is read, and once past the small size reserves {@code maxContentLength}
 * (its size is not known before its end: so that every chunked body that goes on can end); each part is copied to a buffer
 * of its own size. Not sharable: one per connection.
 */
final class JsonLimitAggregator extends HttpObjectAggregator {

    private final int maxContentLength;
    private final HeldBodies bodies;
    /** The body being gathered, when it counts in all bodies' most; null else. */
    private HeldBody gathering;
    /** Whether the body gathered is chunked (its size not announced). */
    private boolean chunked;
    private long gathered;
    /** A request was refused: what follows on the connection is dropped. */
    private boolean refused;

    /** Gathers bodies up to {@code maxContentLength} bytes, counted in {@code bodies} as {@link HeldBodies} says. */
    JsonLimitAggregator(int maxContentLength, HeldBodies bodies) {
        super(maxContentLength, true);
        this.maxContentLength = maxContentLength;
        this.bodies = bodies;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (refused) {
            ReferenceCountUtil.release(msg); // the refused request's body, and anything after it
            return;
        }
        if (msg instanceof HttpRequest request && !(msg instanceof FullHttpRequest)
                && request.decoderResult().isSuccess()) {
            if (unsupportedExpectation(request)) {
                refuse(ctx, request, HttpResponseStatus.EXPECTATION_FAILED, "expectation failed",
                        "only Expect: 100-continue is supported");
                ReferenceCountUtil.release(msg);
                return;
            }
            if (least(request) == -2) {
                refuse(ctx, request, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "content too large",
                        "the request body is over " + maxContentLength + " bytes");
                ReferenceCountUtil.release(msg);
                return;
            }
        }
        if (msg instanceof HttpRequest request && !(msg instanceof FullHttpRequest)) {
            done();
            long least = bodies.maxBytes() == Long.MAX_VALUE ? -1 : least(request);
            super.channelRead(ctx, msg);
            if (least >= 0 && ctx.channel().isActive()) {
                gathering = new HeldBody(bodies, ctx.channel());
                chunked = least == 0; // only a chunked body counts from 0 (the aggregator has taken its header off by now)
                gathering.begin(least);
            }
        } else if (gathering != null && msg instanceof HttpContent content) {
            // Copied to a buffer of its own size: a slice of a read buffer would keep the whole of it.
            ByteBuf part = content.content();
            HttpContent copy = content.replace(ctx.alloc().buffer(part.readableBytes()).writeBytes(part));
            copy.setDecoderResult(content.decoderResult()); // a broken chunked body stays broken
            content.release();
            long before = gathered;
            gathered += copy.content().readableBytes();
            if (chunked && before <= HeldBodies.SMALL_BODY_BYTES && gathered > HeldBodies.SMALL_BODY_BYTES) {
                // Its size unknown before its end, a chunked body past the small size reserves the most a
                // body may be, so that every one that goes on can end (else slow ones that together
                // passed the most would all wait, none able to end).
                gathering.read(gathered, false);
                gathering.begin(maxContentLength);
            } else {
                gathering.read(gathered, true);
            }
            boolean last = copy instanceof LastHttpContent;
            super.channelRead(ctx, copy);
            if (last) {
                done();
            }
        } else {
            super.channelRead(ctx, msg);
        }
    }

    /**
     * Netty's aggregator reads on while a message is incomplete even with reading paused; not while
     * the body it gathers waits for bytes to be given back, or the most would not hold.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (gathering != null && gathering.waiting()) {
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    /**
     * The bytes a body counts before it is read: all of one announced over the small size, 0 for a
     * chunked one; -2: over {@code maxContentLength}; -1: not counted, also for a request the decoder could not read (a
     * {@code Content-Length} that is not one number among them: {@link Http1Only} refuses it, and
     * reading its length here would throw).
     */
    private long least(HttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            return -1;
        }
        if (HttpUtil.isTransferEncodingChunked(request)) {
            return 0;
        }
        long length = HttpUtil.getContentLength(request, -1L);
        if (length > maxContentLength) {
            return -2;
        }
        return length > HeldBodies.SMALL_BODY_BYTES && length <= maxContentLength ? length : -1;
    }

    /** The body gathered is whole (handed on) or dropped: its bytes given back. */
    private void done() {
        if (gathering != null) {
            gathering.giveBack();
            gathering = null;
            gathered = 0;
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        done();
        super.handlerRemoved(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        done();
        super.channelInactive(ctx);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) throws Exception {
        if (!(oversized instanceof HttpRequest request)) {
            super.handleOversizedMessage(ctx, oversized);
            return;
        }
        refuse(ctx, request, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "content too large",
                "the request body is over " + maxContentLength + " bytes");
    }

    /** As Netty's aggregator: an {@code Expect} other than {@code 100-continue} in HTTP/1.1 or later. */
    private static boolean unsupportedExpectation(HttpRequest request) {
        String expect = request.headers().get(HttpHeaderNames.EXPECT);
        return expect != null && request.protocolVersion().compareTo(io.netty.handler.codec.http.HttpVersion.HTTP_1_1) >= 0
                && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect);
    }

    /**
     * Passes {@code request} on as a whole request without body marked refused (a
     * {@link Http1Only.Refusal} as its decoder result), for {@link Http1Only} to answer after the
     * answers to the requests before it ({@link OneRequestAtATime}) and close the connection; the
     * rest of the connection's bytes are dropped and it is no longer read.
     */
    private void refuse(ChannelHandlerContext ctx, HttpRequest request, HttpResponseStatus status, String error,
                        String detail) {
        refused = true;
        done();
        ctx.channel().config().setAutoRead(false);
        FullHttpRequest marked = new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri(),
                Unpooled.EMPTY_BUFFER, request.headers().copy(), EmptyHttpHeaders.INSTANCE);
        marked.setDecoderResult(DecoderResult.failure(new Http1Only.Refusal(status, error, detail)));
        ctx.fireChannelRead(marked);
    }
}
