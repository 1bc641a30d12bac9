package io.github.agentlb.camel;

import io.github.agentlb.core.Durations;
import io.github.agentlb.core.pid.PidWeightsConfig;
import java.time.Duration;

/**
 * The JavaBean properties of {@link PidWeightedLB}, for YAML {@code beans:} and
 * {@code camel.beans.*} properties: every knob of {@link PidWeightsConfig}. Each is kept until
 * the balancer starts, then applied to a builder and checked by it ({@link Settings}): a bad
 * value fails the route's start with a message naming the field and the value. A getter shows
 * the value set, else the one in use. Thread-safe.
 */
public abstract class PidWeightedSettings extends AgentLoadBalancerSupport {

    private final Settings<PidWeightsConfig.Builder> settings = new Settings<>(this::isRunning);

    PidWeightedSettings() {
    }

    /** @return the configuration in use */
    public abstract PidWeightsConfig getConfig();

    /** The configuration in use with the settings applied, or null without settings. */
    PidWeightsConfig stagedConfig() {
        return settings.isEmpty() ? null : settings.applyTo(getConfig().toBuilder()).build();
    }

    /** The proportional gain: {@link PidWeightsConfig.Builder#kp}, applied at start. */
    public void setKp(double kp) {
        settings.put("kp", kp, b -> b.kp(kp));
    }

    public double getKp() {
        return settings.get("kp", getConfig().kp());
    }

    /** The integral gain: {@link PidWeightsConfig.Builder#ki}, applied at start. */
    public void setKi(double ki) {
        settings.put("ki", ki, b -> b.ki(ki));
    }

    public double getKi() {
        return settings.get("ki", getConfig().ki());
    }

    /** The derivative gain: {@link PidWeightsConfig.Builder#kd}, applied at start. */
    public void setKd(double kd) {
        settings.put("kd", kd, b -> b.kd(kd));
    }

    public double getKd() {
        return settings.get("kd", getConfig().kd());
    }

    /** The bound on the integral term: {@link PidWeightsConfig.Builder#integralLimit}, applied at start. */
    public void setIntegralLimit(double integralLimit) {
        settings.put("integralLimit", integralLimit, b -> b.integralLimit(integralLimit));
    }

    public double getIntegralLimit() {
        return settings.get("integralLimit", getConfig().integralLimit());
    }

    /** The bound on one step's relative weight change: {@link PidWeightsConfig.Builder#maxStep}, applied at start. */
    public void setMaxStep(double maxStep) {
        settings.put("maxStep", maxStep, b -> b.maxStep(maxStep));
    }

    public double getMaxStep() {
        return settings.get("maxStep", getConfig().maxStep());
    }

    /** The control period ({@code 1s}, {@code 500ms} or {@code PT1S} in YAML): {@link PidWeightsConfig.Builder#controlPeriod}, applied at start. */
    public void setControlPeriod(Duration controlPeriod) {
        settings.put("controlPeriod", controlPeriod, b -> b.controlPeriod(controlPeriod));
    }

    /**
     * {@link #setControlPeriod(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    public void setControlPeriod(String controlPeriod) {
        setControlPeriod(Durations.parse("controlPeriod", controlPeriod));
    }

    public Duration getControlPeriod() {
        return settings.get("controlPeriod", getConfig().controlPeriod());
    }

    /** The lower weight bound, relative to the mean: {@link PidWeightsConfig.Builder#minWeight}, applied at start. */
    public void setMinWeight(double minWeight) {
        settings.put("minWeight", minWeight, b -> b.minWeight(minWeight));
    }

    public double getMinWeight() {
        return settings.get("minWeight", getConfig().minWeight());
    }

    /** The upper weight bound, relative to the mean: {@link PidWeightsConfig.Builder#maxWeight}, applied at start. */
    public void setMaxWeight(double maxWeight) {
        settings.put("maxWeight", maxWeight, b -> b.maxWeight(maxWeight));
    }

    public double getMaxWeight() {
        return settings.get("maxWeight", getConfig().maxWeight());
    }

    /** The age after which a report is dropped: {@link PidWeightsConfig.Builder#reportExpiry}, applied at start. */
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

    public Duration getReportExpiry() {
        return settings.get("reportExpiry", getConfig().reportExpiry());
    }

    /** The concurrent requests counted as utilization 1.0 for a silent agent: {@link PidWeightsConfig.Builder#nominalCapacity}, applied at start. */
    public void setNominalCapacity(double nominalCapacity) {
        settings.put("nominalCapacity", nominalCapacity, b -> b.nominalCapacity(nominalCapacity));
    }

    public double getNominalCapacity() {
        return settings.get("nominalCapacity", getConfig().nominalCapacity());
    }

    /** The utilization a failed attempt counts as: {@link PidWeightsConfig.Builder#failureUtilization}, applied at start. */
    public void setFailureUtilization(double failureUtilization) {
        settings.put("failureUtilization", failureUtilization, b -> b.failureUtilization(failureUtilization));
    }

    public double getFailureUtilization() {
        return settings.get("failureUtilization", getConfig().failureUtilization());
    }

    /** The slots per selection cycle: {@link PidWeightsConfig.Builder#scheduleResolution}, applied at start. */
    public void setScheduleResolution(int scheduleResolution) {
        settings.put("scheduleResolution", scheduleResolution, b -> b.scheduleResolution(scheduleResolution));
    }

    public int getScheduleResolution() {
        return settings.get("scheduleResolution", getConfig().scheduleResolution());
    }
}
