package io.github.agentlb.loadgen.run;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.demo.DemoProxy;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.stats.AvnSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The agents of a {@link Scenario} and a {@link DemoProxy} balancing over them with one strategy,
 * all in this JVM on free loopback ports: what the main job runs each strategy against. Each
 * balancer has its defaults except the {@link #PID_CONTROL_PERIOD} of {@code pid}. With replicas,
 * several proxies over the same agents, each with its own balancer instance (as several balancer
 * pods behind a Kubernetes service). Closing stops the proxies, then the agents. Not thread-safe;
 * one per strategy run.
 */
public final class EmbeddedCluster implements AutoCloseable {

    /** The loopback address everything binds to. */
    public static final String HOST = "127.0.0.1";

    private final List<StubAgent> agents;
    private final List<DemoProxy> proxies;

    private EmbeddedCluster(List<StubAgent> agents, List<DemoProxy> proxies) {
        this.agents = agents;
        this.proxies = List.copyOf(proxies);
    }

    /**
     * Starts the agents, then the proxy, and returns once all listen.
     *
     * @param strategy a name from {@code Strategies.names()}
     * @param scenario which agents to start
     * @param template the agents' common settings (delays); ids, ports and seeds are set here
     * @param seed     seed from which the agents' delay seeds are derived
     * @throws Exception if something fails to start; whatever did start is stopped again
     */
    public static EmbeddedCluster start(String strategy, Scenario scenario, AgentConfig template, long seed)
            throws Exception {
        return start(scenario, template, seed, ProxyConfig.builder().strategy(strategy),
                () -> Strategies.create(strategy));
    }

    /**
     * Starts the agents, then a proxy with the settings of {@code proxy} (strategy, timeouts;
     * host, port and agents are set here) over a balancer from {@code balancers}.
     *
     * @param balancers makes a new, unstarted balancer of the proxy's strategy (called once per
     *                  proxy start attempt)
     * @throws Exception if something fails to start; whatever did start is stopped again
     */
    public static EmbeddedCluster start(Scenario scenario, AgentConfig template, long seed, ProxyConfig.Builder proxy,
                                        Supplier<? extends AgentLoadBalancerSupport> balancers) throws Exception {
        return start(scenario, template, seed, proxy, balancers, 1);
    }

    /**
     * As {@link #start(Scenario, AgentConfig, long, ProxyConfig.Builder, Supplier)} with
     * {@code replicas} proxies over the same agents, each with a balancer of its own.
     *
     * @param replicas proxies to start, >= 1
     * @throws IllegalArgumentException if {@code replicas < 1}
     */
    public static EmbeddedCluster start(Scenario scenario, AgentConfig template, long seed, ProxyConfig.Builder proxy,
                                        Supplier<? extends AgentLoadBalancerSupport> balancers, int replicas)
            throws Exception {
        return start(scenario.agents(template, seed), proxy, balancers, replicas);
    }

    /**
     * Starts the given agents (bound to {@link #HOST} whatever their host), then {@code replicas}
     * proxies over all of them in list order, each with a balancer of its own.
     *
     * @param agents the agents' settings: ids, delays, seeds; port 0 for a free port
     * @throws IllegalArgumentException if {@code replicas < 1}
     * @throws Exception if something fails to start; whatever did start is stopped again
     */
    public static EmbeddedCluster start(List<AgentConfig> agents, ProxyConfig.Builder proxy,
                                        Supplier<? extends AgentLoadBalancerSupport> balancers, int replicas)
            throws Exception {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1, was " + replicas);
        }
        List<StubAgent> started = new ArrayList<>();
        List<DemoProxy> proxies = new ArrayList<>();
        try {
            for (AgentConfig config : agents) {
                started.add(StubAgent.start(config.toBuilder().host(HOST).build()));
            }
            ProxyConfig config = proxy.host(HOST).port(0)
                    .agentUrls(started.stream().map(EmbeddedCluster::namedUrl).toList()).build();
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

    /** The first proxy's base URL, where the load goes without replicas. */
    public String baseUrl() {
        return proxies.get(0).baseUrl();
    }

    /** Every proxy's base URL, one per replica, in start order. */
    public List<String> baseUrls() {
        return proxies.stream().map(DemoProxy::baseUrl).toList();
    }

    /** The agents' ids, in start order. */
    public List<String> agentIds() {
        return agents.stream().map(a -> a.config().agentId()).toList();
    }

    /** The running agents. */
    public List<StubAgent> agents() {
        return List.copyOf(agents);
    }

    /**
     * {@code A1=http://127.0.0.1:port}: the proxy names its agents, so ring positions depend on
     * A1..A3 and not on the ephemeral ports, and consistent-hash runs repeat exactly.
     */
    private static String namedUrl(StubAgent agent) {
        return agent.config().agentId() + "=" + agent.baseUrl();
    }

    /** The (first) running proxy. */
    public DemoProxy proxy() {
        return proxies.get(0);
    }

    /** The (first) proxy's balancer. */
    public AgentLoadBalancerSupport balancer() {
        return proxy().balancer();
    }

    /** Every proxy's balancer, one per replica, in start order. */
    public List<AgentLoadBalancerSupport> balancers() {
        return proxies.stream().map(DemoProxy::balancer).toList();
    }

    /**
     * The agent id ({@code A1}) of a balancer agent id (the agent's name, as the proxy names its
     * agents, or an endpoint URI ending with the agent's base URL); the balancer id itself when it
     * names none of the agents.
     */
    public String agentIdOf(String balancerAgentId) {
        for (StubAgent agent : agents) {
            if (balancerAgentId.equals(agent.config().agentId()) || balancerAgentId.endsWith(agent.baseUrl())) {
                return agent.config().agentId();
            }
        }
        return balancerAgentId;
    }

    /** The state of the (first) balancer when it is an {@code avn} balancer, else {@code null}. */
    public AvnSummary avnSummary() {
        return balancer() instanceof AdaptiveVirtualNodeLB lb
                ? new AvnSummary(byAgentId(lb.getVirtualNodesByAgent()), lb.getImbalanceIndex(), lb.getReallocations())
                : null;
    }

    /** {@code byBalancerId} re-keyed by agent id ({@link #agentIdOf}), sorted. */
    public <V> SortedMap<String, V> byAgentId(Map<String, V> byBalancerId) {
        SortedMap<String, V> byAgent = new TreeMap<>();
        byBalancerId.forEach((id, value) -> byAgent.put(agentIdOf(id), value));
        return byAgent;
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
