package io.github.agentlb.core.avn;

import io.github.agentlb.core.RelationException;

/**
 * When virtual nodes move ({@link MoveGuard}): moves start when the imbalance index S exceeds
 * {@code threshold}, go on, evaluation after evaluation, until S is at most {@code settle}, and
 * after an evaluation that moved, {@code cooldown} evaluations move nothing. With
 * {@code settle = threshold} and no cooldown this is the paper's rule. Immutable and thread-safe.
 *
 * @param threshold the paper's threshold on S, a fraction in (0, 1)
 * @param settle    the level S must come down to for moves to stop, a fraction in (0, threshold]
 * @param cooldown  evaluations without moves after one that moved, >= 0
 */
public record Hysteresis(double threshold, double settle, int cooldown) {

    /** The paper's threshold on S, 0.1: when S exceeds it, virtual nodes start to move. */
    public static final double DEFAULT_THRESHOLD = 0.1;
    /**
     * Unless set, the settle threshold is 0.7 times the threshold (0.07 by default). Stopping at
     * the threshold itself left the ring on the edge, where the next fluctuation started moves
     * again; 0.07 is above the S a balanced fleet shows (at most 0.057 on three equal live agents
     * with the defaults), so an active phase ends, and a real imbalance is corrected with a
     * margin (docs/avn-experiment.md, section d).
     */
    public static final double DEFAULT_SETTLE_FACTOR = 0.7;
    /**
     * Evaluations after one that moved virtual nodes during which no node moves, 1: the reports
     * of the window just closed describe the old ring, so the next window is left to show what
     * the move did before another move is judged.
     */
    public static final int DEFAULT_COOLDOWN = 1;
    /** {@link #DEFAULT_THRESHOLD}, {@link #DEFAULT_SETTLE_FACTOR} times it, {@link #DEFAULT_COOLDOWN}. */
    public static final Hysteresis DEFAULT =
            new Hysteresis(DEFAULT_THRESHOLD, DEFAULT_SETTLE_FACTOR * DEFAULT_THRESHOLD, DEFAULT_COOLDOWN);

    /**
     * @throws IllegalArgumentException if a value is out of its range, naming {@code imbalanceThreshold},
     *                                  {@code settleThreshold} or {@code cooldownWindows}
     */
    public Hysteresis {
        requireThreshold("imbalanceThreshold", threshold);
        requireThreshold("settleThreshold", settle);
        requireCooldown(cooldown);
        if (settle > threshold) {
            throw new RelationException("settleThreshold", "<=", "imbalanceThreshold", threshold, settle);
        }
    }

    static double requireThreshold(String field, double value) {
        if (!(value > 0 && value < 1)) {
            throw new IllegalArgumentException(field + " must be in (0, 1), was " + value);
        }
        return value;
    }

    static int requireCooldown(int windows) {
        if (windows < 0) {
            throw new IllegalArgumentException("cooldownWindows must be >= 0, was " + windows);
        }
        return windows;
    }
}
