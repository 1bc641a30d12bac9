package io.github.agentlb.camel;

import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.shared.AllocationSource;
import io.github.agentlb.core.shared.SharedAllocation;
import io.github.agentlb.core.shared.SharedAllocationSync;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import org.apache.camel.api.management.ManagedAttribute;

/**
 * Consistent hashing with capacity-weighted virtual nodes that moves one virtual node at a time
 * from the most to the least loaded agent while the imbalance index S exceeds a threshold (Liu
 * Peijin et al., seed {@code 002}; the algorithm is {@link AdaptiveVirtualNodes}, this class is
 * its Camel glue).
 *
 * <ul>
 *   <li>Keyed by an {@link org.apache.camel.Expression}, header {@code user_id} by default. The same key reaches
 *       the same agent until a reallocation moves the arc it sits on; a move changes two arcs
 *       only, about {@code 2/N} of the keys.
 *   <li>A missing or blank key is spread round-robin (DEBUG log) and counts in the evaluation
 *       window, not in the replayed history.
 *   <li>On a connection failure the exchange goes to the next agent clockwise, each at most once.
 *   <li>Load reports: the answer's {@value #CPU_HEADER} and {@value #MEMORY_HEADER} headers
 *       (decimal fractions 0..1) feed eq. (3) and are removed from the message returned; a
 *       missing, non-numeric or out-of-range value is ignored with a DEBUG log. Until every agent
 *       has a report at most {@code reportExpiry} old (10 s by default), {@code L_i} is the
 *       request share alone. An answer without them but with an ORCA load report
 *       ({@code endpoint-load-metrics}, see {@link AgentSettings}) reports its
 *       {@code cpu_utilization} (else {@code application_utilization}), capped at 1, and its
 *       {@code mem_utilization} (else its KV cache use, {@code kv_cache_usage_perc}).
 *   <li>Evaluation: every {@code evaluationWindow} requests, on the thread that completes the
 *       window, after its answer arrived; it never waits for a lock, and its work is bounded
 *       whatever the number of agents: at most 64 candidate moves per move made, each judged by
 *       the recent keys on the two arcs it changes ({@link io.github.agentlb.core.avn.Reallocation}).
 *       A new ring is swapped in atomically.
 *       Moves start when S exceeds the threshold and stop at the settle threshold, with a
 *       cooldown after each evaluation that moved and smoothed reports
 *       ({@link io.github.agentlb.core.avn.MoveGuard}).
 * </ul>
 *
 * <p>A route in a {@code RouteBuilder}'s {@code configure()}, with the imports
 * {@code io.github.agentlb.camel.AdaptiveVirtualNodeLB}, {@code io.github.agentlb.camel.AgentsBusyException},
 * {@code io.github.agentlb.camel.AgentsUnavailableException},
 * {@code io.github.agentlb.camel.NoAgentAvailableException} and {@code org.apache.camel.Exchange}:
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true&bridgeEndpoint=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new AdaptiveVirtualNodeLB())
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
 * <p>Every knob of {@link AdaptiveVirtualNodesConfig} is also a JavaBean property
 * ({@link AvnSettings}); the key and bounded loads are {@link KeySettings}.
 *
 * <p>Thread-safe. Per exchange: one evaluation of the key, one hash, O(log v) to find the owner,
 * O(1) to record it. The ring the balancer starts with shares {@code N} virtual nodes over all
 * its children by eq. (2). Once started, a membership change ({@code addProcessor},
 * {@code removeProcessor}), O(v log v), keeps the survivors' virtual nodes (learned ones included)
 * and gives a newcomer its eq. (2) share: removing an agent moves only its keys, adding one moves
 * keys only to it, and the total follows ({@link io.github.agentlb.core.avn.MembershipChange}).
 *
 * <p>Replicas: with a {@link SharedAllocation} ({@link #AdaptiveVirtualNodeLB(SharedAllocation)}), replicas of one
 * balancer id route by one allocation. The elected leader evaluates and publishes its counts
 * (generation, leader epoch, membership digest) through the shared store; the others evaluate
 * nothing and install each valid newer allocation as one new state. No request waits on the
 * store: without an allocation a replica routes on its own ring, with the store unreachable on the
 * last installed one, and past {@link SharedAllocation#localAfter()} it learns on its own again.
 * {@link #allocationDetails()}, the metrics {@code agentlb.allocation.generation} and
 * {@code agentlb.allocation.source} and the {@code io.github.agentlb.shared} log say which.
 */
