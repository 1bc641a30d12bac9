package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Hands a request with a large body on before its body has arrived: once {@code heldBytes} of it
 * have, and they are enough ({@link HeldBodies}: else once twice as many have, and so on, up to
 * {@code maxHeldBytes}), as a {@link StreamedBody.Prefix} (the head and those bytes), the rest
 * following through its {@link StreamedBody}. Only a body announced by {@code Content-Length},
 * longer than {@code heldBytes} and at most {@code maxBytes} (so the limit is answered, by the aggregator, before
 * anything is sent), without {@code Expect: 100-continue}; any other request (chunked bodies
 * among them) passes to the aggregator as it is and is gathered whole, as nginx gathers a chunked
 * body. Placed just before the aggregator.
 *
 * <p>Not sharable: one per connection, confined to its event loop.
 */
final class StreamedBodies extends ChannelInboundHandlerAdapter {

    private final HeldBodies held;
    private final long maxBytes;
    private HttpRequest head;
    private CountedPrefix prefix;
    /** The bytes held at which {@link HeldBodies#enough} is asked next. */
    private long askAt;
    /** The bytes this connection holds beyond the least, {@linkplain HeldBodies#reserve reserved}. */
    private long reserved;
    /** Whether holding more would pass what all connections together may hold: the request goes on now. */
    private boolean spent;
    private StreamedBody rest;

    StreamedBodies(HeldBodies held, long maxBytes) {
        this.held = held;
        this.maxBytes = maxBytes;
    }

    /** Whether the rest of a body handed on is still arriving on {@code channel}; on its event loop. */
    static boolean arriving(Channel channel) {
        StreamedBodies bodies = channel.pipeline().get(StreamedBodies.class);
        return bodies != null && bodies.rest != null;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rest != null && msg instanceof HttpContent content) {
            StreamedBody body = rest;
            if (content instanceof LastHttpContent) {
                rest = null;
            }
            body.arrived(content);
        } else if (head != null && msg instanceof HttpContent content) {
            // Copied to a buffer of its own size: a read buffer held would keep its whole capacity
            // (up to 64 KiB for a part of a few KB) from the pool while the client is slow.
            ByteBuf part = content.content();
            prefix.add(ctx.alloc().buffer(part.readableBytes()).writeBytes(part));
            content.release();
            long over = prefix.readableBytes() - (long) held.heldBytes();
            if (over > reserved && !spent) {
                if (held.reserve(over - reserved) && held.bytesHeld() <= held.maxBytes()) {
                    reserved = over;
                } else {
                    spent = true;
                }
            }
            if (content instanceof LastHttpContent) {
                handOn(ctx, null); // shorter than announced: the codec ended it; the whole body is held
            } else if (spent || prefix.readableBytes() >= askAt && enough()) {
                rest = new StreamedBody(ctx.channel(), HttpUtil.getContentLength(head, -1L), held);
                handOn(ctx, rest);
            }
        } else if (msg instanceof HttpRequest request && streams(request)) {
            head = request;
            prefix = new CountedPrefix(ctx.alloc(), new HeldBody(held, ctx.channel()));
            askAt = held.heldBytes();
            prefix.body.begin(held.heldBytes());
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    private boolean streams(HttpRequest request) {
        if (request instanceof FullHttpRequest || !request.decoderResult().isSuccess()
                || HttpUtil.isTransferEncodingChunked(request) || HttpUtil.is100ContinueExpected(request)) {
            return false;
        }
        long length = HttpUtil.getContentLength(request, -1L);
        return length > held.heldBytes() && length <= maxBytes && request.headers().getAll(HttpHeaderNames.CONTENT_LENGTH).size() == 1;
    }

    /** Whether what is held is enough to hand the request on: at the most held, or when the check says so; else it is asked again at twice as many bytes. */
    private boolean enough() {
        if (prefix.readableBytes() >= held.maxHeldBytes() || held.enough().test(head, prefix.asReadOnly())) {
            return true;
        }
        askAt = Math.min(Math.max(askAt * 2, prefix.readableBytes() + 1L), held.maxHeldBytes());
        return false;
    }

    private void handOn(ChannelHandlerContext ctx, StreamedBody body) {
        giveBack();
        prefix.body.goOn();
        HttpRequest request = head;
        CompositeByteBuf held = prefix;
        head = null;
        prefix = null;
        ctx.fireChannelRead(new StreamedBody.Prefix(request, held, body));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        release();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    /** Gives back the bytes {@linkplain HeldBodies#reserve reserved} beyond the least: the prefix is handed on, or released. */
    private void giveBack() {
        held.release(reserved);
        reserved = 0;
        spent = false;
    }

    private void release() {
        giveBack();
        if (prefix != null) {
            prefix.release();
            prefix = null;
            head = null;
        }
        if (rest != null) {
            rest.closed();
            rest = null;
        }
    }

    /**
     * A body's prefix whose bytes count in all bodies' most ({@link HeldBodies#maxBytes}) until it
     * is freed (the request handed on and its exchange ended, or the connection closed first).
     */
    private static final class CountedPrefix extends CompositeByteBuf {
        private final HeldBody body;

        CountedPrefix(ByteBufAllocator alloc, HeldBody body) {
            super(alloc, true, Integer.MAX_VALUE);
            this.body = body;
        }

        /** Adds a part read, counted whether it fits or not (it is in memory). */
        void add(ByteBuf part) {
            addComponent(true, part);
            body.read(readableBytes(), false);
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            body.giveBack();
        }
    }
}
