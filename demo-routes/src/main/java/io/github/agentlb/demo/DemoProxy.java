package io.github.agentlb.demo;

import io.github.agentlb.agent.main.ServerPorts;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The proxy embedded in-process: its own {@link CamelContext} running {@link ProxyRoutes}, with
 * the balancer named by {@link ProxyConfig#strategy()}. Metrics are off (no meter registry), so
 * it starts in well under a second.
 *
 * <pre>{@code
 * ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0)
 *         .agentUrls(List.of(a1.baseUrl(), a2.baseUrl(), a3.baseUrl())).strategy("ch").build();
 * try (DemoProxy proxy = DemoProxy.start(config)) {
 *     URI uri = URI.create(proxy.baseUrl() + "/process/r1?user_id=42");
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class DemoProxy implements AutoCloseable {

    /** Seconds Camel waits for in-flight requests when closing. */
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 5;

    private final CamelContext context;
    private final ProxyConfig config;
    private final AgentLoadBalancerSupport balancer;
    private final ProxyRoutes routes;

    private DemoProxy(CamelContext context, ProxyConfig config, AgentLoadBalancerSupport balancer, ProxyRoutes routes) {
        this.context = context;
        this.config = config;
        this.balancer = balancer;
        this.routes = routes;
    }

    /**
     * The endpoint URI that calls the agent at {@code baseUrl} ({@code http://host:port}) as this
     * proxy's own children do, for {@code balancer().addAgent(name, uri, weight)} while the proxy runs.
     */
    public String agentUri(String baseUrl) {
        return routes.agentUri(baseUrl);
    }

    /**
     * Starts a proxy and returns once it is listening.
     *
     * @param config the proxy's settings; port 0 picks a free ephemeral port on the host
     * @return the running proxy; {@link #config()} carries the actual port
     * @throws Exception if the CamelContext fails to start, e.g. the port is taken
     */
    public static DemoProxy start(ProxyConfig config) throws Exception {
        Objects.requireNonNull(config, "config");
        return start(config, () -> Strategies.create(config.strategy()));
    }

    /**
     * Starts a proxy whose balancer comes from {@code balancers} rather than
     * {@link Strategies#create(String)}, e.g. a strategy with other settings than its defaults.
     * The supplier is called once per start attempt (a balancer belongs to one route), and each
     * balancer must be the strategy {@link ProxyConfig#strategy()} names.
     *
     * @param config    the proxy's settings; port 0 picks a free ephemeral port on the host
     * @param balancers makes a new, unstarted balancer
     * @return the running proxy
     * @throws IllegalArgumentException if a balancer's {@code strategyName()} is not the configured strategy
     * @throws Exception                if the CamelContext fails to start, e.g. the port is taken
     */
    public static DemoProxy start(ProxyConfig config, Supplier<? extends AgentLoadBalancerSupport> balancers)
            throws Exception {
        return start(config, balancers, null);
    }

    /**
     * Starts a proxy whose agents come from a membership source: {@code config}'s agents are the
     * source's first fleet ({@link DemoFleet#firstFleet()}), later fleets change the balancer while
     * it runs; the source is closed with the proxy.
     *
     * @param fleet the started source's fleet, or null for {@code config}'s fixed agents
     */
    static DemoProxy start(ProxyConfig config, Supplier<? extends AgentLoadBalancerSupport> balancers, DemoFleet fleet)
            throws Exception {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(balancers, "balancers");
        return ServerPorts.start(config.host(), config.port(), port -> {
            ProxyConfig resolved = config.toBuilder().port(port).build();
            AgentLoadBalancerSupport balancer = Strategies.isBaseline(resolved.strategy()) ? null
                    : Objects.requireNonNull(balancers.get(), "balancer");
            if (balancer != null && !resolved.strategy().equals(balancer.strategyName())) {
                throw new IllegalArgumentException("balancer must be strategy '" + resolved.strategy()
                        + "' as configured, was '" + balancer.strategyName() + "'");
            }
            DefaultCamelContext context = new DefaultCamelContext();
            context.getCamelContextExtension().setName("demo-proxy-" + resolved.port());
            context.getShutdownStrategy().setTimeout(SHUTDOWN_TIMEOUT_SECONDS);
            try {
                ProxyRoutes routes = new ProxyRoutes(resolved, balancer).withFleet(fleet);
                context.addRoutes(routes);
                context.start();
                return new DemoProxy(context, resolved, balancer, routes);
            } catch (Exception e) {
                context.close();
                throw e;
            }
        });
    }

    /** The port the proxy listens on. */
    public int port() {
        return config.port();
    }

    /** The base URL for clients, e.g. {@code http://127.0.0.1:54321} (loopback when bound to 0.0.0.0). */
    public String baseUrl() {
        String host = "0.0.0.0".equals(config.host()) ? "127.0.0.1" : config.host();
        return "http://" + ServerPorts.uriHost(host) + ":" + config.port();
    }

    /** The configuration in use, with the actual port. */
    public ProxyConfig config() {
        return config;
    }

    /** The balancer of the proxy route, e.g. to read a consistent-hash ring; null for a baseline (Camel's own balancer). */
    public AgentLoadBalancerSupport balancer() {
        return balancer;
    }

    /** The proxy's CamelContext. */
    public CamelContext camelContext() {
        return context;
    }

    /** Stops the CamelContext, waiting up to 5 s for in-flight requests, and releases the port. Idempotent. */
    @Override
    public void close() {
        context.stop();
    }

    @Override
    public String toString() {
        return "DemoProxy{" + config.strategy() + " at " + baseUrl() + " over " + config.agentUrls() + "}";
    }
}
