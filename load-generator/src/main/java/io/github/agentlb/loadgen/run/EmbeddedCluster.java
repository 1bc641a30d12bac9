package io.github.agentlb.loadgen.run;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.Check;
import io.github.agentlb.demo.DemoProxy;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.loadgen.stats.UtilizationSeries;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Stub agents and the demo proxies (one per replica, each with its own balancer) over them, in this
 * JVM on free loopback ports. The proxy names its agents ({@code A1=http://...}), so ring positions
 * do not depend on the ports and consistent-hash runs repeat exactly. Closing stops the proxies,
 * then the agents. Not thread-safe; one per run.
 */
public final class EmbeddedCluster implements AutoCloseable {

    /** The loopback address everything binds to. */
    public static final String HOST = "127.0.0.1";
    /** How often {@link #sampleUtilization} samples. */
    public static final Duration UTILIZATION_PERIOD = Duration.ofMillis(100);

    private final List<StubAgent> agents;
    private final List<DemoProxy> proxies;

    private EmbeddedCluster(List<StubAgent> agents, List<DemoProxy> proxies) {
        this.agents = List.copyOf(agents);
        this.proxies = List.copyOf(proxies);
    }

    /**
     * Starts the agents (port 0: a free one), then {@code replicas} (>= 1) proxies with {@code proxy}'s
     * settings (host, port and agents set here) over them, each with a new balancer from
     * {@code balancers}; returns once all listen. On a failure whatever started is stopped again.
     */
    public static EmbeddedCluster start(List<AgentConfig> agents, ProxyConfig.Builder proxy,
                                        Supplier<? extends AgentLoadBalancerSupport> balancers, int replicas)
            throws Exception {
        Check.atLeast("replicas", replicas, 1);
        List<StubAgent> started = new ArrayList<>();
        List<DemoProxy> proxies = new ArrayList<>();
        try {
            for (AgentConfig config : agents) {
                started.add(StubAgent.start(config.toBuilder().host(HOST).build()));
            }
            ProxyConfig config = proxy.host(HOST).port(0).agentUrls(started.stream()
                    .map(a -> a.config().agentId() + "=" + a.baseUrl()).toList()).build();
            for (int i = 0; i < replicas; i++) {
                proxies.add(DemoProxy.start(config, balancers));
            }
            return new EmbeddedCluster(started, proxies);
        } catch (Exception | Error e) {
            proxies.forEach(DemoProxy::close);
            started.forEach(StubAgent::close);
            throw e;
        }
    }

    /** Every proxy's base URL, one per replica, in start order. */
    public List<String> baseUrls() {
        return proxies.stream().map(DemoProxy::baseUrl).toList();
    }

    /** The agents' ids, in start order. */
    public List<String> agentIds() {
        return agents.stream().map(a -> a.config().agentId()).toList();
    }

    /** The running agents, in start order. */
    public List<StubAgent> agents() {
        return agents;
    }

    public StubAgent agent(String id) {
        return agents.stream().filter(a -> a.config().agentId().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no agent " + id + " in " + agentIds()));
    }

    /** The first proxy's balancer. */
    public AgentLoadBalancerSupport balancer() {
        return proxies.get(0).balancer();
    }

    /**
     * The agent id ({@code A1}) of a balancer agent id (the agent's name, or an endpoint URI ending
     * with the agent's base URL); the balancer id itself when it names none of the agents.
     */
    public String agentIdOf(String balancerAgentId) {
        return agents.stream().filter(a -> balancerAgentId.equals(a.config().agentId())
                        || balancerAgentId.endsWith(a.baseUrl()))
                .findFirst().map(a -> a.config().agentId()).orElse(balancerAgentId);
    }

    /** {@code byBalancerId} re-keyed by agent id ({@link #agentIdOf}), sorted. */
    public <V> SortedMap<String, V> byAgentId(Map<String, V> byBalancerId) {
        SortedMap<String, V> byAgent = new TreeMap<>();
        byBalancerId.forEach((id, value) -> byAgent.put(agentIdOf(id), value));
        return byAgent;
    }

    /** Samples each agent's utilization into {@code series} (a new series per agent id) until closed. */
    public PeriodicSampler sampleUtilization(Map<String, UtilizationSeries> series) {
        agents.forEach(a -> series.put(a.config().agentId(), new UtilizationSeries()));
        return PeriodicSampler.start("utilization", UTILIZATION_PERIOD, () -> agents.forEach(a ->
                series.get(a.config().agentId()).add(System.nanoTime(), a.load().utilization())));
    }

    @Override
    public void close() {
        try {
            proxies.forEach(DemoProxy::close);
        } finally {
            agents.forEach(StubAgent::close);
        }
    }
}
