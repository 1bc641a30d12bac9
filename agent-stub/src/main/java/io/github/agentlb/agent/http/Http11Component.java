package io.github.agentlb.agent.http;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.CamelContext;
import org.apache.camel.component.netty.http.HttpServerBootstrapFactory;
import org.apache.camel.component.netty.http.NettyHttpComponent;
import org.apache.camel.component.netty.http.NettyHttpConfiguration;
import org.apache.camel.component.netty.http.NettyHttpConsumer;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.camel.util.concurrent.ThreadHelper;

/**
 * camel-netty-http whose servers use {@link Http11ServerInitializer}: Netty's
 * {@code HttpServerCodec} (a HEAD answer has no body) and one request at a time per connection
 * (pipelined requests are answered in order). Producers are camel-netty-http's own.
 *
 * <p>netty-http builds every consumer's pipeline with its own {@code HttpServerInitializerFactory}
 * and ignores the {@code serverInitializerFactory} option, so the pipeline is replaced where the
 * component creates its servers. Register it under {@link #SCHEME} (see {@link #register}); SSL
 * is not supported.
 *
 * <p>Its servers' event loops, unless an endpoint names its own {@code workerGroup}, are one group
 * per component whose threads are Netty's {@link FastThreadLocalThread}s (named as Camel names its
 * worker threads): Camel's own worker pool makes plain threads, on which every per-thread lookup of
 * Netty's buffer pool, recyclers and codecs goes through a JDK {@code ThreadLocal} (about 3% of a
 * proxied request's CPU in a profile, benchmarks/README.md). The group has the first endpoint's
 * {@code workerCount} (0: Netty's default, twice the cores) and stops with the component.
 */
public class Http11Component extends NettyHttpComponent {

    /** The scheme the agent and the demo proxy register this component under. */
    public static final String SCHEME = "agentlb-http";

    /**
     * Default time for a request's head and body to arrive once begun, ms: nginx's
     * {@code client_header_timeout}; also the longest a new connection may send no byte before it
     * is closed (one kept alive after an answer: 75 s, {@link RequestReadTimeout}).
     */
    public static final long DEFAULT_REQUEST_READ_TIMEOUT_MS = 60_000;

    /**
     * Default bytes of a request body held before the request is handed on while the rest still
     * arrives ({@link #Http11Component(long, int)}): 64 KiB, the first turns of a chat request.
     */
    public static final int DEFAULT_HELD_BODY_BYTES = 64 * 1024;

    /** camel-netty's names for its worker threads ({@code NettyWorkerPoolBuilder}). */
    private static final String CAMEL_WORKER_NAMES = "Camel Thread ##counter# - #name#";

    private final Map<String, HttpServerBootstrapFactory> servers = new ConcurrentHashMap<>();
    /** The servers' event loops, made with the first server; null until then. Guarded by this. */
    private EventLoopGroup workers;
    /** The endpoints' configurations given {@link #workers}, given none again when it stops. Guarded by this. */
    private final List<NettyHttpConfiguration> givenWorkers = new ArrayList<>();
    /** How long stopping waits for the event loops, ms: the first endpoint's {@code shutdownTimeout}. */
    private int shutdownTimeoutMs;
    private final long requestReadTimeoutMs;
    private final HeldBodies heldBodies;
    private final Refusals refusals = new Refusals();

    /**
     * A component whose servers give a request {@code requestReadTimeoutMs} (ms) to arrive (then
     * 408), and close a new connection that sends no byte for as long, and one kept alive after
     * an answer after 75 s (without an answer, as nginx).
     */
    public Http11Component(long requestReadTimeoutMs) {
        this(requestReadTimeoutMs, 0);
    }

    /**
     * A component whose servers give a request {@code requestReadTimeoutMs} to arrive (then 408)
     * and, when {@code heldBodyBytes > 0}, hand on a request whose body (announced by
     * {@code Content-Length}, within {@code chunkedMaxContentLength}) is longer than that once its
     * first {@code heldBodyBytes} have arrived: a {@link StreamedBody.Prefix} whose
     * {@link StreamedBody} brings the rest as it comes. 0: every body is gathered whole.
     *
     * @throws IllegalArgumentException if {@code requestReadTimeoutMs < 1} or {@code heldBodyBytes < 0}
     */
    public Http11Component(long requestReadTimeoutMs, int heldBodyBytes) {
        this(requestReadTimeoutMs, held(heldBodyBytes));
    }

