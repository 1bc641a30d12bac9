package io.github.agentlb.camel;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import io.github.agentlb.core.ring.HashRing;
import java.util.Map;
import java.util.Objects;
import org.apache.camel.Expression;
import org.apache.camel.api.management.ManagedAttribute;
import org.slf4j.LoggerFactory;

/**
 * Consistent hashing over a ring of virtual nodes ({@link HashRing}), keyed by a Camel
 * {@link Expression} (header {@code user_id} by default).
 *
 * <ul>
 *   <li>The same key reaches the same agent while that agent is a child of the balancer, in every
 *       balancer instance and JVM: a virtual node's position is the hash of the child's endpoint
 *       URI and the virtual node number, never its list position.
 *   <li>Removing an agent moves only its keys; adding it back restores the earlier mapping.
 *   <li>When the owner fails with a connection error, the exchange goes to the next agent
 *       clockwise on the ring, then the next, each at most once.
 *   <li>A missing or empty key (null or blank after evaluation) is not an error: such exchanges
 *       are spread round-robin, with a DEBUG log. Any other string is a key (negative, huge,
 *       non-numeric, Unicode).
 * </ul>
 *
 * <p>A route in a {@code RouteBuilder}'s {@code configure()}, with the imports
 * {@code io.github.agentlb.camel.ConsistentHashLB}, {@code io.github.agentlb.camel.AgentsBusyException},
 * {@code io.github.agentlb.camel.AgentsUnavailableException},
 * {@code io.github.agentlb.camel.NoAgentAvailableException} and {@code org.apache.camel.Exchange}:
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true&bridgeEndpoint=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new ConsistentHashLB())
 *             .to("agent:http://localhost:8081")       // the agent's answer streams to the client as it arrives
 *             .to("agent:http://localhost:8082")
 *             .to("agent:http://localhost:8083")
 *         .end()
 *     .endDoTry()
 *     .doCatch(AgentsUnavailableException.class)       // every agent resting after a 503 (an outage): a JSON 503 (Retry-After is set)
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"agents unavailable\"}"))
 *     .doCatch(AgentsBusyException.class)              // every agent already resting after a 429: a JSON 429 (Retry-After is set)
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(429))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"agents busy\"}"))
 *     .doCatch(NoAgentAvailableException.class)        // every agent down: a JSON 503, no stack trace
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"no agent available\"}"))
 *     .doCatch(Exception.class)                        // a POST's call failed, or a call timed out, before the answer: a JSON 502
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(502))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setHeader("x-should-retry", constant("false"))      // sent once: SDKs that retry a 502 must not either
 *         .setBody(constant("{\"error\":\"the agent failed or did not answer in time\"}"))
 *     .end()
 *     .removeHeaders("*", "Content-Type", "Retry-After", "x-should-retry",
 *             Exchange.HTTP_RESPONSE_CODE); // none of the request's
 * }</pre>
 *
 * <p>The example runs as written (a test compiles it): it needs {@code camel-netty-http} and
 * {@code camel-lb-http}, whose {@code agent:} endpoints stream each agent's answer to the client as
 * it arrives, holding no thread per call; each agent's id is its endpoint's address
 * ({@code http://localhost:8081}). When no agent can take an exchange it fails with
 * {@link NoAgentAvailableException} ({@link AgentsBusyException} when every agent asked to rest),
 * which the route answers as JSON (uncaught, netty-http would send the stack trace).
 *
 * <p>Knobs: {@link #setVirtualNodes}, {@link #setHashFunction}, and those of {@link KeySettings}
 * (the key, bounded loads), {@link FailureSettings} and {@link AgentSettings}; in Java, e.g.
 * {@code ConsistentHashLB lb = new ConsistentHashLB(); lb.setKeyHeader("tenant"); lb.setVirtualNodes(300);}.
 *
 * <p>Thread-safe. Per exchange: one evaluation and one hash of the key, then O(log v) with
 * v = agents x virtual nodes. Membership changes swap in a rebuilt ring atomically, O(v log v).
 */
public final class ConsistentHashLB extends AgentLoadBalancerSupport implements KeySettings {

    /** Virtual nodes per agent by default: 150, as in ketama and the original assignment. */
    public static final int DEFAULT_VIRTUAL_NODES = BalancerConfig.Ring.DEFAULT_VIRTUAL_NODES;
    /** The hash function by default: MD5, as in ketama and the original assignment. */
    public static final HashAlgorithm DEFAULT_HASH_ALGORITHM = HashAlgorithm.MD5;

