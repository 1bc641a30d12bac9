package io.github.agentlb.core.pid;

import io.github.agentlb.core.Check;
/**
 * A discrete PID controller with a clamped integral, conditional integration, derivative on the
 * measurement and a clamped output.
 *
 * <p>On each accepted {@link #update(double, double, double) update} with setpoint {@code r},
 * process variable {@code y} and time step {@code dt} (seconds):
 * <pre>
 *   e       = r - y
 *   P       = kp * e
 *   I'      = clamp(I + ki * e * dt, -integralLimit, +integralLimit)
 *   D       = -kd * (y - y_prev) / dt          (0 on the first accepted update)
 *   output  = clamp(P + I' + D, outputMin, outputMax)
 * </pre>
 * The integral is held in output units ({@code ki} is applied before summing), so
 * {@code integralLimit} bounds the integral term's contribution to the output directly.
 *
 * <p><b>Anti-windup</b>: two rules, both always on. (1) Clamped integral: the integral term never
 * leaves {@code [-integralLimit, +integralLimit]}. (2) Conditional integration: when the unclamped
 * output {@code P + I' + D} is beyond an output limit and the error pushes further in that
 * direction, the integral keeps its previous value. After a long saturation the integral is
 * therefore at most {@code integralLimit} away from zero and unwinds within a few updates.
 *
 * <p><b>Derivative on the measurement</b>: the derivative is taken of {@code -y}, not of {@code e},
 * so a jump of the setpoint produces no derivative kick; for a constant setpoint the two are equal.
 *
 * <p><b>Invalid input</b>: if {@code dt <= 0}, or any argument is NaN or infinite, the update is
 * ignored, the state is unchanged and the method returns {@code 0.0} (no correction). Returning 0
 * rather than the last output matters to callers that apply the output as an increment: a rejected
 * sample must not repeat the previous correction.
 *
 * <p>Units: {@code e} and {@code y} in the unit of the process variable (here utilization, a
 * fraction 0..1 that may exceed 1); {@code dt} in seconds; {@code kp} in output units per PV unit,
 * {@code ki} per PV unit-second, {@code kd} output-seconds per PV unit.
 *
 * <p>Source: the textbook form (Åström and Murray, <i>Feedback Systems</i>, 2nd ed., ch. 11:
 * integrator windup, derivative on the process output) used the way Dropbox's Robinhood load
 * balancer (Dropbox tech blog, 2024) uses it: one controller per node, setpoint = fleet mean
 * utilization, output = weight correction; and the toy Python version in P. Tanwar, "Building a
 * tiny load balancing service using PID Controllers".
 *
 * <p><b>Not thread-safe</b>: one controller belongs to one agent and is driven by one control
 * thread; callers that share it must synchronize. O(1) time and memory per update.
 */
public final class PidController {

    private final Config config;
    private double integral;
    private double previousProcessVariable;
    private boolean hasPrevious;
    private double lastOutput;

    /**
     * Creates a controller in the reset state.
     *
     * @param config the gains and limits
     * @throws NullPointerException if {@code config} is null
     */
    public PidController(Config config) {
        if (config == null) {
            throw new NullPointerException("config");
        }
        this.config = config;
    }

    /**
     * Feeds one sample and returns the new output.
     *
     * @param setpoint        the target value {@code r}, PV units
     * @param processVariable the measured value {@code y}, PV units
     * @param dtSeconds       the time since the previous sample, seconds; must be {@code > 0}
     * @return the output clamped to {@code [outputMin, outputMax]}; {@code 0.0} if the sample was
     *     ignored (dt {@code <= 0}, or a NaN or infinite argument)
     */
    public double update(double setpoint, double processVariable, double dtSeconds) {
        if (!(dtSeconds > 0) || !Double.isFinite(dtSeconds)
                || !Double.isFinite(setpoint) || !Double.isFinite(processVariable)) {
            return 0.0;
        }
        double error = setpoint - processVariable;
        double proportional = config.kp * error;
        double derivative = hasPrevious
                ? -config.kd * (processVariable - previousProcessVariable) / dtSeconds
                : 0.0;
        double candidateIntegral = clamp(integral + config.ki * error * dtSeconds,
                -config.integralLimit, config.integralLimit);
        double unclamped = proportional + candidateIntegral + derivative;
        boolean pushingPastMax = unclamped > config.outputMax && error > 0;
        boolean pushingPastMin = unclamped < config.outputMin && error < 0;
        if (!pushingPastMax && !pushingPastMin) {
            integral = candidateIntegral;
        }
        double output = clamp(proportional + integral + derivative, config.outputMin, config.outputMax);
        previousProcessVariable = processVariable;
        hasPrevious = true;
        lastOutput = output;
        return output;
    }

    /** Clears the integral, the previous measurement and the last output. */
    public void reset() {
        integral = 0.0;
        previousProcessVariable = 0.0;
        hasPrevious = false;
        lastOutput = 0.0;
    }

    /** @return the integral term's current contribution to the output, output units */
    public double integral() {
        return integral;
    }

