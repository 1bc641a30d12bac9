package io.github.agentlb.core.avn;

/**
 * {@code b_c}, {@code b_m} and {@code b_t} of the paper's eq. (3),
 * {@code L_i = 100 * (b_c * L_ci + b_m * L_mi + b_t * L_ti)}: the weights of CPU utilization,
 * memory utilization and request share in an agent's load index, each a fraction 0..1, summing to
 * 1 ({@link LoadIndex}). Immutable and thread-safe.
 *
 * @param cpu      {@code b_c}, fraction 0..1
 * @param memory   {@code b_m}, fraction 0..1
 * @param requests {@code b_t}, fraction 0..1
 */
public record LoadWeights(double cpu, double memory, double requests) {

    /** The paper's 0.4, 0.4 and 0.2. */
    public static final LoadWeights PAPER = new LoadWeights(0.4, 0.4, 0.2);

    /** How far from 1 a sum of weights may be, for decimal fractions such as 0.4 + 0.4 + 0.2. */
    static final double SUM_TOLERANCE = 1e-9;

    /**
     * @throws IllegalArgumentException if a weight is outside [0, 1] or they do not sum to 1, naming
     *                                  {@code loadCpuWeight}, {@code loadMemoryWeight} or {@code loadRequestWeight}
     */
    public LoadWeights {
        requireWeight("loadCpuWeight", cpu);
        requireWeight("loadMemoryWeight", memory);
        requireWeight("loadRequestWeight", requests);
        if (Math.abs(cpu + memory + requests - 1) > SUM_TOLERANCE) {
            throw new IllegalArgumentException("loadCpuWeight + loadMemoryWeight + loadRequestWeight must be 1, was "
                    + cpu + " + " + memory + " + " + requests);
        }
    }

    static void requireWeight(String field, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(field + " must be in [0, 1], was " + value);
        }
    }
}
