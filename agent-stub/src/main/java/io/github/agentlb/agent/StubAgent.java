package io.github.agentlb.agent;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Objects;
import org.apache.camel.CamelContext;
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
    /** Attempts to bind an ephemeral port: another process may take the probed port first. */
    private static final int EPHEMERAL_BIND_ATTEMPTS = 3;

    private final CamelContext context;
    private final AgentRoutes routes;
    private final AgentConfig config;

    private StubAgent(CamelContext context, AgentRoutes routes, AgentConfig config) {
        this.context = context;
        this.routes = routes;
        this.config = config;
    }

    /**
     * Starts an agent and returns once it is listening.
     *
     * @param config the agent's knobs; port 0 picks a free ephemeral port on the host
     * @return the running agent; {@link #config()} carries the actual port
     * @throws Exception if the CamelContext fails to start, e.g. the port is taken
     */
    public static StubAgent start(AgentConfig config) throws Exception {
        Objects.requireNonNull(config, "config");
        int attempts = config.port() == 0 ? EPHEMERAL_BIND_ATTEMPTS : 1;
        for (int attempt = 1; ; attempt++) {
            AgentConfig resolved = config.port() == 0 ? config.withPort(findFreePort(config.host())) : config;
            AgentRoutes routes = new AgentRoutes(resolved);
            DefaultCamelContext context = new DefaultCamelContext();
            context.getCamelContextExtension().setName("agent-" + resolved.agentId() + "-" + resolved.port());
            context.getShutdownStrategy().setTimeout(SHUTDOWN_TIMEOUT_SECONDS);
            try {
                context.addRoutes(routes);
                context.start();
                return new StubAgent(context, routes, resolved);
            } catch (Exception e) {
                context.stop();
                if (attempt >= attempts || !causedByBindFailure(e)) {
                    throw e;
                }
            }
        }
    }

    /**
     * A port free on {@code host} at the time of the call, found by binding port 0.
     *
     * @throws IOException if no socket can be bound on the host
     */
    public static int findFreePort(String host) throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return socket.getLocalPort();
        }
    }

    private static boolean causedByBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
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

    /** {@code /process} requests answered with 200 so far. */
    public long requestsServed() {
        return routes.service().requestsServed();
    }

    /** The agent's current load. */
    public LoadSnapshot load() {
        return routes.service().load();
    }

    /** The agent's CamelContext, e.g. to inspect its routes. */
    public CamelContext camelContext() {
        return context;
    }

    /** Stops the CamelContext, waiting for in-flight requests, and releases the port. Idempotent. */
    @Override
    public void close() {
        context.stop();
    }

    @Override
    public String toString() {
        return "StubAgent{" + config.agentId() + " at " + baseUrl() + "}";
    }
}