    /**
     * As {@link #Http11Component(long, int)}, holding more of a body while {@code held} says what is
     * held is not enough ({@link HeldBodies}).
     *
     * @throws IllegalArgumentException if {@code requestReadTimeoutMs < 1}
     */
    public Http11Component(long requestReadTimeoutMs, HeldBodies held) {
        if (requestReadTimeoutMs < 1) {
            throw new IllegalArgumentException("requestReadTimeoutMs must be >= 1, was " + requestReadTimeoutMs);
        }
        this.requestReadTimeoutMs = requestReadTimeoutMs;
        this.heldBodies = Objects.requireNonNull(held, "held");
    }

    private static HeldBodies held(int heldBodyBytes) {
        if (heldBodyBytes < 0) {
            throw new IllegalArgumentException("heldBodyBytes must be >= 0, was " + heldBodyBytes);
        }
        return HeldBodies.of(heldBodyBytes);
    }

    /** A component with the default request read timeout. */
    public Http11Component() {
        this(DEFAULT_REQUEST_READ_TIMEOUT_MS);
    }

    /** Adds an {@code Http11Component} as {@value #SCHEME} to {@code context} unless one is there. */
    public static void register(CamelContext context) {
        register(context, DEFAULT_REQUEST_READ_TIMEOUT_MS);
    }

    /** As {@link #register(CamelContext)}, with a request read timeout, ms. */
    public static void register(CamelContext context, long requestReadTimeoutMs) {
        register(context, requestReadTimeoutMs, 0);
    }

    /** As {@link #register(CamelContext)}, with a request read timeout, ms, and the body bytes held ({@link #Http11Component(long, int)}). */
    public static void register(CamelContext context, long requestReadTimeoutMs, int heldBodyBytes) {
        register(context, requestReadTimeoutMs, held(heldBodyBytes));
    }

    /** As {@link #register(CamelContext)}, with a request read timeout, ms, and what of a body is held ({@link HeldBodies}). */
    public static void register(CamelContext context, long requestReadTimeoutMs, HeldBodies held) {
        if (context.hasComponent(SCHEME) == null) {
            context.addComponent(SCHEME, new Http11Component(requestReadTimeoutMs, held));
        }
    }

    /** @return the requests this component's servers answered themselves, by status, since it was made */
    public Refusals refusals() {
        return refusals;
    }

    @Override
    protected HttpServerBootstrapFactory getOrCreateHttpNettyServerBootstrapFactory(NettyHttpConsumer consumer) {
        return servers.computeIfAbsent(consumer.getConfiguration().getAddress(), address -> {
            NettyHttpConfiguration configuration = consumer.getConfiguration();
            if (configuration.getWorkerGroup() == null && !configuration.isNativeTransport()) {
                configuration.setWorkerGroup(workers(configuration));
            }
            HttpServerBootstrapFactory server =
                    new HttpServerBootstrapFactory(getMultiplexChannelHandler(consumer.getConfiguration().getPort()));
            server.init(getCamelContext(), consumer.getConfiguration(),
                    new Http11ServerInitializer(consumer, requestReadTimeoutMs, heldBodies, refusals));
            return server;
        });
    }

    private synchronized EventLoopGroup workers(NettyHttpConfiguration configuration) {
        givenWorkers.add(configuration);
        if (workers == null) {
            shutdownTimeoutMs = configuration.getShutdownTimeout();
            workers = new NioEventLoopGroup(configuration.getWorkerCount(), (Runnable task) ->
                    new FastThreadLocalThread(task, ThreadHelper.resolveThreadName(CAMEL_WORKER_NAMES, "NettyServerTCPWorker")));
        }
        return workers;
    }

    @Override
    protected void doStop() throws Exception {
        super.doStop();
        ServiceHelper.stopService(servers.values());
        servers.clear();
        EventLoopGroup stopped;
        synchronized (this) {
            stopped = workers;
            workers = null;
            // A restarted component makes its servers and their event loops again.
            givenWorkers.forEach(configuration -> configuration.setWorkerGroup(null));
            givenWorkers.clear();
        }
        if (stopped != null) {
            // As camel-netty stops the worker pool it made: Netty's graceful shutdown, bounded.
            stopped.shutdownGracefully().awaitUninterruptibly(shutdownTimeoutMs);
        }
    }
}
