package io.github.agentlb.agent.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets only well-formed HTTP/1.x requests reach Camel; answers the others itself, with the JSON
 * error every other refusal has, then closes the connection, as what follows on it cannot be
 * trusted to be HTTP/1.1 (RFC 9112 §2.2):
 * <ul>
 *   <li>another major version: {@code 505 HTTP Version Not Supported} (RFC 9110 §15.6.6; RFC 9112
 *       §2.3 lets a server refuse a major version). HTTP/1.x with any minor version is served (a
 *       1.2 client understands a 1.1 answer, RFC 9110 §2.5);
 *   <li>a request Netty could not decode: a request line longer than {@code maxInitialLineLength},
 *       414 (RFC 9112 §3); headers longer than {@code maxHeaderSize}, 431 (RFC 6585 §5); anything
 *       else (a protocol name other than {@code HTTP} included), 400 with Netty's reason, cut to
 *       {@value #MAX_REASON} characters. camel-netty-http would answer these with an empty
 *       {@code text/plain} 400;
 *   <li>a method that is not one of RFC 9110's or {@code PATCH} (method names are case-sensitive,
 *       §9.1, so {@code get} is one of them): {@code 501 Not Implemented} (RFC 9110 §15.6.2);
 *       camel-netty-http would answer an empty 405 without {@code Allow};
 *   <li>HTTP/1.1 without {@code Host}: 400 (RFC 9112 §3.2: "MUST respond with a 400"). An
 *       HTTP/1.0 request may have none: it gets the {@code Host} of this server's own address,
 *       since camel-netty-http refuses any request without one.
 * </ul>
 * A connection that breaks while a request is still arriving (the client closed mid-body) is
 * closed here, with a DEBUG line, rather than handed to camel-netty-http, which logs a WARN with a
 * stack trace and tries to answer 404 on it. So is the rest of a refused request (a body decoded
 * from the same bytes): dropped, never passed on.
 * Stateless and sharable.
 */
@ChannelHandler.Sharable
final class Http1Only extends ChannelInboundHandlerAdapter {

    static final Http1Only INSTANCE = new Http1Only();
    private static final Logger LOG = LoggerFactory.getLogger(Http1Only.class);

    /** RFC 9110 §9 and RFC 5789: the methods a client may expect a server to know. */
    private static final Set<String> KNOWN_METHODS =
            Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH");

    /** Set on a connection once a request on it was refused: what follows is dropped until it closes. */
    private static final AttributeKey<Boolean> REFUSED = AttributeKey.valueOf(Http1Only.class, "refused");

    /** Longest reason from Netty quoted back to the client, characters. */
    private static final int MAX_REASON = 200;

    private Http1Only() {
    }

    /**
     * The decoder result's cause of a request an earlier handler refused ({@link JsonLimitAggregator}:
     * 413, 417), so that its refusal is written in request order, after the answers before it.
     */
    static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient HttpResponseStatus status;
        private final String error;

        Refusal(HttpResponseStatus status, String error, String detail) {
            super(detail, null, false, false);
            this.status = status;
            this.error = error;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (ctx.channel().hasAttr(REFUSED)) {
            // The rest of a refused request (its body, its end) decoded from the same bytes: dropped.
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof HttpRequest request)) {
            ctx.fireChannelRead(msg);
            return;
        }
        DecoderResult decoded = request.decoderResult();
        HttpVersion version = request.protocolVersion();
        if (decoded.isFailure()) {
            refuseUndecoded(ctx, msg, decoded.cause());
        } else if (version.majorVersion() != 1) {
            refuse(ctx, msg, HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "http version not supported",
                    version.text() + " is not supported, use HTTP/1.1");
        } else if (!KNOWN_METHODS.contains(request.method().name())) {
            refuse(ctx, msg, HttpResponseStatus.NOT_IMPLEMENTED, "not implemented",
                    "method " + request.method().name() + " is not implemented");
        } else if (!request.headers().contains(HttpHeaderNames.HOST) && version.minorVersion() >= 1) {
            refuse(ctx, msg, HttpResponseStatus.BAD_REQUEST, "bad request", "missing Host header");
        } else {
            if (!request.headers().contains(HttpHeaderNames.HOST)
                    && ctx.channel().localAddress() instanceof InetSocketAddress local) {
                request.headers().set(HttpHeaderNames.HOST, authority(local));
            }
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PrematureChannelClosureException || cause instanceof IOException) {
            LOG.debug("Closing {}: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    /** {@code host:port} of {@code address}, an IPv6 literal in brackets. */
    private static String authority(InetSocketAddress address) {
        String host = address.getAddress() == null ? address.getHostString() : address.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    private static void refuseUndecoded(ChannelHandlerContext ctx, Object msg, Throwable cause) throws Exception {
        if (cause instanceof Refusal refusal) {
            refuse(ctx, msg, refusal.status, refusal.error, refusal.getMessage());
        } else if (cause instanceof TooLongHttpLineException) {
            refuse(ctx, msg, HttpResponseStatus.REQUEST_URI_TOO_LONG, "uri too long", "the request line is too long");
        } else if (cause instanceof TooLongHttpHeaderException) {
            refuse(ctx, msg, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request header fields too large",
                    "the request headers are too long");
        } else {
            String reason = cause == null || cause.getMessage() == null ? "not HTTP/1.1" : cause.getMessage();
            refuse(ctx, msg, HttpResponseStatus.BAD_REQUEST, "bad request", "malformed request: "
                    + (reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) + "..." : reason));
        }
    }

    static void refuse(ChannelHandlerContext ctx, Object request, HttpResponseStatus status, String error,
                               String detail) throws Exception {
        refuse(ctx, request, status, error, detail, 0);
    }

    /** As {@link #refuse(ChannelHandlerContext, Object, HttpResponseStatus, String, String)}, with {@code Retry-After} if > 0. */
    static void refuse(ChannelHandlerContext ctx, Object request, HttpResponseStatus status, String error,
                               String detail, int retryAfterSeconds) throws Exception {
        ReferenceCountUtil.release(request);
        ctx.channel().attr(REFUSED).set(Boolean.TRUE);
        Refusals.count(ctx.channel(), status.code());
        byte[] body = HttpReplies.errorJson(error, Map.of("detail", detail));
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpReplies.APPLICATION_JSON);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        if (retryAfterSeconds > 0) {
            response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
        }
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
