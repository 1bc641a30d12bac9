package io.github.agentlb.agent;

import io.github.agentlb.agent.http.Http11Component;
import io.github.agentlb.agent.main.ServerPorts;
import io.github.agentlb.agent.llm.LlmModel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.component.netty.http.NettyHttpComponent;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * An embedded stub agent: its own {@link CamelContext} running {@link AgentRoutes} on one port.
 * Several may run side by side in one JVM.
 *
 * <pre>{@code
 * try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A2").port(0).build())) {
 *     URI uri = URI.create(agent.baseUrl() + "/process/r1?user_id=7");
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class StubAgent implements AutoCloseable {

    /** Seconds Camel waits for in-flight requests when closing. */
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 10;

    /** Ms that {@link #kill()} waits for the event loops to close every channel. */
    private static final long KILL_WAIT_MS = 5_000;

    private final CamelContext context;
    private final AgentRoutes routes;
    private final AgentConfig config;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;

    private StubAgent(CamelContext context, AgentRoutes routes, AgentConfig config, EventLoopGroup bossGroup,
                      EventLoopGroup workerGroup) {
        this.context = context;
        this.routes = routes;
        this.config = config;
        this.bossGroup = bossGroup;
        this.workerGroup = workerGroup;
    }

    /**
     * Starts an agent and returns once it is listening.
     *
     * @param config the agent's knobs; port 0 picks a free port on the host ({@link io.github.agentlb.agent.main.ServerPorts#findFreePort})
     * @return the running agent; {@link #config()} carries the actual port
     * @throws Exception if the CamelContext fails to start, e.g. the port is taken
     */
    public static StubAgent start(AgentConfig config) throws Exception {
        Objects.requireNonNull(config, "config");
        return ServerPorts.start(config.host(), config.port(), port -> {
            AgentConfig resolved = config.withPort(port);
            AgentRoutes routes = new AgentRoutes(resolved);
            DefaultCamelContext context = new DefaultCamelContext();
            context.getCamelContextExtension().setName("agent-" + resolved.agentId() + "-" + resolved.port());
            context.getShutdownStrategy().setTimeout(SHUTDOWN_TIMEOUT_SECONDS);
            // The agent's own event loops (the sizes netty-http would create), so that kill() can close
            // every channel at once.
            EventLoopGroup boss = new NioEventLoopGroup(1);
            EventLoopGroup worker = new NioEventLoopGroup();
            try {
                Http11Component.register(context);
                NettyHttpComponent http = context.getComponent(Http11Component.SCHEME, NettyHttpComponent.class);
                http.getConfiguration().setBossGroup(boss);
                http.getConfiguration().setWorkerGroup(worker);
                context.addRoutes(routes);
                context.start();
                return new StubAgent(context, routes, resolved, boss, worker);
            } catch (Exception e) {
                context.stop();
                boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
                worker.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
                throw e;
            }
        });
    }


    /** The port the agent listens on. */
    public int port() {
        return config.port();
    }

    /** The base URL, e.g. {@code http://127.0.0.1:54321}. */
    public String baseUrl() {
        return routes.baseUrl();
    }

    /** The configuration in use, with the actual port. */
    public AgentConfig config() {
        return config;
    }

    /** The chat completions service, for its counters (answers completed, callers that left). */
    public ChatCompletions chat() {
        return routes.chat();
    }

    /**
     * The chat completions' LLM server model, for its counters: cache hit rate, requests running,
     * waiting and refused, the largest queue. Thread-safe.
     */
    public LlmModel llm() {
        return routes.chat().model();
    }

    /** {@code /process} requests answered with 200 so far. */
    public long requestsServed() {
        return routes.service().requestsServed();
    }

    /** The agent's current load. */
    public LoadSnapshot load() {
        return routes.service().load();
    }

    /**
     * From now on answers every {@code GET} and {@code POST} on {@code /process/{req_id}} at once
     * with {@code status}, a JSON body {@code {"error":...,"detail":...}} and, unless null, the
     * {@code Retry-After} header: a rate-limited agent ({@code answerWith(429, "2")}) or one that
     * fails fast while accepting connections ({@code answerWith(500, null)}), until
     * {@link #answerNormally()}. Requests already in service are answered normally; so are
     * {@code /health} and {@code /v1/chat/completions}. Thread-safe.
     *
     * @param status     HTTP status from 400 to 599
     * @param retryAfter the {@code Retry-After} value as sent (delta-seconds or an HTTP-date), or null for none
     * @throws IllegalArgumentException naming the value when the status is out of range or
     *                                  {@code retryAfter} is blank or holds a control character
     * @see AgentRoutes#answerWith
     */
    public void answerWith(int status, String retryAfter) {
        routes.answerWith(status, retryAfter);
    }

    /** Ends {@link #answerWith}: {@code /process} requests are served again. Thread-safe; idempotent. */
    public void answerNormally() {
        routes.answerNormally();
    }

    /** The agent's CamelContext, e.g. to inspect its routes. */
    public CamelContext camelContext() {
        return context;
    }

    /**
     * Stops the agent as a crash would, for failure tests: the listening socket and every open
     * connection are closed at once, so new connections are refused and requests in service are
     * never answered (a graceful {@link #close()} would first answer 404 or 503 while its consumer
     * stops, which a balancer sees as the agent's answer). Then releases the rest as {@code close()}
     * does. Idempotent; the port can be bound again when it returns.
     */
    public void kill() {
        bossGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(KILL_WAIT_MS);
        workerGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(KILL_WAIT_MS);
        close();
    }

    /** Stops the CamelContext, waiting for in-flight requests, and releases the port. Idempotent. */
    @Override
    public void close() {
        context.stop();
        bossGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        workerGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public String toString() {
        return "StubAgent{" + config.agentId() + " at " + baseUrl() + "}";
    }
}
