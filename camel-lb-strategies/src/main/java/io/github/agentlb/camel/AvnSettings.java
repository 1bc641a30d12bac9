package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.Durations;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.AgentUtilization;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.camel.api.management.ManagedAttribute;

/**
 * The knobs of {@link AdaptiveVirtualNodeLB}: every field of {@link AdaptiveVirtualNodesConfig} and
 * the agents' start-up utilization ({@link BalancerConfig#avn()}) as JavaBean properties for YAML
 * {@code beans:} and {@code camel.beans.*} properties; units and ranges in
 * {@link AdaptiveVirtualNodesConfig.Builder}. When a knob takes effect: {@link Configurable}; the
 * weights of eqs. (1) and (3), set one by one, are checked together.
 */
public interface AvnSettings extends Configurable {

    private AdaptiveVirtualNodesConfig avnConfig() {
        return balancerConfig().avn().config();
    }

    /**
     * Replaces the algorithm's configuration whole (its settle threshold as it has it).
     *
     * @throws NullPointerException naming {@code avnConfig} if null
     */
    default void setAvnConfig(AdaptiveVirtualNodesConfig config) {
        java.util.Objects.requireNonNull(config, "avnConfig");
        configure("avnConfig", config, d -> d.avn(config));
    }

    /** The threshold on S, a fraction in (0, 1); unless the settle threshold is set too, it keeps its ratio to the threshold (0.7). */
    default void setImbalanceThreshold(double imbalanceThreshold) {
        configure("imbalanceThreshold", imbalanceThreshold, d -> d.imbalanceThreshold(imbalanceThreshold));
    }

    @ManagedAttribute(description = "Threshold on the imbalance index S, fraction")
    default double getImbalanceThreshold() {
        return configured("imbalanceThreshold", avnConfig().imbalanceThreshold());
    }

    /** The level S must come down to for moves to stop, a fraction in (0, 1), at most the threshold. */
    default void setSettleThreshold(double settleThreshold) {
        configure("settleThreshold", settleThreshold, d -> d.settleThreshold(settleThreshold));
    }

    default double getSettleThreshold() {
        return configured("settleThreshold", avnConfig().settleThreshold());
    }

    /** The N of eq. (2), virtual nodes on the whole ring, >= 1. */
    default void setTotalVirtualNodes(int totalVirtualNodes) {
        configure("totalVirtualNodes", totalVirtualNodes, d -> d.avn().totalVirtualNodes(totalVirtualNodes));
    }

    default int getTotalVirtualNodes() {
        return configured("totalVirtualNodes", avnConfig().totalVirtualNodes());
    }

    /** The evaluations without moves after one that moved, >= 0. */
    default void setCooldownWindows(int cooldownWindows) {
        configure("cooldownWindows", cooldownWindows, d -> d.avn().cooldownWindows(cooldownWindows));
    }

    default int getCooldownWindows() {
        return configured("cooldownWindows", avnConfig().cooldownWindows());
    }

    /** The weight of the newest window in the smoothed utilization, in (0, 1]. */
    default void setUtilizationSmoothing(double utilizationSmoothing) {
        configure("utilizationSmoothing", utilizationSmoothing, d -> d.avn().utilizationSmoothing(utilizationSmoothing));
    }

    default double getUtilizationSmoothing() {
        return configured("utilizationSmoothing", avnConfig().utilizationSmoothing());
    }

    /** The virtual nodes moved at most per evaluation, >= 1. */
    default void setMaxMovesPerEvaluation(int maxMovesPerEvaluation) {
        configure("maxMovesPerEvaluation", maxMovesPerEvaluation, d -> d.avn().maxMovesPerEvaluation(maxMovesPerEvaluation));
    }

    default int getMaxMovesPerEvaluation() {
        return configured("maxMovesPerEvaluation", avnConfig().maxMovesPerEvaluation());
    }

    /** The requests per evaluation window, >= 1. */
    default void setEvaluationWindow(int evaluationWindow) {
        configure("evaluationWindow", evaluationWindow, d -> d.avn().evaluationWindow(evaluationWindow));
    }

    default int getEvaluationWindow() {
        return configured("evaluationWindow", avnConfig().evaluationWindow());
    }

    /** Age after which a CPU/memory report counts as none, > 0. */
    default void setReportExpiry(Duration reportExpiry) {
        configure("reportExpiry", reportExpiry, d -> d.avn().reportExpiry(reportExpiry));
    }

