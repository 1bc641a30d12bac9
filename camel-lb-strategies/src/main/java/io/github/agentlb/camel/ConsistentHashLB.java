package io.github.agentlb.camel;

import java.util.Map;
import java.util.TreeMap;
import io.github.agentlb.core.Check;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import io.github.agentlb.core.ring.HashRing;
import java.util.List;
import java.util.Objects;
import org.apache.camel.Expression;
import org.apache.camel.api.management.ManagedAttribute;

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
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new ConsistentHashLB())
 *             .to("agent:http://localhost:8081")       // the agent's answer streams to the client as it arrives
 *             .to("agent:http://localhost:8082")
 *             .to("agent:http://localhost:8083")
 *         .end()
 *     .endDoTry()
 *     .doCatch(AgentsBusyException.class)              // every agent asked to rest: 429 (Retry-After is set)
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(429))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"agents busy\"}"))
 *     .doCatch(NoAgentAvailableException.class)        // every agent down: a JSON 503, no stack trace
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"no agent available\"}"))
 *     .doCatch(Exception.class)                        // failed or timed out before the answer began: a JSON 502
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(502))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"the agent failed or did not answer in time\"}"))
 *     .end()
 *     .removeHeaders("*", "Content-Type", "Retry-After", Exchange.HTTP_RESPONSE_CODE); // none of the request's
 *
 * // or: ConsistentHashLB.builder().keyHeader("tenant").virtualNodes(300)
 * //          .hashFunction(HashAlgorithm.FNV1A_64_MIXED).build()
 * }</pre>
 *
 * <p>The example runs as written (a test compiles it): it needs {@code camel-netty-http} and
 * {@code camel-lb-http}, whose {@code agent:} endpoints stream each agent's answer to the client as
 * it arrives, holding no thread per call; each agent's id is its endpoint's address
 * ({@code http://localhost:8081}). When no agent can take an exchange it fails with
 * {@link NoAgentAvailableException} ({@link AgentsBusyException} when every agent asked to rest),
 * which the route answers as JSON (uncaught, netty-http would send the stack trace).
 *
 * <p>Thread-safe. Per exchange: one evaluation and one hash of the key, then O(log v) with
 * v = agents x virtual nodes. Membership changes swap in a rebuilt ring atomically, O(v log v).
 */
public class ConsistentHashLB extends KeyedLoadBalancerSupport {

    /** Virtual nodes per agent by default: 150, as in ketama and the original assignment. */
    public static final int DEFAULT_VIRTUAL_NODES = 150;
    /** The hash function by default: MD5, as in ketama and the original assignment. */
    public static final HashAlgorithm DEFAULT_HASH_ALGORITHM = HashAlgorithm.MD5;

    private final Settings<Builder> settings = new Settings<>(this::isRunning);
    private volatile int virtualNodes;
    private volatile HashFunction hashFunction;
    private volatile HashRing ring;

    /** Header {@code user_id}, 150 virtual nodes per agent, MD5. */
    public ConsistentHashLB() {
        this(builder());
    }

    /** Keyed by {@code key}, 150 virtual nodes per agent, MD5. */
    public ConsistentHashLB(Expression key) {
        this(builder().key(key, "key"));
    }

    private ConsistentHashLB(Builder builder) {
        super(builder.key, builder.keyName, builder.boundedLoad);
        this.virtualNodes = builder.virtualNodes;
        this.hashFunction = builder.hashFunction;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String strategyName() {
        return "ch";
    }

    /** Virtual nodes per agent. */
    @ManagedAttribute(description = "Virtual nodes per agent")
    public int getVirtualNodes() {
        return settings.get("virtualNodes", virtualNodes);
    }

    /** Virtual nodes per agent, >= 1 (JavaBean form of {@link Builder#virtualNodes}); checked and applied at start. */
    public void setVirtualNodes(int virtualNodes) {
        settings.put("virtualNodes", virtualNodes, b -> b.virtualNodes(virtualNodes));
    }

    /** The hash function by name, e.g. {@code md5} or {@code fnv1a-64-mixed} ({@link HashAlgorithm#fromName}); checked and applied at start. */
    public void setHashFunction(String hashFunction) {
        settings.put("hashFunction", hashFunction, b -> b.hashFunction(hashFunction));
    }

    /** @return the hash function's name, or its class name when it is not one of {@link HashAlgorithm} */
    @ManagedAttribute(description = "Hash function placing virtual nodes and keys")
    public String getHashFunction() {
        String staged = settings.get("hashFunction", null);
        if (staged != null) {
            return staged;
        }
        return hashFunction instanceof HashAlgorithm algorithm ? algorithm.configName() : hashFunction.getClass().getName();
    }

    @Override
    protected void applySettings() {
        super.applySettings();
        if (!settings.isEmpty()) {
            Builder applied = settings.applyTo(builder().virtualNodes(virtualNodes).hashFunction(hashFunction));
            virtualNodes = applied.virtualNodes;
            hashFunction = applied.hashFunction;
        }
    }

    /** The ring of the current state, or null while the balancer has no serving agents. */
    public HashRing ring() {
        return ring;
    }

    /**
     * A ring over the serving agents: {@code virtualNodes} each, or {@code max(1, round(virtualNodes
     * x weight))} for an agent whose weight is not 1 (a weight change moves that agent's keys only,
     * as a virtual node moves). The ring and the key settings are captured whole.
     */
    @Override
    protected Picker newPicker(List<String> agentIds, Map<String, Double> weights) {
        HashRing built = null;
        if (!agentIds.isEmpty()) {
            Map<String, Integer> counts = new TreeMap<>();
            for (String agent : agentIds) {
                counts.put(agent, (int) Math.max(1, Math.round(virtualNodes * weights.getOrDefault(agent, 1.0))));
            }
            built = HashRing.of(counts, hashFunction);
        }
        ring = built;
        return keyed().ringPicker(built, agentIds, (exchange, hash) -> { }, hash -> "");
    }

    /** Builds a {@link ConsistentHashLB}; each setter validates at once. Not thread-safe. */
    public static final class Builder extends KeyedBuilder<Builder> {
        private int virtualNodes = DEFAULT_VIRTUAL_NODES;
        private HashFunction hashFunction = DEFAULT_HASH_ALGORITHM;

        private Builder() {
        }

        /**
         * Virtual nodes per agent, >= 1.
         *
         * @throws IllegalArgumentException if {@code virtualNodes < 1}
         */
        public Builder virtualNodes(int virtualNodes) {
            this.virtualNodes = Check.atLeast("virtualNodes", virtualNodes, 1);
            return this;
        }

        /** The hash function placing virtual nodes and keys. */
        public Builder hashFunction(HashFunction hashFunction) {
            this.hashFunction = Objects.requireNonNull(hashFunction, "hashFunction");
            return this;
        }

        /** The hash function by name ({@link HashAlgorithm#fromName}). */
        public Builder hashFunction(String name) {
            return hashFunction(HashAlgorithm.fromName(name));
        }

        public ConsistentHashLB build() {
            return new ConsistentHashLB(this);
        }
    }
}
