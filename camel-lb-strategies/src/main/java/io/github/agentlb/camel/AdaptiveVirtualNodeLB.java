package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.Evaluation;
import io.github.agentlb.core.avn.HostUtilization;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import io.github.agentlb.core.ring.HashRing;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
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
 *   <li>Keyed by an {@link Expression}, header {@code user_id} by default. The same key reaches
 *       the same agent until a reallocation moves the arc it sits on; a move changes two arcs
 *       only, about {@code 2/N} of the keys.
 *   <li>A missing or blank key is spread round-robin (DEBUG log) and counts in the evaluation
 *       window, not in the replayed history.
 *   <li>On a connection failure the exchange goes to the next agent clockwise, each at most once.
 *   <li>Load reports: the answer's {@value #CPU_HEADER} and {@value #MEMORY_HEADER} headers
 *       (decimal fractions 0..1) feed eq. (3) and are removed from the message returned; a
 *       missing, non-numeric or out-of-range value is ignored with a DEBUG log. Until every agent
 *       has a report at most {@code reportExpiry} old (10 s by default), {@code L_i} is the
 *       request share alone.
 *   <li>Evaluation: every {@code evaluationWindow} requests, on the thread that completes the
 *       window, after its answer arrived; it never waits for a lock and costs about a millisecond
 *       at the defaults (up to 16 candidate moves replayed). A new ring is swapped in atomically.
 *       Moves start when S exceeds the threshold and stop at the settle threshold, with a
 *       cooldown after each evaluation that moved and smoothed reports
 *       ({@link io.github.agentlb.core.avn.MoveGuard}).
 * </ul>
 *
 * <pre>{@code
 * from("platform-http:/process")
 *     .loadBalance(new AdaptiveVirtualNodeLB())
 *         .to("http://localhost:8081").to("http://localhost:8082").to("http://localhost:8083");
 *
 * // or: AdaptiveVirtualNodeLB.builder()
 * //         .config(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).build())
 * //         .startupUtilization("http://localhost:8083", 0.4, 0.4).build()
 * }</pre>
 *
 * <p>Every knob of {@link AdaptiveVirtualNodesConfig} is also a JavaBean property (at the end of
 * the class), which makes it longer than 300 lines.
 *
 * <p>Thread-safe. Per exchange: one evaluation of the key, one hash, O(log v) to find the owner,
 * O(1) to record it. The ring the balancer starts with shares {@code N} virtual nodes over all
 * its children by eq. (2). Once started, a membership change ({@code addProcessor},
 * {@code removeProcessor}), O(v log v), keeps the survivors' virtual nodes (learned ones included)
 * and gives a newcomer its eq. (2) share: removing an agent moves only its keys, adding one moves
 * keys only to it, and the total follows ({@link io.github.agentlb.core.avn.MembershipChange}).
 */
public class AdaptiveVirtualNodeLB extends KeyedLoadBalancerSupport {

    /** Response header with the agent's CPU utilization, a decimal fraction 0..1. */
    public static final String CPU_HEADER = "X-Agent-Cpu";
    /** Response header with the agent's memory utilization, a decimal fraction 0..1. */
    public static final String MEMORY_HEADER = "X-Agent-Memory";
    private static final List<String> REPORT_HEADERS = List.of(CPU_HEADER, MEMORY_HEADER);

    private static final String POSITION_PROPERTY = "AgentLbAvnPosition";
    private static final Logger LOG = LoggerFactory.getLogger(AdaptiveVirtualNodeLB.class);

    private volatile Map<String, HostUtilization> startupUtilization;
    private volatile AdaptiveVirtualNodes avn;
    private volatile boolean started;

    /** Header {@code user_id}, {@link AdaptiveVirtualNodesConfig#ofDefaults()}, equal agents. */
    public AdaptiveVirtualNodeLB() {
        this(builder());
    }

