package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Exact step tests of {@link MoveGuard}: hysteresis between 0.07 and 0.1, cooldown, reset. */
class MoveGuardTest {

    private static final AdaptiveVirtualNodesConfig DEFAULTS = AdaptiveVirtualNodesConfig.ofDefaults();
    private static final int MOVES = DEFAULTS.maxMovesPerEvaluation();

    @Test
    void movesStartAboveTheThresholdAndStopAtTheSettleThreshold() {
        MoveGuard guard = new MoveGuard(DEFAULTS);
        assertThat(guard.phase()).isEqualTo(MoveGuard.Phase.SETTLED);
        // settled: the band (0.07, 0.1] does not start moves
        assertThat(guard.movesAllowed(0.09)).isZero();
        assertThat(guard.movesAllowed(0.1)).isZero();
        assertThat(guard.phase()).isEqualTo(MoveGuard.Phase.SETTLED);
        assertThat(guard.movesAllowed(0.11)).isEqualTo(MOVES);
        assertThat(guard.phase()).isEqualTo(MoveGuard.Phase.ACTIVE);
        // active: the same band keeps moving
        assertThat(guard.movesAllowed(0.09)).isEqualTo(MOVES);
        assertThat(guard.movesAllowed(0.071)).isEqualTo(MOVES);
        assertThat(guard.movesAllowed(0.069)).isZero();
        assertThat(guard.phase()).isEqualTo(MoveGuard.Phase.SETTLED);
        assertThat(guard.movesAllowed(0.09)).isZero();
    }

    @Test
    void anEvaluationThatMovedIsFollowedByCooldownWindows() {
        AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.custom().cooldownWindows(2).build();
        MoveGuard guard = new MoveGuard(config);
        assertThat(guard.movesAllowed(0.3)).isEqualTo(MOVES);
        guard.moved(3);
        assertThat(guard.phase()).isEqualTo(MoveGuard.Phase.COOLDOWN);
        assertThat(guard.movesAllowed(0.3)).isZero();
        guard.moved(0);
        assertThat(guard.movesAllowed(0.3)).isZero();
        guard.moved(0);
        assertThat(guard.phase()).isEqualTo(MoveGuard.Phase.ACTIVE);
        assertThat(guard.movesAllowed(0.3)).isEqualTo(MOVES);
    }

    @Test
    void sDroppingDuringTheCooldownSettlesTheGuard() {
        MoveGuard guard = new MoveGuard(DEFAULTS);
        assertThat(guard.movesAllowed(0.3)).isEqualTo(MOVES);
        guard.moved(5);
        assertThat(guard.movesAllowed(0.05)).isZero();
        assertThat(guard.phase()).isEqualTo(MoveGuard.Phase.SETTLED);
        assertThat(guard.movesAllowed(0.09)).isZero();
    }

    @Test
    void anEvaluationWithoutMovesStartsNoCooldown() {
        MoveGuard guard = new MoveGuard(DEFAULTS);
        assertThat(guard.movesAllowed(0.2)).isEqualTo(MOVES);
        guard.moved(0);
        assertThat(guard.movesAllowed(0.2)).isEqualTo(MOVES);
    }

    @Test
    void resetReturnsToSettledWithoutCooldown() {
        MoveGuard guard = new MoveGuard(DEFAULTS);
        guard.movesAllowed(0.5);
        guard.moved(1);
        guard.reset();
        assertThat(guard.phase()).isEqualTo(MoveGuard.Phase.SETTLED);
        assertThat(guard.movesAllowed(0.09)).isZero();
        assertThat(guard.movesAllowed(0.5)).isEqualTo(MOVES);
    }

    @Test
    void thePaperRuleMovesWheneverSExceedsTheThreshold() {
        MoveGuard guard = new MoveGuard(AdaptiveVirtualNodesConfig.custom().paperRule().build());
        assertThat(guard.movesAllowed(0.11)).isEqualTo(1);
        guard.moved(1);
        assertThat(guard.movesAllowed(0.11)).isEqualTo(1);
        assertThat(guard.movesAllowed(0.1)).isZero();
        assertThat(guard.movesAllowed(0.1001)).isEqualTo(1);
    }
}
