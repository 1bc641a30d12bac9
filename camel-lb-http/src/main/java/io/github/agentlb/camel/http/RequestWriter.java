package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptHooks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.util.Set;
import org.apache.camel.Exchange;

/**
 * Writes one {@link AgentCall}'s request to an agent connection: the head (the client's end-to-end
 * headers, the attempt's own request headers, the agent's {@code Host}, keep-alive and a
 * {@code Content-Length}; no {@code Accept-Encoding} when the attempt's hooks rewrite the answer,
 * {@link AttemptHooks#rewritesJsonAnswer}), then the body.
 *
 * <h2>The body</h2>
 * <ul>
 *   <li>Whole ({@link Downstream#bodyRest()} null): the attempt's body when its hooks give one
 *       ({@link AttemptHooks#requestBody()}: an A2A task call with its agent's own task id), else
 *       the client's; {@code Content-Length} is the length of what is sent.</li>
 *   <li>Still arriving: the held prefix, then each part as it comes, with backpressure (while the
 *       agent's connection cannot take more, the client's is not read); {@code Content-Length} is
 *       the client's. Sent as the client sent it: the hooks' body is not asked for.</li>
 * </ul>
 *
 * <p>Each {@link #write} writes the request anew (a pooled connection given up for a new one).
 * Confined to the client connection's event loop, as its call is.
 *
 * @param endpoint the agent's endpoint: its address and options
 * @param exchange the attempt
 * @param down     the client's side: the streamed body's rest, if any
 * @param hooks    the attempt's hooks: the body they give, whether they rewrite the answer
 * @param writes   what the call is told of each write
 */
record RequestWriter(AgentEndpoint endpoint, Exchange exchange, Downstream down, AttemptHooks hooks, Writes writes) {

    /** What a call is told of the writes to one of its connections. */
    interface Writes {

        /** Whether parts still go to {@code target}: it is the call's connection, the call runs and no write failed. */
        boolean sending(Channel target);

        /** The request's last byte was written to {@code target} ({@code success}), or a write to it failed ({@code cause}). */
        void written(Channel target, boolean success, Throwable cause);

        /** The client's request body broke off before its end (its connection closed). */
        void bodyBroke(Channel target, IOException failure);

        /** A part of a streamed body went to {@code target}: the client is still sending. */
        void partSent(Channel target);
    }

    private static final Set<HttpMethod> WITH_BODY = Set.of(HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH);

    /** Writes the request to {@code target}; the outcome comes through {@link Writes}. */
    void write(Channel target) {
        BodyRest rest = down.bodyRest();
        ByteBuf body = down.body();
        byte[] replaced = rest == null ? hooks.requestBody() : null;
        if (replaced != null) {
            body.release();
            body = Unpooled.wrappedBuffer(replaced);
        }
        HttpRequest request = rest == null
                ? new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, down.method(), down.target(), body)
                : new DefaultHttpRequest(HttpVersion.HTTP_1_1, down.method(), down.target());
        HttpHeaders headers = request.headers().set(down.forwardHeaders());
        for (String name : hooks.requestHeaders()) {
            // The balancer's own for this attempt (a load report ask, a restored session id), never the client's.
            headers.remove(name);
            String value = exchange.getIn().getHeader(name, String.class);
            if (value != null) {
                headers.set(name, value);
            }
        }
        if (hooks.rewritesJsonAnswer()) {
            // The answer's task ids are rewritten: asked for as written, not compressed (nginx's sub_filter rule).
            headers.remove(HttpHeaderNames.ACCEPT_ENCODING);
        }
        headers.set(HttpHeaderNames.HOST, endpoint.authority());
        headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        if (rest != null) {
            headers.set(HttpHeaderNames.CONTENT_LENGTH, rest.length());
        } else if (body.isReadable() || WITH_BODY.contains(down.method())) {
            headers.set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        }
        if (rest == null) {
            target.writeAndFlush(request).addListener(f -> writes.written(target, f.isSuccess(), f.cause()));
            return;
        }
        target.write(request);
        target.writeAndFlush(new DefaultHttpContent(body)).addListener(f -> {
            if (!f.isSuccess()) {
                writes.written(target, false, f.cause());
            }
        });
        rest.pipe(part -> sendPart(target, part),
                () -> {
                    if (writes.sending(target)) {
                        target.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT)
                                .addListener(f -> writes.written(target, f.isSuccess(), f.cause()));
                    }
                },
                failure -> writes.bodyBroke(target, new IOException("the client's request body broke off", failure)));
    }

    /**
     * A part of a streamed body to the agent; while the agent's connection cannot take more, the
     * client's is not read.
     */
    private void sendPart(Channel target, ByteBuf part) {
        if (!writes.sending(target)) {
            part.release();
            return;
        }
        ChannelFuture sent = target.writeAndFlush(new DefaultHttpContent(part));
        writes.partSent(target);
        sent.addListener(f -> {
            if (!f.isSuccess()) {
                writes.written(target, false, f.cause());
            }
        });
        if (!target.isWritable()) {
            Channel client = down.channel();
            client.config().setAutoRead(false);
            sent.addListener(f -> client.config().setAutoRead(true));
        }
    }
}