public final class AdaptiveVirtualNodeLB extends AgentLoadBalancerSupport implements KeySettings, AvnSettings {

    /** Response header with the agent's CPU utilization, a decimal fraction 0..1. */
    public static final String CPU_HEADER = AvnStrategy.CPU_HEADER;
    /** Response header with the agent's memory utilization, a decimal fraction 0..1. */
    public static final String MEMORY_HEADER = AvnStrategy.MEMORY_HEADER;

    /** Header {@code user_id}, {@link AdaptiveVirtualNodesConfig#ofDefaults()}, equal agents, learning alone. */
    public AdaptiveVirtualNodeLB() {
        super(new AvnStrategy(null));
    }

    /**
     * A balancer whose replicas of the same balancer id share one allocation through a store (for
     * ZooKeeper: {@code ZooKeeperSharedAllocation.of(connectString, balancerId)} in camel-lb-zookeeper).
     */
    public AdaptiveVirtualNodeLB(SharedAllocation sharedAllocation) {
        super(new AvnStrategy(Objects.requireNonNull(sharedAllocation, "sharedAllocation")));
    }

    private AvnStrategy avn() {
        return (AvnStrategy) strategy();
    }

    /** The current ring, or null without agents. */
    public HashRing ring() {
        return avn().algorithm().ring();
    }

    /** The algorithm's state, for metrics and tests. */
    public AdaptiveVirtualNodes state() {
        return avn().algorithm();
    }

    /** Whether this balancer shares its allocation with replicas. */
    public boolean sharesAllocation() {
        return avn().shared() != null;
    }

    /** Where the allocation routed by now comes from; {@code LOCAL} without a shared allocation. */
    public AllocationSource allocationSource() {
        SharedAllocationSync shared = avn().shared();
        return shared == null ? AllocationSource.LOCAL : shared.source();
    }

    /** Generation of the shared allocation installed, 0 without one. */
    public long allocationGeneration() {
        SharedAllocationSync shared = avn().shared();
        return shared == null ? 0 : shared.generation();
    }

    /**
     * For health checks: {@code allocation.source} ({@code leader|local}), {@code allocation.generation},
     * {@code allocation.leader.epoch}, {@code allocation.leader} (this replica leads),
     * {@code allocation.store}, {@code allocation.store.connected}, {@code allocation.problem}
     * (why the last allocation seen was not installed or written, empty if none); empty without a
     * shared allocation.
     */
    public Map<String, Object> allocationDetails() {
        SharedAllocationSync shared = avn().shared();
        return shared == null ? Map.of() : shared.details();
    }

    /**
     * Agent id to its current number of virtual nodes, sorted by id; empty without agents. (On
     * {@code ConsistentHashLB} {@code getVirtualNodes()} is the count per agent, a setting.)
     */
    @ManagedAttribute(description = "Agent id to its virtual nodes on the ring")
    public Map<String, Integer> getVirtualNodesByAgent() {
        return state().virtualNodes();
    }

    /** S of the last evaluation (eqs. 4-5), a fraction; 0 before the first. */
    @ManagedAttribute(description = "Imbalance index S of the last evaluation, fraction")
    public double getImbalanceIndex() {
        return state().imbalanceIndex();
    }

    /** Virtual nodes moved since start. */
    @ManagedAttribute(description = "Virtual nodes moved since start")
    public long getReallocations() {
        return state().reallocations();
    }

    /** Snapshot of the current allocation for logs: agent id to virtual nodes. */
    @Override
    public String toString() {
        SortedMap<String, Integer> nodes = state().virtualNodes();
        return "AdaptiveVirtualNodeLB" + nodes + " S=" + state().imbalanceIndex();
    }
}