    /** {@link #setReportExpiry(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setReportExpiry(String reportExpiry) {
        setReportExpiry(Durations.parse("reportExpiry", reportExpiry));
    }

    default Duration getReportExpiry() {
        return configured("reportExpiry", avnConfig().reportExpiry());
    }

    /**
     * The keyed requests replayed by each evaluation, 1..{@value AdaptiveVirtualNodesConfig#MAX_HISTORY_SIZE}
     * (12 bytes each, allocated when set).
     *
     * @throws IllegalArgumentException if out of range, naming {@code historySize} and the value
     */
    default void setHistorySize(int historySize) {
        configure("historySize", historySize, d -> d.avn().historySize(historySize));
    }

    default int getHistorySize() {
        return configured("historySize", avnConfig().historySize());
    }

    /** {@code a_c} of eq. (1), fraction 0..1; with capacityMemoryWeight, sums to 1. */
    default void setCapacityCpuWeight(double capacityCpuWeight) {
        Check.fraction("capacityCpuWeight", capacityCpuWeight);
        configure("capacityCpuWeight", capacityCpuWeight, d -> d.capacityWeights(capacityCpuWeight, getCapacityMemoryWeight()));
    }

    default double getCapacityCpuWeight() {
        return configured("capacityCpuWeight", avnConfig().capacityWeights().cpu());
    }

    /** {@code a_m} of eq. (1), fraction 0..1. */
    default void setCapacityMemoryWeight(double capacityMemoryWeight) {
        Check.fraction("capacityMemoryWeight", capacityMemoryWeight);
        configure("capacityMemoryWeight", capacityMemoryWeight, d -> d.capacityWeights(getCapacityCpuWeight(), capacityMemoryWeight));
    }

    default double getCapacityMemoryWeight() {
        return configured("capacityMemoryWeight", avnConfig().capacityWeights().memory());
    }

    /** {@code b_c} of eq. (3), fraction 0..1; with loadMemoryWeight and loadRequestWeight, sums to 1. */
    default void setLoadCpuWeight(double loadCpuWeight) {
        Check.fraction("loadCpuWeight", loadCpuWeight);
        configure("loadCpuWeight", loadCpuWeight,
                d -> d.loadWeights(loadCpuWeight, getLoadMemoryWeight(), getLoadRequestWeight()));
    }

    default double getLoadCpuWeight() {
        return configured("loadCpuWeight", avnConfig().loadWeights().cpu());
    }

    /** {@code b_m} of eq. (3), fraction 0..1. */
    default void setLoadMemoryWeight(double loadMemoryWeight) {
        Check.fraction("loadMemoryWeight", loadMemoryWeight);
        configure("loadMemoryWeight", loadMemoryWeight,
                d -> d.loadWeights(getLoadCpuWeight(), loadMemoryWeight, getLoadRequestWeight()));
    }

    default double getLoadMemoryWeight() {
        return configured("loadMemoryWeight", avnConfig().loadWeights().memory());
    }

    /** {@code b_t} of eq. (3), fraction 0..1. */
    default void setLoadRequestWeight(double loadRequestWeight) {
        Check.fraction("loadRequestWeight", loadRequestWeight);
        configure("loadRequestWeight", loadRequestWeight,
                d -> d.loadWeights(getLoadCpuWeight(), getLoadMemoryWeight(), loadRequestWeight));
    }

    default double getLoadRequestWeight() {
        return configured("loadRequestWeight", avnConfig().loadWeights().requests());
    }

    /**
     * The hash function by name, e.g. {@code fnv1-64-mixed} ({@link HashAlgorithm#fromName}); a bare
     * FNV one is accepted with a WARN, as for {@link ConsistentHashLB#setHashFunction(HashFunction)}.
     */
    default void setHashFunction(String hashFunction) {
        configure("hashFunction", hashFunction, d -> d.avn().hashFunction(hashFunction));
        ConsistentHashLB.warnOnBareFnv(HashAlgorithm.fromName(hashFunction), "avn");
    }

    /** @return the hash function's name (or class name) */
    default String getHashFunction() {
        HashFunction current = avnConfig().hashFunction();
        return configured("hashFunction",
                current instanceof HashAlgorithm algorithm ? algorithm.configName() : current.getClass().getName());
    }

