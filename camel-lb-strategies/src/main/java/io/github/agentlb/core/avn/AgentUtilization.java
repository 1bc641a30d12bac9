package io.github.agentlb.core.avn;

/**
 * An agent's CPU and memory utilization at one moment, each a fraction 0..1 (0.25 = 25%).
 *
 * <p>Used twice by the paper: at start-up as the performance indicators {@code P_ci}, {@code P_mi}
 * of eq. (1), and while running as the load terms {@code L_ci}, {@code L_mi} of eq. (3).
 * Immutable and thread-safe.
 *
 * @param cpu    CPU utilization, fraction 0..1
 * @param memory memory utilization, fraction 0..1
 */
public record AgentUtilization(double cpu, double memory) {

    /**
     * @throws IllegalArgumentException if either value is NaN or outside [0, 1], naming it
     */
    public AgentUtilization {
        requireFraction("cpu", cpu);
        requireFraction("memory", memory);
    }

    /** Whether {@code value} is a finite fraction in [0, 1]. */
    public static boolean isFraction(double value) {
        return value >= 0 && value <= 1;
    }

    static void requireFraction(String field, double value) {
        if (!isFraction(value)) {
            throw new IllegalArgumentException(field + " must be a fraction in [0, 1], was " + value);
        }
    }
}
