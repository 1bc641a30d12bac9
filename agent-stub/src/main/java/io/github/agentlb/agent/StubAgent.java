package io.github.agentlb.agent;

import java.io.IOException;
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
        return ServerPorts.start(config.host(), config.port(), port -> {
            AgentConfig resolved = config.withPort(port);
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
                throw e;
            }
        });
    }

    /**
     * A port free on {@code host} at the time of the call.
     *
     * @throws IOException if no socket can be bound on the host
     * @see ServerPorts#findFreePort
     */
    public static int findFreePort(String host) throws IOException {
        return ServerPorts.findFreePort(host);
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