    private AdaptiveVirtualNodeLB(Builder builder) {
        super(builder.key, builder.keyName, builder.boundedLoad);
        this.startupUtilization = Map.copyOf(builder.startupUtilization);
        this.avn = new AdaptiveVirtualNodes(builder.config);
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String strategyName() {
        return "avn";
    }

    /** Agent id to its current number of virtual nodes, sorted by id; empty without agents. */
    public Map<String, Integer> virtualNodes() {
        return avn.virtualNodes();
    }

    /** S of the last evaluation (eqs. 4-5), a fraction; 0 before the first. */
    public double imbalanceIndex() {
        return avn.imbalanceIndex();
    }

    /** Virtual nodes moved since start. */
    public long reallocations() {
        return avn.reallocations();
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
                avn.updateHosts(agentIds);
            } else {
                avn.setHosts(agentIds);
            }
        } else if (started) {
            avn.updateHosts(withAverageForUnknown(agentIds));
        } else {
            avn.setHosts(withAverageForUnknown(agentIds));
        }
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        started = true;
    }

    /** Agents without a configured start-up utilization count as the average configured one. */
    private Map<String, HostUtilization> withAverageForUnknown(List<String> agentIds) {
        double cpu = startupUtilization.values().stream().mapToDouble(HostUtilization::cpu).average().orElse(0.5);
        double memory = startupUtilization.values().stream().mapToDouble(HostUtilization::memory).average().orElse(0.5);
        Map<String, HostUtilization> startup = new HashMap<>();
        for (String agent : agentIds) {
            startup.put(agent, startupUtilization.getOrDefault(agent, new HostUtilization(cpu, memory)));
        }
        return startup;
    }

    @Override
    protected Selection select(Exchange exchange, List<String> agentIds) {
        HashRing ring = avn.ring();
        String value = keyOf(exchange);
        if (ring == null || value == null) {
            return keyless(exchange, agentIds);
        }
        long position = ring.hash(value);
        exchange.setProperty(POSITION_PROPERTY, position);
        return ringSelection(value, position, ring.agentsClockwise(position), () -> keyName() + "=" + loggable(value)
                + " hash=" + Long.toUnsignedString(position) + " vnodes=" + ring.virtualNodes().get(ring.agentAt(position)));
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
        if (outcome.isFailure()) {
            return;
        }
        if (outcome == AttemptOutcome.SUCCESS && (cpu != null || memory != null)) {
            report(agentId, cpu, memory);
        }
        Long position = attempt.getProperty(POSITION_PROPERTY, Long.class);
        boolean windowComplete = position != null ? avn.record(position) : avn.recordWithoutKey();
        if (windowComplete) {
            avn.evaluate().ifPresent(this::logEvaluation);
        }
    }

    private void report(String agentId, Object cpu, Object memory) {
        double c = fraction(cpu);
        double m = fraction(memory);
        if (Double.isNaN(c) || Double.isNaN(m)) {
            LOG.debug("Ignoring load report of {}: {}={} {}={}", agentId, CPU_HEADER, cpu, MEMORY_HEADER, memory);
            return;
        }
        avn.report(agentId, c, m);
    }

    private static double fraction(Object header) {
        double value = decimalHeader(header);
        return HostUtilization.isFraction(value) ? value : Double.NaN;
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
        virtualNodes().forEach((agent, count) -> counts.put(agent, count.doubleValue()));
        return Map.of("virtual.nodes", counts);
    }

    /** Exposes {@code imbalance.index} (S) and {@code reallocations} for metrics. */
    @Override
    public Map<String, Double> balancerMetrics() {
        return Map.of("imbalance.index", imbalanceIndex(), "reallocations", (double) reallocations());
    }

    /** Builds an {@link AdaptiveVirtualNodeLB}; each setter validates at once. Not thread-safe. */
    public static final class Builder extends KeyedBuilder<Builder> {
        private AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.ofDefaults();
        private final Map<String, HostUtilization> startupUtilization = new HashMap<>();

        private Builder() {
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
            if (agentId == null || agentId.isBlank()) {
                throw new IllegalArgumentException("agentId must not be blank, was '" + agentId + "'");
            }
            startupUtilization.put(agentId, new HostUtilization(cpu, memory));
            return this;
        }

        public AdaptiveVirtualNodeLB build() {
            return new AdaptiveVirtualNodeLB(this);
        }
    }

    // JavaBean properties for YAML beans and camel.beans.* properties: each is applied to a
    // builder, and checked by it, when the balancer starts (see AgentLoadBalancerSupport).

    private final Settings<AdaptiveVirtualNodesConfig.Builder> settings = new Settings<>(this::isRunning);
    private final Settings<Map<String, HostUtilization>> startupSettings = new Settings<>(this::isRunning);

    /**
     * The threshold on S: {@link AdaptiveVirtualNodesConfig.Builder#imbalanceThreshold}, applied at
     * start; unless the settle threshold is set too, it keeps its ratio to the threshold (0.7).
     */
    public void setImbalanceThreshold(double imbalanceThreshold) {
        settings.put("imbalanceThreshold", imbalanceThreshold, b -> {
            b.imbalanceThreshold(imbalanceThreshold);
            if (settings.get("settleThreshold", null) == null) {
                AdaptiveVirtualNodesConfig c = avn.config();
                b.settleThreshold(imbalanceThreshold * c.settleThreshold() / c.imbalanceThreshold());
            }
        });
    }

    @ManagedAttribute(description = "Threshold on the imbalance index S, fraction")
    public double getImbalanceThreshold() {
        return settings.get("imbalanceThreshold", avn.config().imbalanceThreshold());
    }

    /** The N of eq. (2), virtual nodes on the whole ring: {@link AdaptiveVirtualNodesConfig.Builder#totalVirtualNodes}, applied at start. */
    public void setTotalVirtualNodes(int totalVirtualNodes) {
        settings.put("totalVirtualNodes", totalVirtualNodes, b -> b.totalVirtualNodes(totalVirtualNodes));
    }

    public int getTotalVirtualNodes() {
        return settings.get("totalVirtualNodes", avn.config().totalVirtualNodes());
    }

    /** The level S must come down to for moves to stop: {@link AdaptiveVirtualNodesConfig.Builder#settleThreshold}, applied at start. */
    public void setSettleThreshold(double settleThreshold) {
        settings.put("settleThreshold", settleThreshold, b -> b.settleThreshold(settleThreshold));
    }

    public double getSettleThreshold() {
        return settings.get("settleThreshold", avn.config().settleThreshold());
    }

    /** The evaluations without moves after one that moved: {@link AdaptiveVirtualNodesConfig.Builder#cooldownWindows}, applied at start. */
    public void setCooldownWindows(int cooldownWindows) {
        settings.put("cooldownWindows", cooldownWindows, b -> b.cooldownWindows(cooldownWindows));
    }

    public int getCooldownWindows() {
        return settings.get("cooldownWindows", avn.config().cooldownWindows());
    }

    /** The weight of the newest window in the smoothed utilization: {@link AdaptiveVirtualNodesConfig.Builder#utilizationSmoothing}, applied at start. */
    public void setUtilizationSmoothing(double utilizationSmoothing) {
        settings.put("utilizationSmoothing", utilizationSmoothing, b -> b.utilizationSmoothing(utilizationSmoothing));
    }

    public double getUtilizationSmoothing() {
        return settings.get("utilizationSmoothing", avn.config().utilizationSmoothing());
    }

    /** The virtual nodes moved at most per evaluation: {@link AdaptiveVirtualNodesConfig.Builder#maxMovesPerEvaluation}, applied at start. */
    public void setMaxMovesPerEvaluation(int maxMovesPerEvaluation) {
        settings.put("maxMovesPerEvaluation", maxMovesPerEvaluation, b -> b.maxMovesPerEvaluation(maxMovesPerEvaluation));
    }

    public int getMaxMovesPerEvaluation() {
        return settings.get("maxMovesPerEvaluation", avn.config().maxMovesPerEvaluation());
    }

    /** The requests per evaluation window: {@link AdaptiveVirtualNodesConfig.Builder#evaluationWindow}, applied at start. */
    public void setEvaluationWindow(int evaluationWindow) {
        settings.put("evaluationWindow", evaluationWindow, b -> b.evaluationWindow(evaluationWindow));
    }

    public int getEvaluationWindow() {
        return settings.get("evaluationWindow", avn.config().evaluationWindow());
    }

    /** Age after which a CPU/memory report counts as none: {@link AdaptiveVirtualNodesConfig.Builder#reportExpiry}, applied at start. */
    public void setReportExpiry(Duration reportExpiry) {
        settings.put("reportExpiry", reportExpiry, b -> b.reportExpiry(reportExpiry));
    }

    /** @return the report expiry */
    public Duration getReportExpiry() {
        return settings.get("reportExpiry", avn.config().reportExpiry());
    }

    /** The keyed requests replayed by each evaluation: {@link AdaptiveVirtualNodesConfig.Builder#historySize}, applied at start. */
    public void setHistorySize(int historySize) {
        settings.put("historySize", historySize, b -> b.historySize(historySize));
    }

    public int getHistorySize() {
        return settings.get("historySize", avn.config().historySize());
    }

    /** {@code a_c} of eq. (1); with capacityMemoryWeight, sums to 1, fraction 0..1; applied at start. */
    public void setCapacityCpuWeight(double capacityCpuWeight) {
        settings.put("capacityCpuWeight", capacityCpuWeight, b -> b.capacityWeights(getCapacityCpuWeight(), getCapacityMemoryWeight()));
    }

    public double getCapacityCpuWeight() {
        return settings.get("capacityCpuWeight", avn.config().capacityWeights().cpu());
    }

    /** {@code a_m} of eq. (1), fraction 0..1; applied at start. */
    public void setCapacityMemoryWeight(double capacityMemoryWeight) {
        settings.put("capacityMemoryWeight", capacityMemoryWeight, b -> b.capacityWeights(getCapacityCpuWeight(), getCapacityMemoryWeight()));
    }

    public double getCapacityMemoryWeight() {
        return settings.get("capacityMemoryWeight", avn.config().capacityWeights().memory());
    }

    /** {@code b_c} of eq. (3); with loadMemoryWeight and loadRequestWeight, sums to 1, fraction 0..1; applied at start. */
    public void setLoadCpuWeight(double loadCpuWeight) {
        settings.put("loadCpuWeight", loadCpuWeight, b -> b.loadWeights(getLoadCpuWeight(), getLoadMemoryWeight(), getLoadRequestWeight()));
    }

    public double getLoadCpuWeight() {
        return settings.get("loadCpuWeight", avn.config().loadWeights().cpu());
    }

    /** {@code b_m} of eq. (3), fraction 0..1; applied at start. */
    public void setLoadMemoryWeight(double loadMemoryWeight) {
        settings.put("loadMemoryWeight", loadMemoryWeight, b -> b.loadWeights(getLoadCpuWeight(), getLoadMemoryWeight(), getLoadRequestWeight()));
    }

    public double getLoadMemoryWeight() {
        return settings.get("loadMemoryWeight", avn.config().loadWeights().memory());
    }

    /** {@code b_t} of eq. (3), fraction 0..1; applied at start. */
    public void setLoadRequestWeight(double loadRequestWeight) {
        settings.put("loadRequestWeight", loadRequestWeight, b -> b.loadWeights(getLoadCpuWeight(), getLoadMemoryWeight(), getLoadRequestWeight()));
    }

    public double getLoadRequestWeight() {
        return settings.get("loadRequestWeight", avn.config().loadWeights().requests());
    }

    /** The hash function by name, e.g. {@code fnv1-64-mixed} ({@link io.github.agentlb.core.hash.HashAlgorithm#fromName}); applied at start. */
    public void setHashFunction(String hashFunction) {
        settings.put("hashFunction", hashFunction, b -> b.hashFunction(hashFunction));
    }

    /** @return the hash function's name (or class name) */
    public String getHashFunction() {
        String staged = settings.get("hashFunction", null);
        HashFunction current = avn.config().hashFunction();
        return staged != null ? staged
                : current instanceof HashAlgorithm algorithm ? algorithm.configName() : current.getClass().getName();
    }

    /** {@code true}: the paper's rule without our guards ({@link AdaptiveVirtualNodesConfig.Builder#paperRule}); applied at start. */
    public void setPaperRule(boolean paperRule) {
        settings.put("paperRule", paperRule, b -> {
            if (paperRule) {
                b.paperRule();
            }
        });
    }

    /**
     * Agents' start-up utilization as {@code id=cpu/memory} pairs separated by commas, e.g.
     * {@code A1=0.5/0.5,A3=0.25/0.25} (fractions 0..1; JavaBean form of
     * {@link Builder#startupUtilization}); replaces those of the builder; applied at start.
     */
    public void setStartupUtilization(String startupUtilization) {
        startupSettings.put("startupUtilization", startupUtilization, map -> map.putAll(parse(startupUtilization)));
    }

    private static Map<String, HostUtilization> parse(String spec) {
        Map<String, HostUtilization> parsed = new HashMap<>();
        for (String pair : Check.notBlank("startupUtilization", spec).split(",")) {
            int eq = pair.lastIndexOf('=');
            String[] values = eq < 0 ? new String[0] : pair.substring(eq + 1).split("/");
            try {
                if (values.length != 2 || pair.substring(0, eq).isBlank()) {
                    throw new NumberFormatException();
                }
                parsed.put(pair.substring(0, eq).trim(),
                        new HostUtilization(Double.parseDouble(values[0].trim()), Double.parseDouble(values[1].trim())));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("startupUtilization must be id=cpu/memory pairs of fractions 0..1"
                        + " separated by commas, was '" + spec + "'", e);
            }
        }
        return parsed;
    }

    @Override
    protected void applySettings() {
        super.applySettings();
        if (!settings.isEmpty()) {
            avn = new AdaptiveVirtualNodes(settings.applyTo(avn.config().toBuilder()).build());
        }
        if (!startupSettings.isEmpty()) {
            startupUtilization = Map.copyOf(startupSettings.applyTo(new HashMap<>()));
        }
    }

    /** Agent id to its virtual nodes now, for JMX. */
    @ManagedAttribute(description = "Agent id to its virtual nodes on the ring")
    public Map<String, Integer> getVirtualNodes() {
        return virtualNodes();
    }

    /** S of the last evaluation, for JMX. */
    @ManagedAttribute(description = "Imbalance index S of the last evaluation, fraction")
    public double getImbalanceIndex() {
        return imbalanceIndex();
    }

    /** Virtual nodes moved since start, for JMX. */
    @ManagedAttribute(description = "Virtual nodes moved since start")
    public long getReallocations() {
        return reallocations();
    }

    /** Snapshot of the current allocation for logs: agent id to virtual nodes. */
    @Override
    public String toString() {
        SortedMap<String, Integer> nodes = avn.virtualNodes();
        return "AdaptiveVirtualNodeLB" + nodes + " S=" + avn.imbalanceIndex();
    }
}
