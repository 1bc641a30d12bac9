package io.github.agentlb.core.avn;

import java.util.Objects;

/**
 * When an evaluation may move virtual nodes: the paper's rule (move while S exceeds the
 * threshold) with two guards against chasing noise, as a small state machine.
 *
 * <h2>Why</h2>
 * S is computed from CPU and memory reports and from the requests replayed over a window; on a
 * balanced fleet it fluctuates (measured on three equal agents: 0.01 to 0.16 from one
 * 50-request window to the next, as the reports are instantaneous). Under the bare rule every
 * fluctuation above 0.1 moves a virtual node, and every move re-homes the users on two arcs: 9
 * to 19 moves per 2,000 requests cost 5-10% of the users their stickiness for no balance gained;
 * and on an unbalanced fleet the moves stop right at 0.1, where the next fluctuation starts them
 * again. (The smoothing of the reports, in {@link AdaptiveVirtualNodes}, takes most of the
 * noise out of S; these guards keep the rest from moving nodes.)
 *
 * <h2>The guards</h2>
 * <ul>
 *   <li><b>Hysteresis.</b> The guard is {@link Phase#SETTLED} at start and whenever an evaluation
 *       finds {@code S <= settleThreshold}. While settled, moves are allowed only once
 *       {@code S > imbalanceThreshold} (the paper's trigger); then it is {@link Phase#ACTIVE} and
 *       moves are allowed, evaluation after evaluation, until S comes down to the settle
 *       threshold (half the threshold by default). A real imbalance (an agent at half capacity:
 *       S about 0.2-0.3) is corrected with a margin; a balanced ring rarely crosses 0.1.
 *   <li><b>Cooldown.</b> After an evaluation that moved, the next {@code cooldownWindows}
 *       evaluations ({@link Phase#COOLDOWN}) move nothing: the CPU and memory of the window just
 *       closed describe the old ring, the next window shows what the move did.
 * </ul>
 * With {@code settleThreshold == imbalanceThreshold} and {@code cooldownWindows == 0} this is the
 * paper's rule exactly ({@link AdaptiveVirtualNodesConfig.Builder#paperRule()}).
 *
 * <pre>{@code
 * int allowed = guard.movesAllowed(s);   // 0 or config.maxMovesPerEvaluation()
 * Evaluation e = Reallocation.evaluate(ring, shares, window, config, allowed);
 * guard.moved(e.moves().size());
 * }</pre>
 *
 * <p>Not thread-safe: {@link AdaptiveVirtualNodes} calls it under its evaluation lock. O(1).
 */
public final class MoveGuard {

    /** Where the guard stands. */
    public enum Phase {
        /** S came down to the settle threshold (or nothing was evaluated yet): moves wait for S above the threshold. */
        SETTLED,
        /** S exceeded the threshold and has not come down to the settle threshold: moves allowed. */
        ACTIVE,
        /** An evaluation moved nodes recently: the next evaluations move nothing. */
        COOLDOWN
    }

    private final AdaptiveVirtualNodesConfig config;
    private boolean settled = true;
    private int cooldownLeft;

    /** A guard in {@link Phase#SETTLED}. */
    public MoveGuard(AdaptiveVirtualNodesConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * Decides for one evaluation and advances the state: settles when
     * {@code imbalance <= settleThreshold}, activates when {@code imbalance > imbalanceThreshold},
     * and consumes one cooldown evaluation if any is left.
     *
     * @param imbalance S measured by this evaluation, a fraction >= 0
     * @return virtual nodes this evaluation may move: 0 or {@code maxMovesPerEvaluation}
     */
    public int movesAllowed(double imbalance) {
        if (imbalance <= config.settleThreshold()) {
            settled = true;
        } else if (imbalance > config.imbalanceThreshold()) {
            settled = false;
        }
        if (cooldownLeft > 0) {
            cooldownLeft--;
            return 0;
        }
        return settled ? 0 : config.maxMovesPerEvaluation();
    }

    /**
     * Records what the evaluation moved: any move starts a cooldown of {@code cooldownWindows}
     * evaluations.
     *
     * @param moves virtual nodes moved, >= 0
     */
    public void moved(int moves) {
        if (moves > 0) {
            cooldownLeft = config.cooldownWindows();
        }
    }

    /** Back to {@link Phase#SETTLED} with no cooldown, as after construction (new agents). */
    public void reset() {
        settled = true;
        cooldownLeft = 0;
    }

    /** The current phase: {@link Phase#COOLDOWN} while evaluations are left to skip. */
    public Phase phase() {
        if (cooldownLeft > 0) {
            return Phase.COOLDOWN;
        }
        return settled ? Phase.SETTLED : Phase.ACTIVE;
    }
}
