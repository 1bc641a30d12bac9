package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AgentLb;
import io.github.agentlb.camel.QueuedExchange;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.netty.NettyConstants;
import org.apache.camel.component.netty.http.NettyHttpMessage;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * The {@link Downstream} of a request taken by a camel-netty-http consumer: the aggregated
 * {@link FullHttpRequest} and the client's channel, read from the exchange
 * ({@code NettyHttpMessage}, header {@code CamelNettyChannelHandlerContext}).
 *
 * <h2>How the consumer's own reply is kept off the wire</h2>
 * The first request of a connection adds a small handler to the connection's pipeline, just before
 * the consumer's own ({@value ClientChannel#NAME}). Once an answer's head went out, the exchange's body is a marker
 * ({@link #answeredBody()}); camel-netty-http's binding passes an {@code HttpResponse} body on as
 * the reply, and the handler drops it, as it drops any reply written after the connection was
 * cut. Replies to exchanges whose answer was not streamed (a route's JSON error, a busy answer
 * held back) pass as usual. The handler also tells the open requests when the client leaves, and
 * holds each request's {@code NettyDownstream} so that every attempt of an exchange uses one.
 *
 * <h2>Headers</h2>
 * Forwarded both ways: every end-to-end header ({@link Hops}). The agent request gets {@code Via}
 * with this hop appended ({@value #VIA_NAME}) and {@code X-Forwarded-For} set to the client
 * address; {@code Host} and {@code Content-Length} are the caller's.
 *
 * <p>Not thread-safe: confined to the client connection's event loop, but for the request's
 * parts and {@link #release()}.
 *
 * <p>Over 300 lines: the SPI's methods and the two ways to open one ({@link #of}, {@link #install})
 * over one request's fields; the header rule is {@link Hops}', the marker {@link StreamedAnswer}.
 */
public final class NettyDownstream implements Downstream {

    /** Name the proxy gives itself in {@code Via}. */
    public static final String VIA_NAME = "agentlb";

    private final ClientChannel client;
    private final ChannelHandlerContext out;
    private final FullHttpRequest request;
    /** What its {@link ClientChannel} knows it by: the consumer's request, else its exchange's id. */
    private final Object key;
    private final HttpMethod method;
    private final String target;
    private final HttpHeaders forwardHeaders;
    private final ByteBuf body;
    private final HttpVersion version;
    private final StreamedAnswer answered = new StreamedAnswer(this);
    private boolean keepAlive;
    private boolean headSent;
    private boolean ended;
    private boolean released;
    /** What runs when the client leaves: one hook per call in flight (two while a request is hedged). */
    private final List<Runnable> onClientClose = new ArrayList<>(1);
    private BodyRest rest;
    /** The exchange it was installed on before the balancer, whose place in a queue a leaving client gives up; or null. */
    private Exchange exchange;

    /**
     * @param client        the connection's handler, through whose context the answer is written
     * @param key           what the handler knows it by
     * @param request       the request as received; its body is retained here until {@link #release}
     * @param target        the origin-form target to send to the agent
     * @param clientAddress the client's IP address, or null
     */
    NettyDownstream(ClientChannel client, Object key, FullHttpRequest request, String target, String clientAddress) {
        this.client = client;
        this.key = key;
        this.out = client.context();
        this.request = request;
        this.method = request.method();
        this.target = target;
        this.version = request.protocolVersion();
        this.keepAlive = HttpUtil.isKeepAlive(request);
        // From its first byte: the route or the balancer may have read it already (a type
        // converter to byte[] moves the reader index), and the agent gets it whole all the same.
        ByteBuf content = request.content();
        this.body = content.retainedSlice(0, content.writerIndex());
        this.forwardHeaders = Hops.endToEnd(request.headers());
        String via = version.majorVersion() + "." + version.minorVersion() + " " + VIA_NAME;
        String previous = request.headers().getAll(HttpHeaderNames.VIA).isEmpty() ? null
                : String.join(", ", request.headers().getAll(HttpHeaderNames.VIA));
        forwardHeaders.set("Via", previous == null ? via : previous + ", " + via);
        if (clientAddress != null) {
            forwardHeaders.set("X-Forwarded-For", clientAddress);
        }
    }

    /**
     * The exchange's downstream: the one a consumer-side piece installed (property
     * {@value Downstream#PROPERTY}), else the one of its camel-netty-http request, opened at the
     * exchange's first attempt and shared by its later ones. The target is the request's as the
     * client sent it (absolute form made origin form).
     *
     * @return null when the exchange has neither: not from a camel-netty-http consumer, or its
     *     message no longer the consumer's ({@code NettyHttpMessage} with header
     *     {@code CamelNettyChannelHandlerContext})
     */
    public static Downstream of(Exchange exchange) {
        Downstream installed = exchange.getProperty(PROPERTY, Downstream.class);
        if (installed != null) {
            return installed;
        }
        Message in = exchange.getIn();
        ChannelHandlerContext ctx = in.getHeader(NettyConstants.NETTY_CHANNEL_HANDLER_CONTEXT, ChannelHandlerContext.class);
        FullHttpRequest received = in instanceof NettyHttpMessage netty ? netty.getHttpRequest() : null;
        // The route's changes: its headers and body on the consumer's message, or a message of its own (RouteEdits).
        FullHttpRequest request = ctx == null ? null : received != null ? RouteEdits.applied(received, in) : RouteEdits.rebuilt(exchange);
        if (request == null) {
            return null;
        }
        // Keyed by the consumer's request, else by the exchange (its attempts are copies with its id): one per exchange.
        NettyDownstream down = ClientChannel.on(ctx.channel()).open(received != null ? received : exchange.getExchangeId().intern(),
                request, originForm(request.uri()), clientAddress(in));
        exchange.setProperty(PROPERTY, down);
        return down;
    }

    /**
     * Installs the downstream of a camel-netty-http request on {@code exchange} with the target
     * the route chose (e.g. with dot-segments removed), for a route that reads the request
     * itself before its {@code loadBalance()}; released when the exchange is done.
     *
     * @param channel       the client connection
     * @param request       the request as the consumer aggregated it
     * @param target        the origin-form target to send to the agents
     * @param clientAddress the client's IP address for {@code X-Forwarded-For}, or null
     */
    public static NettyDownstream install(Exchange exchange, Channel channel, FullHttpRequest request, String target,
            String clientAddress) {
        return install(exchange, channel, request, target, clientAddress, null);
    }

    /**
     * As {@link #install(Exchange, Channel, FullHttpRequest, String, String)} for a request whose
     * content is the held prefix of a body still arriving: {@code rest} brings the remainder
     * ({@link BodyRest}), discarded when the exchange is done.
     *
     * @param rest the body's rest, or null when the request's content is the whole body
     */
    public static NettyDownstream install(Exchange exchange, Channel channel, FullHttpRequest request, String target,
            String clientAddress, BodyRest rest) {
        NettyDownstream down = ClientChannel.on(channel).open(request, request, target, clientAddress);
        down.rest = rest;
        down.exchange = exchange;
        exchange.setProperty(PROPERTY, down);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                down.release();
            }
        });
        return down;
    }

    /** {@code /p?q} of a request target in origin or absolute form ({@code http://host/p?q}); {@code *} as it is. */
    static String originForm(String uri) {
        int scheme = uri.indexOf("://");
        if (uri.startsWith("/") || scheme < 0) {
            return uri;
        }
        int path = uri.indexOf('/', scheme + 3);
        int query = uri.indexOf('?', scheme + 3);
        if (path < 0 || query >= 0 && query < path) {
            return "/" + (query < 0 ? "" : uri.substring(query));
        }
        return uri.substring(path);
    }

    private static String clientAddress(Message in) {
        Object address = in.getHeader(NettyConstants.NETTY_REMOTE_ADDRESS);
        return address instanceof InetSocketAddress socket && socket.getAddress() != null
                ? socket.getAddress().getHostAddress() : null;
    }

    /** What its {@link ClientChannel} knows it by. */
    Object key() {
        return key;
    }

    @Override
    public EventLoop eventLoop() {
        return out.channel().eventLoop();
    }

    @Override
    public Channel channel() {
        return out.channel();
    }

    @Override
    public HttpMethod method() {
        return method;
    }

    @Override
    public String target() {
        return target;
    }

    @Override
    public HttpHeaders forwardHeaders() {
        return forwardHeaders;
    }

    @Override
    public ByteBuf body() {
        return body.retainedDuplicate();
    }

    @Override
    public BodyRest bodyRest() {
        return rest;
    }

    /**
     * The request body to read, not to send (e.g. for a balancer's key): a view sharing the body's
     * bytes with indices of its own, not retained (valid until {@link #release}); only the held
     * prefix when a {@link #bodyRest()} follows.
     */
    public ByteBuf bodyView() {
        return body.duplicate();
    }

    @Override
    public boolean headSent() {
        return headSent;
    }

    @Override
    public boolean clientGone() {
        return !out.channel().isActive();
    }

    /** Whether {@link #release()} ran: the exchange is done and its body released. Event loop. */
    @Override
    public boolean released() {
        return released;
    }

    /** Whether the answer ended: sent whole, or cut. */
    boolean ended() {
        return ended;
    }

    @Override
    public void onClientClose(Runnable hook) {
        if (hook == null) {
            onClientClose.clear();
        } else {
            onClientClose.add(hook);
        }
    }

    @Override
    public void sendHead(HttpResponse agent, boolean bodyless) {
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
        Hops.addEndToEnd(agent.headers(), head.headers());
        head.headers().set(HttpHeaderNames.CONNECTION, keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
        headSent = true;
        if (length == null && !bodyless) {
            // A stream's head goes at once: its first part may come much later (an idle SSE stream).
            out.writeAndFlush(head);
        } else {
            out.write(head);
        }
    }

    @Override
    public ChannelFuture sendContent(ByteBuf content) {
        return out.writeAndFlush(new DefaultHttpContent(content));
    }

    @Override
    public void end(ByteBuf content) {
        ended = true;
        onClientClose.clear();
        ChannelFuture f = out.writeAndFlush(new DefaultLastHttpContent(content));
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void abort() {
        ended = true;
        onClientClose.clear();
        out.flush(); // what was written goes out first (a head with no part yet), so the client sees the answer cut
        out.channel().close();
    }

    @Override
    public Object answeredBody() {
        return answered;
    }

    /**
     * A whole answer (a busy answer held back, whose headers the {@code agent:} endpoint kept
     * end-to-end only; an error) with this status, these headers (each value's {@code toString()},
     * each element of an {@code Iterable} value as a header line of its own; the caller's
     * {@code Connection: close} closes the connection after it) and body; nothing when
     * the client left, the answer is cut when its head already went out.
     */
    public void reply(int status, Map<String, ?> headers, ByteBuf content) {
        if (headSent || ended || clientGone()) {
            ReferenceCountUtil.release(content);
            if (headSent && !ended) {
                abort();
            }
            ended = true;
            return;
        }
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
        headers.forEach((name, value) -> {
            if (HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(name) && value != null
                    && HttpHeaderValues.CLOSE.contentEqualsIgnoreCase(value.toString())) {
                keepAlive = false; // the caller's word: the connection ends with this answer
            }
            if (value instanceof Iterable<?> values) {
                values.forEach(each -> head.headers().add(name, String.valueOf(each)));
            } else if (value != null) {
                head.headers().set(name, value.toString());
            }
        });
        head.headers().set(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        sendHead(head, false);
        end(content);
    }

    /** Releases the body and forgets the client's connection; once, when the exchange is done. Any thread. */
    public void release() {
        if (!out.executor().inEventLoop()) {
            out.executor().execute(this::release);
            return;
        }
        if (released) {
            return;
        }
        released = true;
        onClientClose.clear();
        client.closed(this);
        ReferenceCountUtil.release(body);
        if (rest != null) {
            rest.discard();
        }
    }

    /**
     * The client closed its connection: the open call, if any, is told; an exchange still waiting in
     * its balancer's queue ({@link QueuedExchange}) leaves it at once, and no agent gets its request.
     */
    void clientClosed() {
        List<Runnable> hooks = List.copyOf(onClientClose);
        onClientClose.clear();
        if (!hooks.isEmpty() && !ended) {
            hooks.forEach(Runnable::run);
            return;
        }
        QueuedExchange queued = exchange == null ? null : exchange.getProperty(AgentLb.QUEUED_PROPERTY, QueuedExchange.class);
        if (queued != null) {
            queued.leave();
        }
    }

    @Override
    public String toString() {
        return "NettyDownstream[" + method + " " + target + " on " + out.channel() + "]";
    }
}