    /** @return the output of the last accepted update, {@code 0.0} after a reset */
    public double lastOutput() {
        return lastOutput;
    }

    /** @return this controller's configuration */
    public Config config() {
        return config;
    }

    private static double clamp(double value, double min, double max) {
        return Math.max(min, Math.min(max, value));
    }

    /**
     * Immutable gains and limits of a {@link PidController}, validated when constructed. A record,
     * so thread-safe. Built from {@link #ofDefaults()} or {@link #gains(double, double, double)}
     * and the limits' {@code with} methods, or by the canonical constructor.
     *
     * <p>Defaults: {@code kp = 1}, {@code ki = 0}, {@code kd = 0}, no integral limit, no output
     * limit (infinite limits), i.e. a pure proportional controller.
     *
     * @param kp            proportional gain, output units per PV unit, finite and {@code >= 0}
     * @param ki            integral gain, output units per PV unit-second, finite and {@code >= 0}
     * @param kd            derivative gain, output-seconds per PV unit, finite and {@code >= 0}
     * @param integralLimit bound on the integral term's absolute value, output units, {@code >= 0};
     *                      {@code +Infinity} for none
     * @param outputMin     lower output limit, output units, {@code -Infinity} for none
     * @param outputMax     upper output limit, output units, {@code >= outputMin}, {@code +Infinity} for none
     */
    public record Config(double kp, double ki, double kd, double integralLimit, double outputMin, double outputMax) {

        /** Default proportional gain, output units per PV unit. */
        public static final double DEFAULT_KP = 1.0;
        /** Default integral gain, output units per PV unit-second. */
        public static final double DEFAULT_KI = 0.0;
        /** Default derivative gain, output-seconds per PV unit. */
        public static final double DEFAULT_KD = 0.0;
        /** Default integral limit, output units: none. */
        public static final double DEFAULT_INTEGRAL_LIMIT = Double.POSITIVE_INFINITY;
        /** Default lower output limit, output units: none. */
        public static final double DEFAULT_OUTPUT_MIN = Double.NEGATIVE_INFINITY;
        /** Default upper output limit, output units: none. */
        public static final double DEFAULT_OUTPUT_MAX = Double.POSITIVE_INFINITY;

        /**
         * Checks every value, in the order of the parameters.
         *
         * @throws IllegalArgumentException naming the first bad field and its value: a gain negative,
         *         NaN or infinite; the integral limit negative or NaN; an output limit NaN, or
         *         {@code outputMin > outputMax}
         */
        public Config {
            Check.finiteNonNegative("kp", kp);
            Check.finiteNonNegative("ki", ki);
            Check.finiteNonNegative("kd", kd);
            if (!(integralLimit >= 0)) {
                throw new IllegalArgumentException("integralLimit must be >= 0, was " + integralLimit);
            }
            if (Double.isNaN(outputMin)) {
                throw new IllegalArgumentException("outputMin must be a number, was NaN");
            }
            if (Double.isNaN(outputMax)) {
                throw new IllegalArgumentException("outputMax must be a number, was NaN");
            }
            if (outputMin > outputMax) {
                throw new IllegalArgumentException("outputMin must be <= outputMax (" + outputMax + "), was " + outputMin);
            }
        }

        /** @return the default configuration */
        public static Config ofDefaults() {
            return gains(DEFAULT_KP, DEFAULT_KI, DEFAULT_KD);
        }

        /**
         * @param kp proportional gain, finite and {@code >= 0}
         * @param ki integral gain, finite and {@code >= 0}
         * @param kd derivative gain, finite and {@code >= 0}
         * @return these gains without integral or output limits
         * @throws IllegalArgumentException naming the first gain that is negative, NaN or infinite
         */
        public static Config gains(double kp, double ki, double kd) {
            return new Config(kp, ki, kd, DEFAULT_INTEGRAL_LIMIT, DEFAULT_OUTPUT_MIN, DEFAULT_OUTPUT_MAX);
        }

        /**
         * @param value bound on the integral term, output units, {@code >= 0}; {@code +Infinity} for none
         * @return a copy with this integral limit
         * @throws IllegalArgumentException if negative or NaN
         */
        public Config withIntegralLimit(double value) {
            return new Config(kp, ki, kd, value, outputMin, outputMax);
        }

        /**
         * @param min lower limit, output units, {@code -Infinity} for none
         * @param max upper limit, output units, {@code +Infinity} for none
         * @return a copy with these output limits
         * @throws IllegalArgumentException if either is NaN or {@code min > max}
         */
        public Config withOutputLimits(double min, double max) {
            return new Config(kp, ki, kd, integralLimit, min, max);
        }

        /** The record's form under the enclosing class's name: {@code PidController.Config[kp=1.0, ...]}. */
        @Override
        public String toString() {
            return "PidController.Config[kp=" + kp + ", ki=" + ki + ", kd=" + kd
                    + ", integralLimit=" + integralLimit + ", outputMin=" + outputMin
                    + ", outputMax=" + outputMax + "]";
        }
    }
}
