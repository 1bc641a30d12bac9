package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link AdaptiveVirtualNodes#observe}: another replica's keyed requests join the history, not the window. */
class ObservedPositionsTest {

    private static AdaptiveVirtualNodes avn(int window, int history) {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(30)
                .evaluationWindow(window).historySize(history).build(), () -> 0L);
        avn.setAgents(List.of("a", "b", "c"));
        return avn;
    }

    @Test
    void observedPositionsEnterTheHistoryWithoutClosingAWindow() {
        AdaptiveVirtualNodes avn = avn(30, 1000);
        for (int i = 0; i < 250; i++) {
            avn.observe(i * 7_919L);
        }
        assertThat(avn.windowRequests()).isZero();

        // The leader of three keeps its cadence: its 10th own request closes the window, not before.
        for (int i = 1; i < 10; i++) {
            assertThat(avn.record(-i, 3)).isFalse();
        }
        assertThat(avn.record(-10, 3)).isTrue();
        assertThat(avn.windowRequests()).isEqualTo(10);

        // The evaluation replays every position: 250 observed and 10 own.
        assertThat(avn.evaluate()).hasValueSatisfying(e -> assertThat(e.requests()).isEqualTo(260));
    }

    @Test
    void observedPositionsShareTheHistorysBound() {
        AdaptiveVirtualNodes avn = avn(30, 100);
        for (int i = 0; i < 40; i++) {
            avn.record(i);
        }
        for (int i = 0; i < 500; i++) {
            avn.observe(i);
        }
        assertThat(avn.windowRequests()).isEqualTo(40);
        assertThat(avn.evaluate()).hasValueSatisfying(e -> assertThat(e.requests()).isEqualTo(100));
    }
}
