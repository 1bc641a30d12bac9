package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.Durations;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.AgentUtilization;
import io.github.agentlb.core.bounded.BoundedLoad;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.camel.Expression;
import org.apache.camel.api.management.ManagedAttribute;

/**
 * The JavaBean properties of {@link AdaptiveVirtualNodeLB}, for YAML {@code beans:} and
 * {@code camel.beans.*} properties: every knob of {@link AdaptiveVirtualNodesConfig} and the
 * agents' start-up utilization. Each is kept until the balancer starts, then applied to a builder
 * and checked by it ({@link Settings}): a bad value fails the route's start with a message naming
 * the field and the value. A getter shows the value set, else the one in use. Thread-safe.
 */
public abstract class AdaptiveVirtualNodeSettings extends KeyedLoadBalancerSupport {

    private final Settings<AdaptiveVirtualNodesConfig.Builder> settings = new Settings<>(this::isRunning);
    private final Settings<Map<String, AgentUtilization>> startupSettings = new Settings<>(this::isRunning);

    AdaptiveVirtualNodeSettings(Expression key, String keyName, BoundedLoad boundedLoad) {
        super(key, keyName, boundedLoad);
    }

    /** The configuration in use. */
    abstract AdaptiveVirtualNodesConfig currentConfig();

    /** The configuration in use with the settings applied, or null without settings. */
    AdaptiveVirtualNodesConfig stagedConfig() {
        return settings.isEmpty() ? null : settings.applyTo(currentConfig().toBuilder()).build();
    }

    /** The start-up utilization set, or null if none was. */
    Map<String, AgentUtilization> stagedStartupUtilization() {
        return startupSettings.isEmpty() ? null : Map.copyOf(startupSettings.applyTo(new HashMap<>()));
    }

    /**
     * The threshold on S: {@link AdaptiveVirtualNodesConfig.Builder#imbalanceThreshold}, applied at
     * start; unless the settle threshold is set too, it keeps its ratio to the threshold (0.7).
     */
    public void setImbalanceThreshold(double imbalanceThreshold) {
        settings.put("imbalanceThreshold", imbalanceThreshold, b -> {
            b.imbalanceThreshold(imbalanceThreshold);
            if (settings.get("settleThreshold", null) == null) {
                AdaptiveVirtualNodesConfig c = currentConfig();
                b.settleThreshold(imbalanceThreshold * c.settleThreshold() / c.imbalanceThreshold());
            }
        });
    }

    @ManagedAttribute(description = "Threshold on the imbalance index S, fraction")
    public double getImbalanceThreshold() {
        return settings.get("imbalanceThreshold", currentConfig().imbalanceThreshold());
    }

    /** The N of eq. (2), virtual nodes on the whole ring: {@link AdaptiveVirtualNodesConfig.Builder#totalVirtualNodes}, applied at start. */
    public void setTotalVirtualNodes(int totalVirtualNodes) {
        settings.put("totalVirtualNodes", totalVirtualNodes, b -> b.totalVirtualNodes(totalVirtualNodes));
    }

    public int getTotalVirtualNodes() {
        return settings.get("totalVirtualNodes", currentConfig().totalVirtualNodes());
    }

    /** The level S must come down to for moves to stop: {@link AdaptiveVirtualNodesConfig.Builder#settleThreshold}, applied at start. */
    public void setSettleThreshold(double settleThreshold) {
        settings.put("settleThreshold", settleThreshold, b -> b.settleThreshold(settleThreshold));
    }

    public double getSettleThreshold() {
        return settings.get("settleThreshold", currentConfig().settleThreshold());
    }

    /** The evaluations without moves after one that moved: {@link AdaptiveVirtualNodesConfig.Builder#cooldownWindows}, applied at start. */
    public void setCooldownWindows(int cooldownWindows) {
        settings.put("cooldownWindows", cooldownWindows, b -> b.cooldownWindows(cooldownWindows));
    }

    public int getCooldownWindows() {
        return settings.get("cooldownWindows", currentConfig().cooldownWindows());
    }

    /** The weight of the newest window in the smoothed utilization: {@link AdaptiveVirtualNodesConfig.Builder#utilizationSmoothing}, applied at start. */
    public void setUtilizationSmoothing(double utilizationSmoothing) {
        settings.put("utilizationSmoothing", utilizationSmoothing, b -> b.utilizationSmoothing(utilizationSmoothing));
    }

    public double getUtilizationSmoothing() {
        return settings.get("utilizationSmoothing", currentConfig().utilizationSmoothing());
    }

    /** The virtual nodes moved at most per evaluation: {@link AdaptiveVirtualNodesConfig.Builder#maxMovesPerEvaluation}, applied at start. */
    public void setMaxMovesPerEvaluation(int maxMovesPerEvaluation) {
        settings.put("maxMovesPerEvaluation", maxMovesPerEvaluation, b -> b.maxMovesPerEvaluation(maxMovesPerEvaluation));
    }

    public int getMaxMovesPerEvaluation() {
        return settings.get("maxMovesPerEvaluation", currentConfig().maxMovesPerEvaluation());
    }

    /** The requests per evaluation window: {@link AdaptiveVirtualNodesConfig.Builder#evaluationWindow}, applied at start. */
    public void setEvaluationWindow(int evaluationWindow) {
        settings.put("evaluationWindow", evaluationWindow, b -> b.evaluationWindow(evaluationWindow));
    }

