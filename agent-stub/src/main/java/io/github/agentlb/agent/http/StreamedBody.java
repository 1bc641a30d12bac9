package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.function.Consumer;

/**
 * The part of a request body that had not arrived when the request was handed on: its parts as
 * they come from the client, to whoever {@link #pipe pipes} them (an agent call), else held until
 * then. The request handed on is a {@link Prefix}: the head (with the client's
 * {@code Content-Length}, the whole body's) and the body's first bytes, held.
 *
 * <p>The parts held count in all bodies' most ({@link HeldBodies#maxBytes}) until they are handed
 * out or released; past it, the client's connection is not read until bytes are given back.
 *
 * <p>Once a part has been handed out ({@link #started()}), the body cannot be sent whole again:
 * what was sent is no longer held (nginx's {@code proxy_request_buffering off}).
 *
 * <p>Not thread-safe: confined to the client connection's event loop.
 */
public final class StreamedBody {

    /** The request handed on while its body still arrives: the head and the body's held prefix as content. */
    public static final class Prefix extends DefaultFullHttpRequest {
        private final StreamedBody rest;

        Prefix(HttpRequest head, ByteBuf prefix, StreamedBody rest) {
            super(head.protocolVersion(), head.method(), head.uri(), prefix, head.headers(),
                    LastHttpContent.EMPTY_LAST_CONTENT.trailingHeaders());
            this.rest = rest;
        }

        /** The body's rest, after this request's content. */
        public StreamedBody rest() {
            return rest;
        }
    }

    private final Channel channel;
    private final long length;
    private final HeldBody counted;
    private final Queue<HttpContent> held = new ArrayDeque<>();
    /** The bytes of {@link #held}. */
    private long heldBytes;
    private boolean ended;
    private Throwable failure;
    private boolean started;
    private boolean discarded;
    private Consumer<ByteBuf> part;
    private Runnable end;
    private Consumer<Throwable> failed;

    StreamedBody(Channel channel, long length, HeldBodies bodies) {
        this.channel = channel;
        this.length = length;
        this.counted = new HeldBody(bodies, channel);
    }

    /** The whole body's length, bytes, as the client announced it. */
    public long length() {
        return length;
    }

    /** Whether a part of the rest was handed out: from then on the body cannot be sent again. */
    public boolean started() {
        return started;
    }

    /**
     * Hands the rest's parts to {@code part} in order, those held first, then each as it arrives,
     * then runs {@code end}; or {@code failed} once if the client's connection closes first. A later
     * call replaces the receiver while nothing was handed out.
     *
     * @throws IllegalStateException if a part was already handed out or the rest was discarded
     */
    public void pipe(Consumer<ByteBuf> part, Runnable end, Consumer<Throwable> failed) {
        if (started || discarded) {
            throw new IllegalStateException("the request body's rest was " + (started ? "already sent" : "discarded"));
        }
        this.part = part;
        this.end = end;
        this.failed = failed;
        for (HttpContent content; (content = held.poll()) != null; ) {
            deliver(content);
        }
        giveBack();
        if (ended) {
            end.run();
        } else if (failure != null) {
            failed.accept(failure);
        }
    }

    /** Nobody will send the rest (the exchange is done): what is held and what arrives is released. */
    public void discard() {
        discarded = true;
        part = null;
        for (HttpContent content; (content = held.poll()) != null; ) {
            content.release();
        }
        giveBack();
    }

    /** Gives back the bytes held (sent on or released), and reads the client's connection again if it waited for them. */
    private void giveBack() {
        heldBytes = 0;
        counted.giveBack();
    }

    /** The client connection whose body this is. */
    public Channel channel() {
        return channel;
    }

    void arrived(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        if (discarded) {
            content.release();
        } else if (part != null) {
            deliver(content);
        } else {
            held.add(content);
            heldBytes += content.content().readableBytes();
            counted.read(heldBytes, true);
        }
        if (last) {
            ended = true;
            if (end != null && !discarded) {
                end.run();
            }
        }
    }

    void closed() {
        if (ended || failure != null) {
            return;
        }
        failure = new ClosedChannelException();
        if (failed != null && !discarded) {
            failed.accept(failure);
        }
    }

    private void deliver(HttpContent content) {
        ByteBuf bytes = content.content();
        if (bytes.isReadable()) {
            started = true;
            part.accept(bytes);
        } else {
            content.release();
        }
    }
}
