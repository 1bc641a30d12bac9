package io.github.agentlb.camel.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connections to one agent: opened on the event loop of the client connection they serve, and
 * kept alive between calls in a pool per event loop (at most the endpoint's {@code poolSize}, each
 * closed once idle for its {@code poolIdleTimeout}: {@link IdleConnections}), so a call and its
 * agent connection always share one thread. A connection serves one call at a time;
 * a byte nobody asked for closes it ({@link AgentCodec}): one past the end of an answer, or one
 * that comes while the connection is idle. An idle connection is read, so such a byte, or the
 * agent's closing it, is seen at once.
 *
 * <p>Thread-safe: each event loop touches only its own pool.
 */
final class AgentPool {

    private final AgentEndpoint endpoint;
    private final FastThreadLocal<IdleConnections> idle = new FastThreadLocal<>();
    /** The pool of each event loop that has one, to close their idle connections from any thread. */
    private final Set<IdleConnections> pools = ConcurrentHashMap.newKeySet();
    /** Every open connection, to close them when the endpoint stops. */
    private final Set<Channel> open = ConcurrentHashMap.newKeySet();

    AgentPool(AgentEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** An idle connection of the calling event loop that is still open, taken for {@code call}, or null. */
    Channel take(AgentCall call) {
        IdleConnections pool = idle.getIfExists();
        Channel pooled = pool == null ? null : pool.take();
        if (pooled != null) {
            attach(pooled, call);
        }
        return pooled;
    }

    /** The pool of {@code loop}, the calling thread's. */
    private IdleConnections poolOf(EventLoop loop) {
        IdleConnections pool = idle.getIfExists();
        if (pool == null) {
            pool = new IdleConnections(loop, System::nanoTime, endpoint.getPoolSize(), endpoint.getPoolIdleTimeout().toNanos());
            idle.set(pool);
            pools.add(pool);
        }
        return pool;
    }

    /** Opens a connection for {@code call} on its client connection's event loop; {@code call} is told when it is up. */
    ChannelFuture connect(AgentCall call, Downstream down) {
        Bootstrap bootstrap = new Bootstrap().group(down.eventLoop()).channel(down.channel().getClass())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, endpoint.timeouts().connectMs())
                .option(ChannelOption.TCP_NODELAY, true)
                // A failed write leaves the connection open for reading: an agent that answered before it
                // read the whole request (a 413, then a close) has its answer read, not lost (AgentCall).
                .option(ChannelOption.AUTO_CLOSE, false)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("codec", new AgentCodec(endpoint.getAddress()));
                        ch.pipeline().addLast("call", new Connection());
                    }
                });
        ChannelFuture connect = bootstrap.connect(endpoint.host(), endpoint.port());
        Channel channel = connect.channel();
        open.add(channel);
        channel.closeFuture().addListener(f -> open.remove(channel));
        return connect;
    }

    /** Hands a connection to {@code call} (null: to none) and reads from it. */
    static void attach(Channel channel, AgentCall call) {
        Connection connection = channel.pipeline().get(Connection.class);
        if (connection != null) {
            connection.call = call;
        }
        if (call != null) {
            channel.config().setAutoRead(true);
        }
    }

    /** Takes a connection back after a call whose answer ended cleanly, or closes it. On its event loop. */
    void giveBack(Channel channel, boolean reusable) {
        attach(channel, null);
        if (reusable && channel.isActive() && endpoint.inUse() && poolOf(channel.eventLoop()).offer(channel)) {
            channel.config().setAutoRead(true); // an answer that ended while its client held it back
        } else {
            channel.close();
        }
    }

    /** Closes the idle connections of every event loop, each on its loop; connections in a call stay. Any thread. */
    void closeIdle() {
        pools.forEach(IdleConnections::closeIdle);
    }

    /**
     * Closes every connection; for the endpoint's stop. A call still in flight on one ends cancelled
     * (the proxy cut it, not its agent: nothing counted against the agent, no failover).
     */
    void closeAll() {
        closeIdle();
        open.forEach(Channel::close);
    }

    /** The CamelContext began to stop: each call in flight is told ({@link AgentCall#contextStopping}), on its event loop. Any thread. */
    void contextStopping() {
        for (Channel channel : open) {
            channel.eventLoop().execute(() -> {
                Connection connection = channel.pipeline().get(Connection.class);
                if (connection != null && connection.call != null) {
                    connection.call.contextStopping();
                }
            });
        }
    }

    /** The handler of one agent connection: hands its events to the call it serves, if any. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        AgentCall call;

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
            IdleConnections pool = idle.getIfExists();
            if (pool != null) {
                pool.remove(ctx.channel());
            }
            if (call != null) {
                // The endpoint's stop, or the shutdown of the event loop it shares with the consumer
                // (a CamelContext's shutdown timeout run out): the proxy cut the call, not the agent.
                if (endpoint.isStoppingOrStopped() || ctx.channel().eventLoop().isShuttingDown()) {
                    call.cut();
                } else {
                    call.closed();
                }
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
}
