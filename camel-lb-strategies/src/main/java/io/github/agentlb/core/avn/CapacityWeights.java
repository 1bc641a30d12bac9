package io.github.agentlb.core.avn;

/**
 * {@code a_c} and {@code a_m} of the paper's eq. (1), {@code P_i = a_c * P_ci + a_m * P_mi}: how
 * much start-up CPU and memory utilization count in an agent's performance indicator, each a
 * fraction 0..1, summing to 1. Immutable and thread-safe.
 *
 * @param cpu    {@code a_c}, fraction 0..1
 * @param memory {@code a_m}, fraction 0..1
 */
public record CapacityWeights(double cpu, double memory) {

    /** The paper's 0.5 and 0.5. */
    public static final CapacityWeights PAPER = new CapacityWeights(0.5, 0.5);

    /**
     * @throws IllegalArgumentException if a weight is outside [0, 1] or they do not sum to 1, naming
     *                                  {@code capacityCpuWeight} or {@code capacityMemoryWeight}
     */
    public CapacityWeights {
        LoadWeights.requireWeight("capacityCpuWeight", cpu);
        LoadWeights.requireWeight("capacityMemoryWeight", memory);
        if (Math.abs(cpu + memory - 1) > LoadWeights.SUM_TOLERANCE) {
            throw new IllegalArgumentException("capacityCpuWeight + capacityMemoryWeight must be 1, was "
                    + cpu + " + " + memory);
        }
    }
}
