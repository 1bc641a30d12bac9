package io.github.agentlb.loadgen.stats;

import static io.github.agentlb.loadgen.stats.Outcomes.answered;
import static io.github.agentlb.loadgen.stats.Outcomes.failed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.loadgen.stats.Stickiness.KeyMoves;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyMovesTest {

    private static final Set<String> CHANGING = Set.of("A2", "A4");

    @Test
    void aUsersAgentInAPhaseIsThatOfItsLastSentAnsweredRequest() {
        Map<Integer, String> agents = KeyMoves.agentsAtEnd(List.of(
                answered(1, "A4", 20, 1), answered(1, "A1", 10, 50), // sent later, answered sooner: A4 is last
                answered(2, "A3", 10, 1), failed(2, 30), // a failure does not count
                failed(3, 5)));
        assertThat(agents).isEqualTo(Map.of(1, "A4", 2, "A3"));
    }

    @Test
    void movesAreCountedOverUsersAnsweredInBothPhases() {
        KeyMoves moves = KeyMoves.between(List.of(
                        answered(1, "A1", 0, 1), answered(2, "A1", 0, 1), answered(3, "A3", 0, 1),
                        answered(4, "A2", 0, 1), answered(5, "A1", 0, 1), answered(6, "A3", 0, 1)),
                List.of(answered(1, "A4", 100, 1), // to the agent that joined: its move
                        answered(2, "A1", 100, 1), // stayed
                        answered(3, "A1", 100, 1), // A3 -> A1: neither changed, another key moved
                        answered(4, "A3", 100, 1), // off the drained agent: its move
                        answered(5, "A1", 100, 1), // stayed
                        answered(7, "A2", 100, 1)), // only in the later phase: not compared
                CHANGING);
        assertThat(moves).isEqualTo(new KeyMoves(5, 3, 1));
        assertThat(movedShare(moves)).isEqualTo(0.6);
    }

    @Test
    void noUserInCommonComparesNothing() {
        KeyMoves moves = KeyMoves.between(List.of(answered(1, "A1", 0, 1)), List.of(answered(2, "A1", 5, 1)),
                CHANGING);
        assertThat(moves).isEqualTo(new KeyMoves(0, 0, 0));
        assertThat(movedShare(moves)).isZero();
    }

    @Test
    void inconsistentCountsAreRejected() {
        assertThatThrownBy(() -> new KeyMoves(2, 3, 0))
                .hasMessage("need 0 <= otherMoved <= moved <= compared, were 0, 3, 2");
    }

    /** The share of the compared users that moved; 0 when no user was compared. */
    private static double movedShare(KeyMoves moves) {
        return moves.compared() == 0 ? 0 : (double) moves.moved() / moves.compared();
    }
}
