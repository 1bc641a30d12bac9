package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.AgentUtilization;
import io.github.agentlb.core.avn.Evaluation;
import io.github.agentlb.core.orca.LoadReport;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.shared.AllocationSource;
import io.github.agentlb.core.shared.SharedAllocation;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.api.management.ManagedAttribute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *       ({@code endpoint-load-metrics}, see {@link AgentLoadBalancerSupport}) reports its
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
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new AdaptiveVirtualNodeLB())
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
 * // or: AdaptiveVirtualNodeLB.builder()
 * //         .config(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).build())
 * //         .startupUtilization("http://localhost:8083", 0.4, 0.4).build()
 * }</pre>
 *
 * <p>The example runs as written (a test compiles it): it needs {@code camel-netty-http} and
 * {@code camel-lb-http}, whose {@code agent:} endpoints stream each agent's answer to the client as
 * it arrives, holding no thread per call; each agent's id is its endpoint's address
 * ({@code http://localhost:8081}). When no agent can take an exchange it fails with
 * {@link NoAgentAvailableException} ({@link AgentsBusyException} when every agent asked to rest),
 * which the route answers as JSON (uncaught, netty-http would send the stack trace).
 *
 * <p>Every knob of {@link AdaptiveVirtualNodesConfig} is also a JavaBean property, inherited from
 * {@link AdaptiveVirtualNodeSettings}.
 *
 * <p>Thread-safe. Per exchange: one evaluation of the key, one hash, O(log v) to find the owner,
 * O(1) to record it. The ring the balancer starts with shares {@code N} virtual nodes over all
 * its children by eq. (2). Once started, a membership change ({@code addProcessor},
 * {@code removeProcessor}), O(v log v), keeps the survivors' virtual nodes (learned ones included)
 * and gives a newcomer its eq. (2) share: removing an agent moves only its keys, adding one moves
 * keys only to it, and the total follows ({@link io.github.agentlb.core.avn.MembershipChange}).
 *
 * <p>Replicas: with a {@link SharedAllocation} ({@link Builder#sharedAllocation}), replicas of one
 * balancer id route by one allocation. The elected leader evaluates and publishes its counts
 * (generation, leader epoch, membership digest) through the shared store; the others evaluate
 * nothing and install each valid newer allocation as one new state. No request waits on the
 * store: without an allocation a replica routes on its own ring, with the store unreachable on the
 * last installed one, and past {@link SharedAllocation#localAfter()} it learns on its own again.
 * {@link #allocationDetails()}, the metrics {@code agentlb.allocation.generation} and
 * {@code agentlb.allocation.source} and the {@code io.github.agentlb.shared} log say which.
 *
 * <p>Over 300 lines: the Camel glue with its JMX attributes, metrics and builder; the algorithm is in {@code core.avn} and the replicas' sharing in {@code SharedAllocationSync}.
 */
public class AdaptiveVirtualNodeLB extends AdaptiveVirtualNodeSettings {

    /** Response header with the agent's CPU utilization, a decimal fraction 0..1. */
    public static final String CPU_HEADER = "X-Agent-Cpu";
    /** Response header with the agent's memory utilization, a decimal fraction 0..1. */
    public static final String MEMORY_HEADER = "X-Agent-Memory";
    private static final List<String> REPORT_HEADERS = List.of(CPU_HEADER, MEMORY_HEADER);

    private static final String POSITION_PROPERTY = "AgentLbAvnPosition";
    private static final Logger LOG = LoggerFactory.getLogger(AdaptiveVirtualNodeLB.class);

    private volatile Map<String, AgentUtilization> startupUtilization;
    private volatile AdaptiveVirtualNodes avn;
    private volatile boolean started;
    private final SharedAllocationSync shared;

    /** Header {@code user_id}, {@link AdaptiveVirtualNodesConfig#ofDefaults()}, equal agents. */
    public AdaptiveVirtualNodeLB() {
        this(builder());
    }

    private AdaptiveVirtualNodeLB(Builder builder) {
        super(builder.key, builder.keyName, builder.boundedLoad);
        this.startupUtilization = Map.copyOf(builder.startupUtilization);
        this.avn = new AdaptiveVirtualNodes(builder.config, this::nanoTime);
        this.shared = builder.sharedAllocation == null ? null
                : new SharedAllocationSync(builder.sharedAllocation, () -> avn, this::pickerChanged, this::nanoTime);
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    AdaptiveVirtualNodesConfig currentConfig() {
        return avn.config();
    }

    @Override
    public String strategyName() {
        return "avn";
    }

    /** @deprecated the same as {@link #getVirtualNodesByAgent()}, the one name kept */
    @Deprecated
    public Map<String, Integer> virtualNodes() {
        return getVirtualNodesByAgent();
    }

    /** @deprecated the same as {@link #getImbalanceIndex()}, the one name kept */
    @Deprecated
    public double imbalanceIndex() {
        return getImbalanceIndex();
    }

    /** @deprecated the same as {@link #getReallocations()}, the one name kept */
    @Deprecated
    public long reallocations() {
        return getReallocations();
    }

    /** The current ring, or null without agents. */
    public HashRing ring() {
        return avn.ring();
    }

    /** The algorithm's state, for metrics and tests. */
    public AdaptiveVirtualNodes state() {
        return avn;
    }

    @Override
    protected void agentsChanged(List<String> agentIds) {
        if (agentIds.isEmpty()) {
            return;
        }
        // Children arrive one by one while the route is built: the ring the balancer starts with
        // is eq. (2) over all of them. Once it has started, users are mapped: keep the survivors.
        if (startupUtilization.isEmpty()) {
            if (started) {
                avn.updateAgents(agentIds);
            } else {
                avn.setAgents(agentIds);
            }
        } else if (started) {
            avn.updateAgents(withAverageForUnknown(agentIds));
        } else {
            avn.setAgents(withAverageForUnknown(agentIds));
        }
        if (started && shared != null) {
            shared.agentsChanged();
        }
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        started = true;
        if (shared != null) {
            shared.start(getCamelContext());
        }
    }

    @Override
    protected void doStop() throws Exception {
        if (shared != null) {
            shared.stop();
        }
        super.doStop();
    }

    /** Whether this balancer shares its allocation with replicas ({@link Builder#sharedAllocation}). */
    public boolean sharesAllocation() {
        return shared != null;
    }

    /** Where the allocation routed by now comes from; {@code LOCAL} without a shared allocation. */
    public AllocationSource allocationSource() {
        return shared == null ? AllocationSource.LOCAL : shared.source();
    }

    /** Generation of the shared allocation installed, 0 without one. */
    public long allocationGeneration() {
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
        return shared == null ? Map.of() : shared.details();
    }

    /** Agents without a configured start-up utilization count as the average configured one. */
    private Map<String, AgentUtilization> withAverageForUnknown(List<String> agentIds) {
        double cpu = startupUtilization.values().stream().mapToDouble(AgentUtilization::cpu).average().orElse(0.5);
        double memory = startupUtilization.values().stream().mapToDouble(AgentUtilization::memory).average().orElse(0.5);
        Map<String, AgentUtilization> startup = new HashMap<>();
        for (String agent : agentIds) {
            startup.put(agent, startupUtilization.getOrDefault(agent, new AgentUtilization(cpu, memory)));
        }
        return startup;
    }

    /** The ring of this moment, captured whole; each reallocation publishes a new state with the new ring. */
    @Override
    protected Picker newPicker(List<String> agentIds, Map<String, Double> weights) {
        HashRing ring = agentIds.isEmpty() ? null : avn.ring();
        return keyed().ringPicker(ring, agentIds, (exchange, position) -> exchange.setProperty(POSITION_PROPERTY, position),
                position -> " vnodes=" + ring.virtualNodes().get(ring.agentAt(position)));
    }

    @Override
    protected Collection<String> reportHeaders() {
        return REPORT_HEADERS;
    }

    @Override
    protected void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos) {
        Message answer = attempt.getMessage();
        Object cpu = answer.removeHeader(CPU_HEADER);
        Object memory = answer.removeHeader(MEMORY_HEADER);
        if (outcome.isFailure() || outcome == AttemptOutcome.CANCELLED) {
            return;
        }
        if (outcome == AttemptOutcome.ERROR_ANSWER || outcome == AttemptOutcome.BUSY) {
            // An agent that answers errors or asks to rest is as loaded as it gets: it never looks idle.
            learn(agentId, 1.0, 1.0);
        }
        if (outcome == AttemptOutcome.SUCCESS && (cpu != null || memory != null)) {
            report(agentId, cpu, memory);
        } else if (outcome == AttemptOutcome.SUCCESS) {
            LoadReport orca = attempt.getProperty(LOAD_REPORT_PROPERTY, LoadReport.class);
            if (orca != null) {
                reportOrca(agentId, orca);
            }
        }
        Long position = attempt.getProperty(POSITION_PROPERTY, Long.class);
        // A shared allocation's leader sees 1/N of the requests: it closes a window every 1/N of
        // the evaluation window, so the allocation learns as fast as one instance's would.
        int replicas = shared == null ? 1 : shared.replicasPerWindow();
        boolean windowComplete = position != null ? avn.record(position, replicas) : avn.recordWithoutKey(replicas);
        if (shared != null) {
            shared.routed(position);
        }
        if (windowComplete && (shared == null || shared.evaluates())) {
            // Replicas sharing an allocation route by written counts only: the leader proposes its
            // moves to the store and installs them when the write lands.
            boolean propose = shared != null && shared.routesByWritten();
            HashRing before = avn.ring();
            Optional<Evaluation> evaluation = avn.evaluate(!propose);
            evaluation.ifPresent(this::logEvaluation);
            if (propose) {
                evaluation.filter(e -> !e.moves().isEmpty())
                        .ifPresent(e -> shared.evaluated(before.virtualNodes(), e.ring().virtualNodes()));
            } else if (avn.ring() != before) {
                pickerChanged();
            }
        }
    }

    private void report(String agentId, Object cpu, Object memory) {
        double c = fraction(cpu);
        double m = fraction(memory);
        if (Double.isNaN(c) || Double.isNaN(m)) {
            LOG.debug("Ignoring load report of {}: {}={} {}={}", agentId, CPU_HEADER, cpu, MEMORY_HEADER, memory);
            return;
        }
        learn(agentId, c, m);
    }

    /** A load report for the state, and for the leader when this replica follows a shared allocation. */
    private void learn(String agentId, double cpu, double memory) {
        avn.report(agentId, cpu, memory);
        if (shared != null) {
            shared.reported(agentId, cpu, memory);
        }
    }

    /**
     * An ORCA report as the agent's CPU and memory: {@code cpu_utilization}, else
     * {@code application_utilization}, capped at 1 (both may exceed 1 in ORCA); memory is
     * {@code mem_utilization}, else the KV cache in use (an LLM server's memory). Without both,
     * nothing is reported.
     */
    private void reportOrca(String agentId, LoadReport orca) {
        double c = Double.isNaN(orca.cpuUtilization()) ? orca.applicationUtilization() : orca.cpuUtilization();
        double m = Double.isNaN(orca.memUtilization()) ? orca.kvCacheUsage() : orca.memUtilization();
        if (Double.isNaN(c) || Double.isNaN(m) || m > 1) {
            LOG.debug("Ignoring load report of {}: {} has no CPU and memory utilization", agentId, orca);
            return;
        }
        learn(agentId, Math.min(c, 1.0), m);
    }

    private static double fraction(Object header) {
        double value = decimalHeader(header);
        return AgentUtilization.isFraction(value) ? value : Double.NaN;
    }

    private void logEvaluation(Evaluation evaluation) {
        if (evaluation.moves().isEmpty()) {
            LOG.debug("Evaluated {} requests: S={} L={}", evaluation.requests(), evaluation.imbalanceIndex(),
                    evaluation.loadIndices());
            return;
        }
        for (Evaluation.Move move : evaluation.moves()) {
            LOG.info("Reallocated a virtual node {} -> {}: S={} predicted {} vnodes={}", move.from(), move.to(),
                    String.format(Locale.ROOT, "%.3f", move.imbalanceBefore()),
                    String.format(Locale.ROOT, "%.3f", move.predictedImbalanceAfter()),
                    evaluation.ring().virtualNodes());
        }
    }

    /** Exposes {@code virtual.nodes} per agent for {@link io.github.agentlb.metrics.LoadBalancerMetrics}. */
    @Override
    public Map<String, Map<String, Double>> agentMetrics() {
        Map<String, Double> counts = new TreeMap<>();
        getVirtualNodesByAgent().forEach((agent, count) -> counts.put(agent, count.doubleValue()));
        return Map.of("virtual.nodes", counts);
    }

    /**
     * Exposes {@code imbalance.index} (S) and {@code reallocations} for metrics, and with a shared
     * allocation {@code allocation.generation}.
     */
    @Override
    public Map<String, Double> balancerMetrics() {
        if (shared != null) {
            return Map.of("imbalance.index", getImbalanceIndex(), "reallocations", (double) getReallocations(),
                    "allocation.generation", (double) shared.generation());
        }
        return Map.of("imbalance.index", getImbalanceIndex(), "reallocations", (double) getReallocations());
    }

    /** Builds an {@link AdaptiveVirtualNodeLB}; each setter validates at once. Not thread-safe. */
    public static final class Builder extends KeyedBuilder<Builder> {
        private AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.ofDefaults();
        private final Map<String, AgentUtilization> startupUtilization = new HashMap<>();
        private SharedAllocation sharedAllocation;

        private Builder() {
        }

        /**
         * Shares the allocation with the other replicas of the same balancer id through a store
         * (for ZooKeeper: {@code ZooKeeperSharedAllocation.of(connectString, balancerId)} in
         * camel-lb-zookeeper); unset by default: each replica learns alone.
         */
        public Builder sharedAllocation(SharedAllocation sharedAllocation) {
            this.sharedAllocation = Objects.requireNonNull(sharedAllocation, "sharedAllocation");
            return this;
        }

        /** The algorithm's configuration (weights, N, thresholds, cooldown, smoothing, window, hash function). */
        public Builder config(AdaptiveVirtualNodesConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * An agent's CPU and memory utilization at start-up (fractions 0..1), for its capacity
         * weight by eq. (1). Agents without one count as the average of those configured; with
         * none configured, all agents weigh the same.
         *
         * @param agentId the child's agent id (its endpoint URI)
         * @throws IllegalArgumentException if the id is blank or a value is outside [0, 1]
         */
        public Builder startupUtilization(String agentId, double cpu, double memory) {
            startupUtilization.put(Check.notBlank("agentId", agentId), new AgentUtilization(cpu, memory));
            return this;
        }

        public AdaptiveVirtualNodeLB build() {
            return new AdaptiveVirtualNodeLB(this);
        }
    }

    @Override
    protected void applySettings() {
        super.applySettings();
        AdaptiveVirtualNodesConfig staged = stagedConfig();
        if (staged != null) {
            avn = new AdaptiveVirtualNodes(staged, this::nanoTime);
        }
        Map<String, AgentUtilization> startup = stagedStartupUtilization();
        if (startup != null) {
            startupUtilization = startup;
        }
    }

    /**
     * Agent id to its current number of virtual nodes, sorted by id; empty without agents. (On
     * {@code ConsistentHashLB} {@code getVirtualNodes()} is the count per agent, a setting.)
     */
    @ManagedAttribute(description = "Agent id to its virtual nodes on the ring")
    public Map<String, Integer> getVirtualNodesByAgent() {
        return avn.virtualNodes();
    }

    /**
     * @deprecated the same as {@link #getVirtualNodesByAgent()}; kept as a JMX attribute
     *             ({@code VirtualNodes}) too, so that existing consoles still read it
     */
    @Deprecated
    @ManagedAttribute(description = "Agent id to its virtual nodes on the ring (deprecated: VirtualNodesByAgent)")
    public Map<String, Integer> getVirtualNodes() {
        return getVirtualNodesByAgent();
    }

    /** S of the last evaluation (eqs. 4-5), a fraction; 0 before the first. */
    @ManagedAttribute(description = "Imbalance index S of the last evaluation, fraction")
    public double getImbalanceIndex() {
        return avn.imbalanceIndex();
    }

    /** Virtual nodes moved since start. */
    @ManagedAttribute(description = "Virtual nodes moved since start")
    public long getReallocations() {
        return avn.reallocations();
    }

    /** Snapshot of the current allocation for logs: agent id to virtual nodes. */
    @Override
    public String toString() {
        SortedMap<String, Integer> nodes = avn.virtualNodes();
        return "AdaptiveVirtualNodeLB" + nodes + " S=" + avn.imbalanceIndex();
    }
}