    public int getEvaluationWindow() {
        return settings.get("evaluationWindow", currentConfig().evaluationWindow());
    }

    /** Age after which a CPU/memory report counts as none: {@link AdaptiveVirtualNodesConfig.Builder#reportExpiry}, applied at start. */
    public void setReportExpiry(Duration reportExpiry) {
        settings.put("reportExpiry", reportExpiry, b -> b.reportExpiry(reportExpiry));
    }

    /**
     * {@link #setReportExpiry(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    public void setReportExpiry(String reportExpiry) {
        setReportExpiry(Durations.parse("reportExpiry", reportExpiry));
    }

    /** @return the report expiry */
    public Duration getReportExpiry() {
        return settings.get("reportExpiry", currentConfig().reportExpiry());
    }

    /** The keyed requests replayed by each evaluation: {@link AdaptiveVirtualNodesConfig.Builder#historySize}, applied at start. */
    public void setHistorySize(int historySize) {
        settings.put("historySize", historySize, b -> b.historySize(historySize));
    }

    public int getHistorySize() {
        return settings.get("historySize", currentConfig().historySize());
    }

    /** {@code a_c} of eq. (1); with capacityMemoryWeight, sums to 1, fraction 0..1; applied at start. */
    public void setCapacityCpuWeight(double capacityCpuWeight) {
        settings.put("capacityCpuWeight", capacityCpuWeight, b -> b.capacityWeights(getCapacityCpuWeight(), getCapacityMemoryWeight()));
    }

    public double getCapacityCpuWeight() {
        return settings.get("capacityCpuWeight", currentConfig().capacityWeights().cpu());
    }

    /** {@code a_m} of eq. (1), fraction 0..1; applied at start. */
    public void setCapacityMemoryWeight(double capacityMemoryWeight) {
        settings.put("capacityMemoryWeight", capacityMemoryWeight, b -> b.capacityWeights(getCapacityCpuWeight(), getCapacityMemoryWeight()));
    }

    public double getCapacityMemoryWeight() {
        return settings.get("capacityMemoryWeight", currentConfig().capacityWeights().memory());
    }

    /** {@code b_c} of eq. (3); with loadMemoryWeight and loadRequestWeight, sums to 1, fraction 0..1; applied at start. */
    public void setLoadCpuWeight(double loadCpuWeight) {
        settings.put("loadCpuWeight", loadCpuWeight, b -> b.loadWeights(getLoadCpuWeight(), getLoadMemoryWeight(), getLoadRequestWeight()));
    }

    public double getLoadCpuWeight() {
        return settings.get("loadCpuWeight", currentConfig().loadWeights().cpu());
    }

    /** {@code b_m} of eq. (3), fraction 0..1; applied at start. */
    public void setLoadMemoryWeight(double loadMemoryWeight) {
        settings.put("loadMemoryWeight", loadMemoryWeight, b -> b.loadWeights(getLoadCpuWeight(), getLoadMemoryWeight(), getLoadRequestWeight()));
    }

    public double getLoadMemoryWeight() {
        return settings.get("loadMemoryWeight", currentConfig().loadWeights().memory());
    }

    /** {@code b_t} of eq. (3), fraction 0..1; applied at start. */
    public void setLoadRequestWeight(double loadRequestWeight) {
        settings.put("loadRequestWeight", loadRequestWeight, b -> b.loadWeights(getLoadCpuWeight(), getLoadMemoryWeight(), getLoadRequestWeight()));
    }

    public double getLoadRequestWeight() {
        return settings.get("loadRequestWeight", currentConfig().loadWeights().requests());
    }

    /** The hash function by name, e.g. {@code fnv1-64-mixed} ({@link io.github.agentlb.core.hash.HashAlgorithm#fromName}); applied at start. */
    public void setHashFunction(String hashFunction) {
        settings.put("hashFunction", hashFunction, b -> b.hashFunction(hashFunction));
    }

    /** @return the hash function's name (or class name) */
    public String getHashFunction() {
        String staged = settings.get("hashFunction", null);
        HashFunction current = currentConfig().hashFunction();
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
     * {@link AdaptiveVirtualNodeLB.Builder#startupUtilization}); replaces those of the builder; applied at start.
     */
    public void setStartupUtilization(String startupUtilization) {
        startupSettings.put("startupUtilization", startupUtilization, map -> map.putAll(parse(startupUtilization)));
    }

    private static Map<String, AgentUtilization> parse(String spec) {
        Map<String, AgentUtilization> parsed = new HashMap<>();
        for (String pair : Check.notBlank("startupUtilization", spec).split(",")) {
            int eq = pair.lastIndexOf('=');
            String[] values = eq < 0 ? new String[0] : pair.substring(eq + 1).split("/");
            try {
                if (values.length != 2 || pair.substring(0, eq).isBlank()) {
                    throw new NumberFormatException();
                }
                parsed.put(pair.substring(0, eq).trim(),
                        new AgentUtilization(Double.parseDouble(values[0].trim()), Double.parseDouble(values[1].trim())));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("startupUtilization must be id=cpu/memory pairs of fractions 0..1"
                        + " separated by commas, was '" + spec + "'", e);
            }
        }
        return parsed;
    }
}