    /** Header {@code user_id}, 150 virtual nodes per agent, MD5. */
    public ConsistentHashLB() {
        super(new ConsistentHashStrategy());
    }

    /** Keyed by {@code key}, 150 virtual nodes per agent, MD5. */
    public ConsistentHashLB(Expression key) {
        super(new ConsistentHashStrategy(), BalancerConfig.DEFAULT.with(d -> d.key(new BalancerConfig.Key(key, "key"))));
    }

    /**
     * Virtual nodes per agent, 1..{@value BalancerConfig.Ring#MAX_VIRTUAL_NODES}. An agent of weight w
     * gets {@code max(1, round(virtualNodes x w))} points on the ring, at most
     * {@value BalancerConfig.Ring#MAX_POINTS_PER_AGENT} (16 bytes each, the ring rebuilt on each change);
     * past {@value BalancerConfig.Ring#MAX_RING_POINTS} points in all, each agent's are scaled down alike
     * to fit ({@code max(1, floor(points x 1000000 / total))}, Envoy's {@code maximum_ring_size}).
     *
     * @throws IllegalArgumentException if out of range, or if an agent's weight would give it more points
     *     ({@code virtualNodes x weight of agent A1 must be <= 1000000 ring points, was 10000 x 1000.0}):
     *     at once, or, set before the balancer has agents, when the route starts
     */
    public void setVirtualNodes(int virtualNodes) {
        configure("virtualNodes", virtualNodes,
                d -> d.ring(new BalancerConfig.Ring(virtualNodes, d.ring().hashFunction())));
    }

    /** Virtual nodes per agent. */
    @ManagedAttribute(description = "Virtual nodes per agent")
    public int getVirtualNodes() {
        return balancerConfig().ring().virtualNodes();
    }

    /**
     * The hash function placing virtual nodes and keys. A bare FNV function ({@link
     * HashAlgorithm#clustersSimilarLabels()}) is accepted with a WARN: it clusters similar labels.
     */
    public void setHashFunction(HashFunction hashFunction) {
        Objects.requireNonNull(hashFunction, "hashFunction");
        configure("hashFunction", hashFunction, d -> d.ring(new BalancerConfig.Ring(d.ring().virtualNodes(), hashFunction)));
        warnOnBareFnv(hashFunction, "ch");
    }

    /** Logs one WARN line when {@code strategy}'s ring is given a bare FNV function, whose shares can be far apart. */
    static void warnOnBareFnv(HashFunction hashFunction, String strategy) {
        if (hashFunction instanceof HashAlgorithm algorithm && algorithm.clustersSimilarLabels()) {
            LoggerFactory.getLogger(ConsistentHashLB.class).warn("hashFunction={} of {}: the bare FNV function places"
                    + " similar agent names and keys close together on the ring, so agents' shares can be far apart (300"
                    + " keys user-0..user-299 on A1, A2, A3 with fnv1-32: all on A1); md5, the default, or fnv1a-64-mixed"
                    + " spread them", algorithm.configName(), strategy);
        }
    }

    /** The hash function by name, e.g. {@code md5} or {@code fnv1a-64-mixed} ({@link HashAlgorithm#fromName}). */
    public void setHashFunction(String hashFunction) {
        setHashFunction(HashAlgorithm.fromName(hashFunction));
    }

    /** @return the hash function's name, or its class name when it is not one of {@link HashAlgorithm} */
    @ManagedAttribute(description = "Hash function placing virtual nodes and keys")
    public String getHashFunction() {
        HashFunction current = balancerConfig().ring().hashFunction();
        return current instanceof HashAlgorithm algorithm ? algorithm.configName() : current.getClass().getName();
    }

    /** The ring of the current state, or null while the balancer has no serving agents. */
    public HashRing ring() {
        return balancerState().picker() instanceof KeyedSelection.RingPicker ring ? ring.ring() : null;
    }

    /** {@code weight} per agent: the configured weight it is picked by ({@link #setAgentWeight}, a fleet's). */
    @Override
    public Map<String, Map<String, Double>> agentMetrics() {
        return Map.of("weight", balancerState().weights());
    }
}
