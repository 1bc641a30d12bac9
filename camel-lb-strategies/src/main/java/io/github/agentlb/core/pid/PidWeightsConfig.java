package io.github.agentlb.core.pid;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import java.time.Duration;

/**
 * Immutable configuration of {@link PidWeights}, validated when built: every setter of the
 * {@link Builder} throws {@link IllegalArgumentException} naming the field and the bad value.
 *
 * <p>Weights are relative to the fleet's mean weight (which {@link PidWeights} keeps at 1.0);
 * the controller output is a relative weight change per control step (0.1 = +10 %).
 *
 * <p>Default gains {@code kp = 1.0}, {@code ki = 0.1}, {@code kd = 0.1}: the seed's
 * proportional and integral gains with a smaller derivative gain. Because each output is added
 * to the weight, the weight already integrates the proportional term, so P alone removes the
 * steady-state error; the small I term trims a persistent bias and the small D term damps,
 * without amplifying per-agent measurement noise as the seed's {@code kd = 0.5} would. The loop
 * gain of a relative step is about {@code kp x utilization}, so at 75 % load {@code kp = 1}
 * removes about three quarters of an imbalance per period. On the deterministic fleet simulator
 * (tests {@code FleetSimulationTest}) these defaults bring capacities 1 : 1 : 0.5 at 75 % load
 * under max/mean 1.05 by the 5th period (round-robin: 1.33), absorb a halved capacity in 3
 * periods and recover from a 500-period saturation in 9; the seed's gains (1, 0.1, 0.5) and
 * P-only (1, 0, 0) meet the same figures.
 *
 * <p>A record, so immutable and thread-safe, with a validating {@link Builder}: twelve settings,
 * each with its default ({@code DEFAULT_*}), unit and range.
 *
 * @param kp                 proportional gain, {@code >= 0}
 * @param ki                 integral gain, {@code >= 0}
 * @param kd                 derivative gain, {@code >= 0}
 * @param integralLimit      bound on the integral term, relative weight change per step, {@code >= 0}
 * @param maxStep            bound on one step's relative weight change, in (0, 1)
 * @param controlPeriod      how often the owner should call {@link PidWeights#controlStep()}, {@code >= 1 ms}
 * @param minWeight          lower weight bound, a multiple of the mean weight, in (0, 1]
 * @param maxWeight          upper weight bound, a multiple of the mean weight, {@code >= 1}
 * @param reportExpiry       the age after which a utilization report is dropped, {@code > 0}
 * @param nominalCapacity    concurrent requests that a silent agent is assumed to serve at utilization 1.0,
 *                           {@code > 0}
 * @param failureUtilization the utilization a failed attempt counts as in the control step's mean, fraction,
 *                           {@code >= 0}
 * @param scheduleResolution slots per selection cycle used to integerize weights, 1..{@value #MAX_SCHEDULE_RESOLUTION}
 */
