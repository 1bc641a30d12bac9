package io.github.agentlb.demo;

import io.github.agentlb.camel.AgentCallCancelledException;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.AnswerInterruptedException;
import io.github.agentlb.camel.AnswerRules;
import io.github.agentlb.camel.AnswerTimeoutException;
import io.github.agentlb.core.orca.LoadReports;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.spi.IdAware;
import org.apache.camel.support.AsyncProcessorSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent as a child of the proxy's {@code loadBalance()}: sends the client's request (method,
 * target, end-to-end headers, body) to the agent and pipes the answer into the client's connection
 * as it arrives, head first, then each chunk, with backpressure: while the client's connection
 * cannot take more, the agent's connection is not read, so a proxied answer of any size holds at
 * most a few socket buffers of memory. The balancer's callback runs when the answer has ended, so
 * its in-flight count, attempt time and load report cover the whole stream.
 *
 * <h2>How an attempt ends</h2>
 * <ul>
 *   <li>The answer's last byte went to the client: success (whatever the status).</li>
 *   <li>Before anything went to the client: connect refused or timed out (fails over), no answer
 *       head within {@link AgentTimeouts#firstByteMs()} ({@link AnswerTimeoutException}), the
 *       connection closed or an answer that is not HTTP (fails over for idempotent methods). The
 *       proxy's route answers 502/503 when no agent is left.</li>
 *   <li>After the head went to the client: the agent closed, went quiet for
 *       {@link AgentTimeouts#idleMs()}, or the total timeout ran out: the client's connection is
 *       closed without the terminating chunk, so it sees the answer incomplete
 *       ({@link AnswerInterruptedException}, never retried).</li>
 *   <li>The client closed its connection: the agent's connection is closed at once, so the agent
 *       sees its caller leave, and the attempt ends {@link AgentCallCancelledException cancelled}.</li>
 * </ul>
 *
 * <h2>Busy answers</h2>
 * A 429, or a 503 with {@code Retry-After}, says the agent is busy: another agent may take the
 * call. Such an answer (up to {@value #MAX_HELD_BYTES} bytes) is held back rather than streamed: it
 * is left on the exchange as a {@link HeldAnswer} body with its status and {@code Retry-After} as
 * headers, so a balancer that fails over on busy answers can still do so; {@link ProxyRoutes}
 * writes it when it is the last answer.
 *
 * <h2>Threads and connections</h2>
 * No thread is held per call. The agent connection runs on the client connection's event loop, so
 * both ends of a call are touched by one thread, in order. Idle keep-alive connections are kept
 * per event loop ({@value #MAX_IDLE_PER_LOOP} at most per agent and loop).
 *
 * <p>Create one per agent with {@link #create}; thread-safe. Requires a request accepted by
 * {@link ProxyRoutes} (a {@link Downstream} on the exchange).
 *
 * <p>Over 300 lines: one call's steps (connect or take a pooled connection, send, retry once on a
 * stale one, head, chunks, timeouts, cancel, a busy answer held back, the session id and load-report
 * headers the balancer set on the attempt) share the call's fields on one event loop; split, each
 * piece would pass them all around.
 */
public final class AgentChild extends AsyncProcessorSupport implements IdAware {

    /** Idle keep-alive connections kept per agent and event loop. */
    static final int MAX_IDLE_PER_LOOP = 64;
    /** Largest busy answer held back; a larger one is streamed like any other. */
    static final int MAX_HELD_BYTES = 64 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(AgentChild.class);
    private static final Set<HttpMethod> WITH_BODY = Set.of(HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH);
    /** RFC 9110 9.2.2's idempotent methods. */
    private static final Set<HttpMethod> IDEMPOTENT = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS,
            HttpMethod.TRACE, HttpMethod.PUT, HttpMethod.DELETE);

    private final String name;
    private final String host;
    private final int port;
    private final String authority;
    private final AgentTimeouts timeouts;
    /** The balancer's answer rules: what is busy, so held back (see the class comment). */
    private final Supplier<AnswerRules> rules;
    /** The balancer whose learned sessions this child seals and restores, or null. */
    private final AgentLoadBalancerSupport balancer;
    private final FastThreadLocal<ArrayDeque<Channel>> idle = new FastThreadLocal<>() {
        @Override
        protected ArrayDeque<Channel> initialValue() {
            return new ArrayDeque<>();
        }
    };

    private AgentChild(String name, URI baseUrl, AgentTimeouts timeouts, Supplier<AnswerRules> rules,
            AgentLoadBalancerSupport balancer) {
        this.rules = rules;
        this.balancer = balancer;
        this.name = name;
        this.host = baseUrl.getHost();
        this.port = baseUrl.getPort();
        this.authority = baseUrl.getRawAuthority();
        this.timeouts = timeouts;
    }

    /**
     * A child for one agent, usable in a route ({@code .loadBalance(lb).process(child)}) or added
     * to a balancer at run time.
     *
     * @param name     the agent's id in the balancer (its name, or its base URL)
     * @param baseUrl  {@code http://host:port}, no path
     * @param timeouts connect, first byte, idle and total timeouts
     * @throws IllegalArgumentException naming the value when the URL is not {@code http://host:port}
     */
    public static AgentChild create(String name, URI baseUrl, AgentTimeouts timeouts) {
        return create(name, baseUrl, timeouts, () -> AnswerRules.DEFAULT);
    }

    /**
     * A child as {@link #create(String, URI, AgentTimeouts)} that holds back the answers its
     * balancer's rules call busy ({@link AnswerRules#isBusy}), e.g. {@code balancer::getAnswerRules}.
     */
    public static AgentChild create(String name, URI baseUrl, AgentTimeouts timeouts, Supplier<AnswerRules> rules) {
        return create(name, baseUrl, timeouts, rules, null);
    }

    /**
     * A child of {@code balancer} as {@link #create(String, URI, AgentTimeouts, Supplier)} with its
     * answer rules, that also takes part in its learned sessions
     * ({@link AgentLoadBalancerSupport#setLearnedSessions}): the agent gets the session id the
     * balancer restored (or none, for a new pick), and a session id in the agent's answer head is
     * sealed before the head goes to the client, since the head is streamed before the balancer
     * sees the answer.
     */
    public static AgentChild create(String name, URI baseUrl, AgentTimeouts timeouts, AgentLoadBalancerSupport balancer) {
        return create(name, baseUrl, timeouts, balancer::getAnswerRules, Objects.requireNonNull(balancer, "balancer"));
    }

    private static AgentChild create(String name, URI baseUrl, AgentTimeouts timeouts, Supplier<AnswerRules> rules,
            AgentLoadBalancerSupport balancer) {
        Objects.requireNonNull(timeouts, "timeouts");
        Objects.requireNonNull(rules, "rules");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("agent name must not be blank, was '" + name + "'");
        }
        if (baseUrl == null || !"http".equalsIgnoreCase(baseUrl.getScheme()) || baseUrl.getHost() == null
                || baseUrl.getPort() < 1 || !(baseUrl.getRawPath() == null || baseUrl.getRawPath().isEmpty())
                || baseUrl.getRawQuery() != null) {
            throw new IllegalArgumentException("agent URL must look like http://host:port, was '" + baseUrl + "'");
        }
        return new AgentChild(name, baseUrl, timeouts, rules, balancer);
    }

    /** The agent's id in the balancer. */
    @Override
    public String getId() {
        return name;
    }

    /** The id is the agent's: Camel's node ids are ignored. */
    @Override
    public void setId(String id) {
    }

    /** {@code host:port} of the agent. */
    public String authority() {
        return authority;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        Downstream down = exchange.getProperty(Downstream.PROPERTY, Downstream.class);
        if (down == null) {
            exchange.setException(new IllegalStateException("agent " + name + ": not a request accepted by the proxy"));
            callback.done(true);
            return true;
        }
        if (balancer == null) {
            // Camel's own balancers (the camel-rr baseline) do not say which child they chose; ours set it.
            exchange.setProperty(io.github.agentlb.camel.AgentLb.AGENT_PROPERTY, name);
        }
        Call call = new Call(exchange, callback, down);
        EventLoop loop = down.eventLoop();
        if (loop.inEventLoop()) {
            call.start();
        } else {
            loop.execute(call::start);
        }
        return false;
    }

    @Override
    protected void doStop() {
        // Idle connections are closed by their event loops' owners when the server shuts down.
    }

    @Override
    public String toString() {
        return "AgentChild[" + name + " http://" + authority + "]";
    }

    /** One attempt: request out, answer piped back; every method runs on the client's event loop. */
    private final class Call extends ChannelInboundHandlerAdapter {
        private final Exchange exchange;
        private final AsyncCallback callback;
        private final Downstream down;
        private Channel agent;
        private boolean done;
        private boolean bodyless;
        private long lastReadNanos;
        private long bytes;
        /** Whether the connection came from the idle pool, and the request has not been sent again. */
        private boolean reused;
        /** Whether the request was written to the connection whole. */
        private boolean written;
        private ScheduledFuture<?> firstByteTimer;
        private ScheduledFuture<?> idleTimer;
        private ScheduledFuture<?> totalTimer;

        Call(Exchange exchange, AsyncCallback callback, Downstream down) {
            this.exchange = exchange;
            this.callback = callback;
            this.down = down;
        }

        void start() {
            if (down.clientGone()) {
                finish(new AgentCallCancelledException("the client left before agent " + name + " was called"), false);
                return;
            }
            down.onClientClose(() -> finish(new AgentCallCancelledException(
                    "the client closed its connection: call to agent " + name + " cancelled"), false));
            ArrayDeque<Channel> pool = idle.get();
            for (Channel pooled; (pooled = pool.pollLast()) != null; ) {
                if (pooled.isActive()) {
                    reused = true;
                    attach(pooled);
                    send();
                    return;
                }
            }
            connect();
        }

        /**
         * A failure on a connection taken from the pool, before any byte of the answer: the agent
         * may have closed it as idle while the request was on its way. Sent again once on a new
         * connection to the same agent when that is safe (Go's {@code net/http} rule): the request
         * was not written whole, or its method is idempotent (RFC 9110 9.2.2) or it carries an
         * {@code Idempotency-Key}. Not counted against the agent.
         *
         * @return whether the request is being sent again
         */
        private boolean retriedOnNewConnection(Throwable failure) {
            if (!reused || done || lastHead != null || down.headSent() || down.clientGone()) {
                return false;
            }
            boolean idempotent = IDEMPOTENT.contains(down.method())
                    || down.forwardHeaders().contains("Idempotency-Key");
            if (written && !idempotent) {
                return false;
            }
            LOG.debug("agent {}: pooled connection failed before an answer ({}), sending again on a new one", name,
                    failure.toString());
            reused = false;
            written = false;
            cancel(firstByteTimer);
            cancel(totalTimer);
            Channel stale = agent;
            Connection connection = stale.pipeline().get(Connection.class);
            if (connection != null) {
                connection.call = null;
            }
            stale.close();
            connect();
            return true;
        }

        private void connect() {
            Bootstrap bootstrap = new Bootstrap().group(down.eventLoop()).channel(down.channel().getClass())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeouts.connectMs())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast("codec", new HttpClientCodec());
                            ch.pipeline().addLast("call", new Connection());
                        }
                    });
            ChannelFuture connect = bootstrap.connect(host, port);
            agent = connect.channel();
            connect.addListener(f -> {
                if (!f.isSuccess()) {
                    finish(f.cause(), false);
                } else if (!done) {
                    attach(connect.channel());
                    send();
                } else {
                    connect.channel().close();
                }
            });
        }

        private void attach(Channel channel) {
            agent = channel;
            channel.pipeline().get(Connection.class).call = this;
            channel.config().setAutoRead(true);
        }

        private void send() {
            ByteBuf body = down.body();
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, down.method(), down.target(), body);
            request.headers().set(down.forwardHeaders());
            // The balancer asks for ORCA load reports on the attempt (or not): the client cannot ask.
            request.headers().remove(LoadReports.FORMAT_HEADER);
            String ask = exchange.getIn().getHeader(LoadReports.FORMAT_HEADER, String.class);
            if (ask != null) {
                request.headers().set(LoadReports.FORMAT_HEADER, ask);
            }
            String sessionHeader = balancer == null ? null : balancer.getSessionHeader();
            if (sessionHeader != null) {
                // The balancer restored the agent's own session id on this attempt, or took it off.
                String restored = exchange.getIn().getHeader(sessionHeader, String.class);
                if (restored == null) {
                    request.headers().remove(sessionHeader);
                } else {
                    request.headers().set(sessionHeader, restored);
                }
            }
            request.headers().set(HttpHeaderNames.HOST, authority);
            request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            if (body.isReadable() || WITH_BODY.contains(down.method())) {
                request.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
            }
            bodyless = HttpMethod.HEAD.equals(down.method());
            lastReadNanos = System.nanoTime();
            firstByteTimer = schedule(timeouts.firstByteMs(), () -> finish(new AnswerTimeoutException(
                    "agent " + name + " sent no answer within " + timeouts.firstByteMs() + " ms"), false));
            if (timeouts.totalMs() > 0) {
                totalTimer = schedule(timeouts.totalMs(), () -> finish(new AnswerTimeoutException(
                        "agent " + name + " did not finish its answer within " + timeouts.totalMs() + " ms"), false));
            }
            Channel target = agent;
            agent.writeAndFlush(request).addListener(f -> {
                if (target != agent) {
                    return; // a write on a connection given up for a new one
                }
                if (f.isSuccess()) {
                    written = true;
                } else if (!retriedOnNewConnection(f.cause())) {
                    finish(f.cause(), false);
                }
            });
        }

        private ScheduledFuture<?> schedule(long ms, Runnable task) {
            return down.eventLoop().schedule(task, ms, TimeUnit.MILLISECONDS);
        }

        void read(Object msg) {
            if (done) {
                ReferenceCountUtil.release(msg);
                return;
            }
            lastReadNanos = System.nanoTime();
            HttpObject object = (HttpObject) msg;
            if (object.decoderResult().isFailure()) {
                ReferenceCountUtil.release(msg);
                finish(new DecoderException("agent " + name + " answered something that is not HTTP",
                        object.decoderResult().cause()), false);
                return;
            }
            if (msg instanceof HttpResponse head) {
                int status = head.status().code();
                if (status < 200 && status != 101) {
                    // An interim answer (100 Continue, 103 Early Hints): the final one follows.
                    return;
                }
                answerHead(head);
            }
            if (msg instanceof HttpContent content && held != null) {
                hold(content);
                return;
            }
            if (msg instanceof HttpContent content) {
                if (!down.headSent()) {
                    content.release();
                    return;
                }
                bytes += content.content().readableBytes();
                if (msg instanceof LastHttpContent) {
                    down.end(content.content());
                    finish(null, HttpUtil.isKeepAlive(lastHead));
                } else if (content.content().isReadable()) {
                    ChannelFuture written = down.sendContent(content.content());
                    if (!down.channel().isWritable()) {
                        // Backpressure: pause reading the agent until the client has taken this part.
                        agent.config().setAutoRead(false);
                        written.addListener(f -> {
                            if (!done) {
                                agent.config().setAutoRead(true);
                            }
                        });
                    }
                } else {
                    content.release();
                }
            }
        }

        private HttpResponse lastHead;
        private io.netty.buffer.CompositeByteBuf held;

        private void answerHead(HttpResponse head) {
            cancel(firstByteTimer);
            lastHead = head;
            String sessionHeader = balancer == null ? null : balancer.getSessionHeader();
            String minted = sessionHeader == null ? null : head.headers().get(sessionHeader);
            if (minted != null) {
                head.headers().set(sessionHeader, balancer.sessionIdForClient(name, minted));
            }
            int status = head.status().code();
            exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
            for (var header : head.headers()) {
                String name = header.getKey().toLowerCase(Locale.ROOT);
                if (name.startsWith(Downstream.AGENT_REPORT_PREFIX) || name.equals(LoadReports.HEADER)) {
                    exchange.getMessage().setHeader(header.getKey(), header.getValue());
                }
            }
            if (down.clientGone()) {
                return;
            }
            String retryAfter = head.headers().get(HttpHeaderNames.RETRY_AFTER);
            if (rules.get().isBusy(status, retryAfter)) {
                if (retryAfter != null) {
                    exchange.getMessage().setHeader("Retry-After", retryAfter);
                }
                held = agent.alloc().compositeBuffer();
                idleTimer = schedule(timeouts.idleMs(), this::checkIdle);
                return;
            }
            int code = head.status().code();
            down.sendHead(head, bodyless || code == 204 || code == 304);
            idleTimer = schedule(timeouts.idleMs(), this::checkIdle);
        }

        /** Gathers a busy answer; one that grows past the limit is streamed after all. */
        private void hold(HttpContent content) {
            held.addComponent(true, content.content().retain());
            content.release();
            boolean last = content instanceof LastHttpContent;
            if (last) {
                byte[] body = new byte[held.readableBytes()];
                held.readBytes(body);
                held.release();
                held = null;
                exchange.getMessage().setBody(new HeldAnswer(lastHead, body));
                finish(null, HttpUtil.isKeepAlive(lastHead));
            } else if (held.readableBytes() > MAX_HELD_BYTES) {
                io.netty.buffer.ByteBuf gathered = held;
                held = null;
                exchange.getMessage().removeHeader("Retry-After");
                down.sendHead(lastHead, false);
                down.sendContent(gathered);
            }
        }

        private void checkIdle() {
            if (done) {
                return;
            }
            long quietMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastReadNanos);
            if (quietMs >= timeouts.idleMs()) {
                finish(new java.util.concurrent.TimeoutException("agent " + name + " sent nothing for "
                        + timeouts.idleMs() + " ms"), false);
            } else {
                idleTimer = schedule(timeouts.idleMs() - quietMs, this::checkIdle);
            }
        }

        void closed() {
            if (!done && !retriedOnNewConnection(new ClosedChannelException())) {
                finish(new ClosedChannelException(), false);
            }
        }

        void failed(Throwable cause) {
            if (!done && !retriedOnNewConnection(cause)) {
                finish(cause, false);
            }
        }

        /**
         * Ends the attempt once: the connection back to the pool or closed, the client's answer
         * cut when it had begun, the outcome on the exchange, then the balancer's callback.
         */
        private void finish(Throwable failure, boolean reuse) {
            if (done) {
                return;
            }
            done = true;
            if (held != null) {
                held.release();
                held = null;
            }
            cancel(firstByteTimer);
            cancel(idleTimer);
            cancel(totalTimer);
            Channel channel = agent;
            if (channel != null) {
                Connection connection = channel.pipeline().get(Connection.class);
                if (connection != null) {
                    connection.call = null;
                }
                ArrayDeque<Channel> pool = idle.get();
                if (failure == null && reuse && channel.isActive() && pool.size() < MAX_IDLE_PER_LOOP) {
                    pool.addLast(channel);
                } else {
                    channel.close();
                }
            }
            Exception outcome = null;
            if (failure instanceof AgentCallCancelledException cancelled) {
                outcome = cancelled;
                LOG.debug("{}", cancelled.getMessage());
            } else if (failure != null && down.headSent()) {
                outcome = new AnswerInterruptedException("agent " + name + " failed after " + bytes
                        + " bytes of its answer had gone to the client", failure);
                down.abort();
            } else if (failure != null) {
                outcome = failure instanceof Exception e ? e : new IllegalStateException(failure);
            }
            if (outcome == null) {
                down.onClientClose(null);
            }
            exchange.setException(outcome);
            callback.done(false);
        }

        private void cancel(ScheduledFuture<?> timer) {
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }

    /** The handler of one agent connection: hands its events to the call it serves, if any. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        Call call;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (call != null) {
                call.read(msg);
            } else {
                // An answer nobody asked for: the connection cannot be trusted any more.
                ReferenceCountUtil.release(msg);
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            idle.get().remove(ctx.channel());
            if (call != null) {
                call.closed();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (call != null) {
                call.failed(cause);
            }
            ctx.close();
        }
    }

    /**
     * A busy answer held back (see the class comment): the agent's head and its whole body, for
     * {@link ProxyRoutes} to write when the balancer ends with it.
     *
     * @param head the agent's status and headers
     * @param body the whole body
     */
    public record HeldAnswer(HttpResponse head, byte[] body) {
    }
}
