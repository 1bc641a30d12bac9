package io.github.agentlb.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.core.orca.LoadReports;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The client side of one proxied request: what the agent request carries from it (method, target,
 * end-to-end headers, body) and the client's connection, onto which the answer is written as it
 * arrives. Every write happens on the connection's event loop; an {@link AgentChild} drives its
 * agent connection from the same loop, so one request's two connections share one thread.
 *
 * <h2>Headers</h2>
 * Forwarded both ways: every end-to-end header. Dropped: the hop-by-hop ones (RFC 9110 §7.6.1:
 * {@code Connection} and the fields it names, {@code Keep-Alive}, {@code Proxy-Connection},
 * {@code TE}, {@code Trailer}, {@code Transfer-Encoding}, {@code Upgrade}), {@code Camel*}, and
 * from answers the agents' load reports ({@code X-Agent-*}). The agent request gets the agent's
 * {@code Host}, {@code Via} with this hop appended, and {@code X-Forwarded-For} set to the client
 * address; the body's {@code Content-Length} is the proxy's own.
 *
 * <p>Not thread-safe: confined to the client connection's event loop.
 */
final class Downstream {

    /** Exchange property holding the request's Downstream. */
    static final String PROPERTY = "agentlb.proxy.downstream";
    /** Name the proxy gives itself in {@code Via}. */
    static final String VIA_NAME = "agentlb";
    /** Prefix of the agents' load report headers, never passed to a client. */
    static final String AGENT_REPORT_PREFIX = "x-agent-";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "te",
            "trailer", "transfer-encoding", "upgrade", "host", "content-length", "expect", "proxy-authorization",
            "proxy-authenticate");

    private final Channel channel;
    private final HttpMethod method;
    private final String target;
    private final HttpHeaders forwardHeaders;
    private final ByteBuf body;
    private final HttpVersion version;
    private boolean keepAlive;
    private boolean headSent;
    private boolean ended;
    private Runnable onClientClose;
    private final ChannelFutureListener closeListener = future -> clientClosed();

    /**
     * @param channel       the client connection
     * @param request       the request as received; its body is retained here until {@link #release}
     * @param target        the origin-form target to send to the agent
     * @param clientAddress the client's IP address, or null
     */
    Downstream(Channel channel, FullHttpRequest request, String target, String clientAddress) {
        this.channel = channel;
        this.method = request.method();
        this.target = target;
        this.version = request.protocolVersion();
        this.keepAlive = HttpUtil.isKeepAlive(request);
        this.body = request.content().retainedDuplicate();
        this.forwardHeaders = endToEnd(request.headers(), false);
        String via = version.majorVersion() + "." + version.minorVersion() + " " + VIA_NAME;
        String previous = request.headers().getAll(HttpHeaderNames.VIA).isEmpty() ? null
                : String.join(", ", request.headers().getAll(HttpHeaderNames.VIA));
        forwardHeaders.set("Via", previous == null ? via : previous + ", " + via);
        if (clientAddress != null) {
            forwardHeaders.set("X-Forwarded-For", clientAddress);
        }
        channel.closeFuture().addListener(closeListener);
    }

    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    Channel channel() {
        return channel;
    }

    HttpMethod method() {
        return method;
    }

    String target() {
        return target;
    }

    /** The end-to-end request headers for the agent, without {@code Host} and {@code Content-Length}. */
    HttpHeaders forwardHeaders() {
        return forwardHeaders;
    }

    /** The request body; the caller gets its own view and must release it. */
    ByteBuf body() {
        return body.retainedDuplicate();
    }

    /**
     * The request body to read, not to send: a view sharing the body's bytes and indices of its
     * own, not retained (valid until {@link #release}).
     */
    ByteBuf bodyView() {
        return body.duplicate();
    }

    /** Whether the answer's head has gone to the client: from then on no other answer can be given. */
    boolean headSent() {
        return headSent;
    }

    boolean clientGone() {
        return !channel.isActive();
    }

    /** Runs {@code hook} when the client closes its connection before the answer ended; null clears it. */
    void onClientClose(Runnable hook) {
        this.onClientClose = hook;
    }

    /**
     * Writes the answer's head: the agent's status and end-to-end headers, framed for this client
     * (the agent's {@code Content-Length}, else chunked for HTTP/1.1, else close-delimited).
     */
    void sendHead(HttpResponse agent, boolean bodyless) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, agent.status());
        String length = agent.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        if (length != null) {
            head.headers().set(HttpHeaderNames.CONTENT_LENGTH, length);
        } else if (!bodyless) {
            if (version.minorVersion() >= 1) {
                HttpUtil.setTransferEncodingChunked(head, true);
            } else {
                keepAlive = false;
            }
        }
        head.headers().add(endToEnd(agent.headers(), true));
        connectionHeader(head.headers());
        headSent = true;
        channel.write(head);
    }

    /** Writes a whole answer held back: the head, then the body as its last part. */
    void sendWhole(HttpResponse agent, byte[] body) {
        sendHead(agent, false);
        end(Unpooled.wrappedBuffer(body));
    }

    /** Writes and flushes a part of the answer's body; takes ownership of {@code content}. */
    ChannelFuture sendContent(ByteBuf content) {
        return channel.writeAndFlush(new DefaultHttpContent(content));
    }

    /** Ends the answer with {@code content} (may be empty); takes ownership of it. */
    void end(ByteBuf content) {
        ended = true;
        onClientClose = null;
        ChannelFuture f = channel.writeAndFlush(new DefaultLastHttpContent(content));
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Cuts the answer: closes the connection without the terminating chunk, so the client sees it incomplete. */
    void abort() {
        ended = true;
        onClientClose = null;
        channel.close();
    }

    /**
     * Answers with a JSON error {@code {"error":..,"detail":..}}, or cuts the answer when its head
     * has already gone; nothing when the client has left.
     */
    void replyError(int status, String error, String detail, Map<String, String> headers) {
        if (ended || !channel.isActive()) {
            ended = true;
            return;
        }
        if (headSent) {
            abort();
            return;
        }
        ended = true;
        onClientClose = null;
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("error", error);
        json.put("detail", detail);
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(bytes));
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        headers.forEach(response.headers()::set);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        connectionHeader(response.headers());
        ChannelFuture f = channel.writeAndFlush(response);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void connectionHeader(HttpHeaders headers) {
        headers.set(HttpHeaderNames.CONNECTION, keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
    }

    /** Releases the body and no longer watches the connection; once, when the exchange is done. */
    void release() {
        channel.closeFuture().removeListener(closeListener);
        onClientClose = null;
        if (body.refCnt() > 0) {
            ReferenceCountUtil.release(body);
        }
    }

    private void clientClosed() {
        Runnable hook = onClientClose;
        onClientClose = null;
        if (hook != null && !ended) {
            hook.run();
        }
    }

    /**
     * The end-to-end headers of {@code from}: without hop-by-hop ones, those {@code Connection}
     * names, {@code Camel*}, and for an answer the {@code X-Agent-*} and ORCA ({@code endpoint-load-metrics}) load reports.
     */
    static HttpHeaders endToEnd(HttpHeaders from, boolean answer) {
        Set<String> named = new java.util.HashSet<>();
        for (String value : from.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : value.split(",")) {
                named.add(token.trim().toLowerCase(Locale.ROOT));
            }
        }
        HttpHeaders out = new DefaultHttpHeaders();
        for (Map.Entry<String, String> header : from) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            if (HOP_BY_HOP.contains(name) || named.contains(name) || name.startsWith("camel")
                    || answer && (name.startsWith(AGENT_REPORT_PREFIX) || name.equals(LoadReports.HEADER))) {
                continue;
            }
            out.add(header.getKey(), header.getValue());
        }
        return out;
    }
}
