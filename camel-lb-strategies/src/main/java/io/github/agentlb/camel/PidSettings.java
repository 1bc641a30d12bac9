package io.github.agentlb.camel;

import io.github.agentlb.core.Durations;
import io.github.agentlb.core.pid.PidWeightsConfig;
import java.time.Duration;

/**
 * The knobs of {@link PidWeightedLB}: every field of {@link PidWeightsConfig}
 * ({@link BalancerConfig#pid()}) as a JavaBean property for YAML {@code beans:} and
 * {@code camel.beans.*} properties; units and ranges in {@link PidWeightsConfig.Builder}. When a
 * knob takes effect: {@link Configurable}; a new configuration restarts the controllers from the
 * agents' current weights.
 */
public interface PidSettings extends Configurable {

    /** @return the configuration in use */
    default PidWeightsConfig getConfig() {
        return balancerConfig().pid();
    }

    /** Replaces the controllers' configuration whole. */
    default void setConfig(PidWeightsConfig config) {
        java.util.Objects.requireNonNull(config, "config");
        configure("config", config, d -> d.pid(config));
    }

    /** The proportional gain: {@link PidWeightsConfig.Builder#kp}. */
    default void setKp(double kp) {
        configure("kp", kp, d -> d.pid().kp(kp));
    }

    default double getKp() {
        return configured("kp", balancerConfig().pid().kp());
    }

    /** The integral gain: {@link PidWeightsConfig.Builder#ki}. */
    default void setKi(double ki) {
        configure("ki", ki, d -> d.pid().ki(ki));
    }

    default double getKi() {
        return configured("ki", balancerConfig().pid().ki());
    }

    /** The derivative gain: {@link PidWeightsConfig.Builder#kd}. */
    default void setKd(double kd) {
        configure("kd", kd, d -> d.pid().kd(kd));
    }

    default double getKd() {
        return configured("kd", balancerConfig().pid().kd());
    }

    /** The bound on the integral term: {@link PidWeightsConfig.Builder#integralLimit}. */
    default void setIntegralLimit(double integralLimit) {
        configure("integralLimit", integralLimit, d -> d.pid().integralLimit(integralLimit));
    }

    default double getIntegralLimit() {
        return configured("integralLimit", balancerConfig().pid().integralLimit());
    }

    /** The bound on one step's relative weight change: {@link PidWeightsConfig.Builder#maxStep}. */
    default void setMaxStep(double maxStep) {
        configure("maxStep", maxStep, d -> d.pid().maxStep(maxStep));
    }

    default double getMaxStep() {
        return configured("maxStep", balancerConfig().pid().maxStep());
    }

    /** The control period ({@code 1s}, {@code 500ms} or {@code PT1S} in YAML): {@link PidWeightsConfig.Builder#controlPeriod}. */
    default void setControlPeriod(Duration controlPeriod) {
        configure("controlPeriod", controlPeriod, d -> d.pid().controlPeriod(controlPeriod));
    }

    /**
     * {@link #setControlPeriod(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    default void setControlPeriod(String controlPeriod) {
        setControlPeriod(Durations.parse("controlPeriod", controlPeriod));
    }

    default Duration getControlPeriod() {
        return configured("controlPeriod", balancerConfig().pid().controlPeriod());
    }

    /** The lower weight bound, relative to the mean: {@link PidWeightsConfig.Builder#minWeight}. */
    default void setMinWeight(double minWeight) {
        configure("minWeight", minWeight, d -> d.pid().minWeight(minWeight));
    }

    default double getMinWeight() {
        return configured("minWeight", balancerConfig().pid().minWeight());
    }

    /** The upper weight bound, relative to the mean: {@link PidWeightsConfig.Builder#maxWeight}. */
    default void setMaxWeight(double maxWeight) {
        configure("maxWeight", maxWeight, d -> d.pid().maxWeight(maxWeight));
    }

    default double getMaxWeight() {
        return configured("maxWeight", balancerConfig().pid().maxWeight());
    }

    /** The age after which a report is dropped: {@link PidWeightsConfig.Builder#reportExpiry}. */
    default void setReportExpiry(Duration reportExpiry) {
        configure("reportExpiry", reportExpiry, d -> d.pid().reportExpiry(reportExpiry));
    }

    /**
     * {@link #setReportExpiry(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    default void setReportExpiry(String reportExpiry) {
        setReportExpiry(Durations.parse("reportExpiry", reportExpiry));
    }

    default Duration getReportExpiry() {
        return configured("reportExpiry", balancerConfig().pid().reportExpiry());
    }

    /** The concurrent requests counted as utilization 1.0 for a silent agent: {@link PidWeightsConfig.Builder#nominalCapacity}. */
    default void setNominalCapacity(double nominalCapacity) {
        configure("nominalCapacity", nominalCapacity, d -> d.pid().nominalCapacity(nominalCapacity));
    }

    default double getNominalCapacity() {
        return configured("nominalCapacity", balancerConfig().pid().nominalCapacity());
    }

    /** The utilization a failed attempt counts as: {@link PidWeightsConfig.Builder#failureUtilization}. */
    default void setFailureUtilization(double failureUtilization) {
        configure("failureUtilization", failureUtilization, d -> d.pid().failureUtilization(failureUtilization));
    }

    default double getFailureUtilization() {
        return configured("failureUtilization", balancerConfig().pid().failureUtilization());
    }

    /**
     * The slots per selection cycle, 1..{@value PidWeightsConfig#MAX_SCHEDULE_RESOLUTION}:
     * {@link PidWeightsConfig.Builder#scheduleResolution}.
     *
     * @throws IllegalArgumentException if out of range, naming {@code scheduleResolution} and the value
     */
    default void setScheduleResolution(int scheduleResolution) {
        configure("scheduleResolution", scheduleResolution, d -> d.pid().scheduleResolution(scheduleResolution));
    }

    default int getScheduleResolution() {
        return configured("scheduleResolution", balancerConfig().pid().scheduleResolution());
    }
}