public record PidWeightsConfig(double kp, double ki, double kd, double integralLimit, double maxStep,
                               Duration controlPeriod, double minWeight, double maxWeight, Duration reportExpiry,
                               double nominalCapacity, double failureUtilization, int scheduleResolution) {

    /** Default proportional gain: relative weight change per unit of utilization error. */
    public static final double DEFAULT_KP = 1.0;
    /** Default integral gain: relative weight change per utilization-second. */
    public static final double DEFAULT_KI = 0.1;
    /** Default derivative gain: relative weight change per (utilization per second). */
    public static final double DEFAULT_KD = 0.1;
    /** Default bound on the integral term: 0.2 = 20 % of the weight per control step. */
    public static final double DEFAULT_INTEGRAL_LIMIT = 0.2;
    /** Default bound on one step's relative weight change: 0.5 = -50 % .. +50 %. */
    public static final double DEFAULT_MAX_STEP = 0.5;
    /** Default control period: 1 s. */
    public static final Duration DEFAULT_CONTROL_PERIOD = Duration.ofSeconds(1);
    /** Default lower weight bound: 0.1 x the mean weight. */
    public static final double DEFAULT_MIN_WEIGHT = 0.1;
    /** Default upper weight bound: 10 x the mean weight. */
    public static final double DEFAULT_MAX_WEIGHT = 10.0;
    /** Default age after which an agent's utilization report is dropped: 10 s. */
    public static final Duration DEFAULT_REPORT_EXPIRY = Duration.ofSeconds(10);
    /** Default concurrent requests that count as utilization 1.0 for a silent agent: 10. */
    public static final double DEFAULT_NOMINAL_CAPACITY = 10.0;
    /**
     * Default utilization a failed attempt counts as: 2.0, more than a saturated agent reports, so
     * a failing agent's weight falls (the error penalty of gRPC's weighted round-robin).
     */
    public static final double DEFAULT_FAILURE_UTILIZATION = 2.0;
    /** Default slots per selection cycle used to integerize weights: 1000. */
    public static final int DEFAULT_SCHEDULE_RESOLUTION = 1000;
    /**
     * The most slots per selection cycle: 100,000 ({@link SmoothWeightedRoundRobin#MAX_RESOLUTION}); the
     * schedule holds about that many slots and is rebuilt when the weights change.
     */
    public static final int MAX_SCHEDULE_RESOLUTION = SmoothWeightedRoundRobin.MAX_RESOLUTION;

    /**
     * Checks every value by the {@link Builder}'s setter of the same name.
     *
     * @throws IllegalArgumentException naming the field and the bad value, as that setter
     */
    public PidWeightsConfig {
        custom().kp(kp).ki(ki).kd(kd).integralLimit(integralLimit).maxStep(maxStep).controlPeriod(controlPeriod)
                .minWeight(minWeight).maxWeight(maxWeight).reportExpiry(reportExpiry).nominalCapacity(nominalCapacity)
                .failureUtilization(failureUtilization).scheduleResolution(scheduleResolution);
    }

    /** @return a builder initialised with the defaults */
    public static Builder custom() {
        return new Builder();
    }

    /** @return the default configuration */
    public static PidWeightsConfig ofDefaults() {
        return custom().build();
    }

    /** @return a builder initialised with this configuration's values */
    public Builder toBuilder() {
        return custom().kp(kp).ki(ki).kd(kd).integralLimit(integralLimit).maxStep(maxStep).controlPeriod(controlPeriod)
                .minWeight(minWeight).maxWeight(maxWeight).reportExpiry(reportExpiry).nominalCapacity(nominalCapacity)
                .failureUtilization(failureUtilization).scheduleResolution(scheduleResolution);
    }

    /**
     * @return the per-agent controller configuration: these gains, this integral limit and
     *     output limits {@code [-maxStep, +maxStep]}
     */
    public PidController.Config controllerConfig() {
        return PidController.Config.gains(kp, ki, kd).withIntegralLimit(integralLimit).withOutputLimits(-maxStep, maxStep);
    }

    /** Builder; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private double kp = DEFAULT_KP;
        private double ki = DEFAULT_KI;
        private double kd = DEFAULT_KD;
        private double integralLimit = DEFAULT_INTEGRAL_LIMIT;
        private double maxStep = DEFAULT_MAX_STEP;
        private Duration controlPeriod = DEFAULT_CONTROL_PERIOD;
        private double minWeight = DEFAULT_MIN_WEIGHT;
        private double maxWeight = DEFAULT_MAX_WEIGHT;
        private Duration reportExpiry = DEFAULT_REPORT_EXPIRY;
        private double nominalCapacity = DEFAULT_NOMINAL_CAPACITY;
        private double failureUtilization = DEFAULT_FAILURE_UTILIZATION;
        private int scheduleResolution = DEFAULT_SCHEDULE_RESOLUTION;

        private Builder() {
        }

        /** Proportional gain, finite, {@code >= 0}; else {@link IllegalArgumentException}. */
        public Builder kp(double kp) {
            this.kp = Check.finiteNonNegative("kp", kp);
            return this;
        }

        /** Integral gain, finite, {@code >= 0}; else {@link IllegalArgumentException}. */
        public Builder ki(double ki) {
            this.ki = Check.finiteNonNegative("ki", ki);
            return this;
        }

        /** Derivative gain, finite, {@code >= 0}; else {@link IllegalArgumentException}. */
        public Builder kd(double kd) {
            this.kd = Check.finiteNonNegative("kd", kd);
            return this;
        }

        /**
         * Bound on the integral term, relative weight change, finite, {@code >= 0};
         * else {@link IllegalArgumentException}.
         */
        public Builder integralLimit(double integralLimit) {
            this.integralLimit = Check.finiteNonNegative("integralLimit", integralLimit);
            return this;
        }

        /**
         * Bound on one step's relative weight change, {@code 0 < maxStep < 1} (below 1 so a step can never take a
         * weight to zero); else {@link IllegalArgumentException}.
         */
        public Builder maxStep(double maxStep) {
            if (!(maxStep > 0 && maxStep < 1)) {
                throw new IllegalArgumentException("maxStep must be > 0 and < 1, was " + maxStep);
            }
            this.maxStep = maxStep;
            return this;
        }

        /** Control period, {@code > 0}; {@link IllegalArgumentException} if null, zero or negative. */
        public Builder controlPeriod(Duration controlPeriod) {
            this.controlPeriod = Check.period("controlPeriod", controlPeriod);
            return this;
        }

        /**
         * Lower weight bound as a multiple of the mean weight, {@code 0 < minWeight <= 1};
         * else {@link IllegalArgumentException}.
         */
        public Builder minWeight(double minWeight) {
            if (!(minWeight > 0 && minWeight <= 1)) {
                throw new IllegalArgumentException("minWeight must be > 0 and <= 1, was " + minWeight);
            }
            this.minWeight = minWeight;
            return this;
        }

        /**
         * Upper weight bound as a multiple of the mean weight, finite, {@code >= 1};
         * else {@link IllegalArgumentException}.
         */
        public Builder maxWeight(double maxWeight) {
            this.maxWeight = Check.finiteAtLeast("maxWeight", maxWeight, 1);
            return this;
        }

        /**
         * Age after which a report is dropped, {@code > 0}; {@link IllegalArgumentException} if null, zero or
         * negative.
         */
        public Builder reportExpiry(Duration reportExpiry) {
            this.reportExpiry = Check.positive("reportExpiry", reportExpiry);
            return this;
        }

        /**
         * Concurrent requests counted as utilization 1.0 for an agent that reports nothing, finite, {@code > 0};
         * else {@link IllegalArgumentException}.
         */
        public Builder nominalCapacity(double nominalCapacity) {
            this.nominalCapacity = Check.finitePositive("nominalCapacity", nominalCapacity);
            return this;
        }

        /**
         * The utilization a failed attempt (no answer) counts as, finite, {@code >= 0}; 0 ignores failures; else
         * {@link IllegalArgumentException}.
         */
        public Builder failureUtilization(double failureUtilization) {
            this.failureUtilization = Check.finiteNonNegative("failureUtilization", failureUtilization);
            return this;
        }

        /** Slots per selection cycle, 1..{@value #MAX_SCHEDULE_RESOLUTION}; else {@link IllegalArgumentException}. */
        public Builder scheduleResolution(int scheduleResolution) {
            this.scheduleResolution = Check.atMost("scheduleResolution",
                    Check.atLeast("scheduleResolution", scheduleResolution, 1), MAX_SCHEDULE_RESOLUTION);
            return this;
        }

        /** @return the immutable configuration */
        public PidWeightsConfig build() {
            return new PidWeightsConfig(kp, ki, kd, integralLimit, maxStep, controlPeriod, minWeight, maxWeight,
                    reportExpiry, nominalCapacity, failureUtilization, scheduleResolution);
        }
    }
}