    /**
     * {@code true}: the paper's rule without our guards ({@link AdaptiveVirtualNodesConfig.Builder#paperRule}), a
     * preset of the settle threshold, cooldown, smoothing and moves per evaluation; {@code false}: their
     * defaults back. Either way a knob of the four set by name keeps its value, before or after.
     */
    default void setPaperRule(boolean paperRule) {
        configure("paperRule", paperRule, d -> {
            AdaptiveVirtualNodesConfig defaults = AdaptiveVirtualNodesConfig.ofDefaults();
            if (paperRule) {
                d.paperRule();
            } else {
                d.avn().cooldownWindows(defaults.cooldownWindows()).utilizationSmoothing(defaults.utilizationSmoothing())
                        .maxMovesPerEvaluation(defaults.maxMovesPerEvaluation());
                d.settleFollowsThreshold(getImbalanceThreshold());
            }
            if (wasSet("settleThreshold")) {
                d.settleThreshold(getSettleThreshold());
            }
            if (wasSet("cooldownWindows")) {
                d.avn().cooldownWindows(getCooldownWindows());
            }
            if (wasSet("utilizationSmoothing")) {
                d.avn().utilizationSmoothing(getUtilizationSmoothing());
            }
            if (wasSet("maxMovesPerEvaluation")) {
                d.avn().maxMovesPerEvaluation(getMaxMovesPerEvaluation());
            }
        });
    }

    /**
     * Agents' start-up utilization as {@code id=cpu/memory} pairs separated by commas, e.g.
     * {@code A1=0.5/0.5,A3=0.25/0.25} (fractions 0..1), replacing those given before.
     *
     * @throws IllegalArgumentException naming {@code startupUtilization} and the text when it is not such pairs
     */
    default void setStartupUtilization(String startupUtilization) {
        Map<String, AgentUtilization> parsed = parseUtilization(startupUtilization);
        configure("startupUtilization", startupUtilization, d -> d.startupUtilization(parsed));
    }

    /**
     * Adds one agent's start-up utilization, fractions 0..1 (Java's form of {@link #setStartupUtilization(String)}).
     *
     * @param agentId the agent's id (its name or endpoint URI)
     * @throws IllegalArgumentException if the id is blank or a value is outside [0, 1]
     */
    default void startupUtilization(String agentId, double cpu, double memory) {
        AgentUtilization utilization = new AgentUtilization(cpu, memory);
        Check.notBlank("agentId", agentId);
        configure("startupUtilization", agentId + "=" + cpu + "/" + memory, d -> d.addStartupUtilization(agentId, utilization));
    }

    /** @return the agents' start-up utilization by id, as set (empty unless set); unmodifiable */
    default Map<String, AgentUtilization> getStartupUtilization() {
        return Map.copyOf(balancerConfig().avn().startupUtilization());
    }

    /** @return the algorithm's configuration, every knob of {@link AdaptiveVirtualNodesConfig} as now set */
    default AdaptiveVirtualNodesConfig getAvnConfig() {
        return avnConfig();
    }

    /**
     * Each comma-separated part exactly one {@code id=cpu/memory}: an id without white space,
     * {@code =} or {@code ,} (give such an id with {@link #startupUtilization(String, double, double)}),
     * each id once, no empty part.
     */
    private static Map<String, AgentUtilization> parseUtilization(String spec) {
        Map<String, AgentUtilization> parsed = new HashMap<>();
        for (String pair : Check.notBlank("startupUtilization", spec).split(",", -1)) {
            String[] idAndValues = pair.split("=", -1);
            String id = idAndValues[0].trim();
            String[] values = idAndValues.length == 2 ? idAndValues[1].split("/", -1) : new String[0];
            AgentUtilization utilization;
            try {
                if (values.length != 2 || id.isEmpty() || id.chars().anyMatch(Character::isWhitespace)) {
                    throw new NumberFormatException();
                }
                utilization = new AgentUtilization(Double.parseDouble(values[0].trim()), Double.parseDouble(values[1].trim()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("startupUtilization must be id=cpu/memory pairs of fractions 0..1"
                        + " separated by commas (an id without white space, '=' or ','), was '" + spec + "'", e);
            }
            if (parsed.put(id, utilization) != null) {
                throw new IllegalArgumentException("startupUtilization names " + id + " twice, was '" + spec + "'");
            }
        }
        return parsed;
    }
}
