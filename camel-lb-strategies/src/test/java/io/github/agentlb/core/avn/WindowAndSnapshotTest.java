package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The evaluation window's bookkeeping and the snapshot it hands to {@link Reallocation}. */
class WindowAndSnapshotTest {

    @Test
    void snapshotCopiesItsPositionsInAndOut() {
        long[] positions = {3, 1, 2};
        WindowSnapshot snapshot = WindowSnapshot.of(positions);
        positions[0] = 99;
        snapshot.positions()[1] = 99;

        assertThat(snapshot.positions()).containsExactly(3, 1, 2);
        assertThat(snapshot.utilization()).isEmpty();
    }

    @Test
    void snapshotsAreEqualByContentAndSayHowManyPositionsTheyHold() {
        Map<String, AgentUtilization> util = Map.of("a", new AgentUtilization(0.5, 0.25));
        WindowSnapshot one = new WindowSnapshot(new long[] {1, 2}, util);
        WindowSnapshot same = new WindowSnapshot(new long[] {1, 2}, new HashMap<>(util));

        assertThat(one).isEqualTo(same).hasSameHashCodeAs(same);
        assertThat(one.hashCode()).isEqualTo(31 * java.util.Arrays.hashCode(new long[] {1, 2}) + util.hashCode());
        assertThat(one).isNotEqualTo(new WindowSnapshot(new long[] {1, 3}, util));
        assertThat(one).isNotEqualTo(new WindowSnapshot(new long[] {1, 2}, Map.of()));
        assertThat(one).isNotEqualTo("WindowSnapshot");
        assertThat(one.toString())
                .isEqualTo("WindowSnapshot[positions=2, utilization={a=AgentUtilization[cpu=0.5, memory=0.25]}]");
    }

    @Test
    void windowAveragesEachAgentsReportsAndFallsBackToTheLatestWithoutAny() {
        EvaluationWindow window = new EvaluationWindow(List.of("a", "b", "c"));
        assertThat(window.report("a", new AgentUtilization(0.25, 0.5))).isTrue();
        assertThat(window.report("a", new AgentUtilization(0.75, 1.0))).isTrue();
        assertThat(window.report("x", new AgentUtilization(0.5, 0.5))).isFalse();

        AgentUtilization latestB = new AgentUtilization(0.125, 0.375);
        Map<String, AgentUtilization> utilization = window.utilization(
                Map.of("a", new AgentUtilization(0.75, 1.0), "b", latestB));

        // a: the mean of its two reports; b: no report in the window, its latest; c: no current report
        assertThat(utilization).containsOnly(
                Map.entry("a", new AgentUtilization(0.5, 0.75)), Map.entry("b", latestB));
    }

    @Test
    void anAgentWhoseReportExpiredHasNoUtilizationWhateverTheWindowHolds() {
        EvaluationWindow window = new EvaluationWindow(List.of("a"));
        window.report("a", new AgentUtilization(0.5, 0.5));

        assertThat(window.utilization(Map.of())).isEmpty();
    }

    @Test
    void clampKeepsMeansInsideZeroToOne() {
        assertThat(EvaluationWindow.clamp(1.0000000000000002)).isEqualTo(1.0);
        assertThat(EvaluationWindow.clamp(-1e-17)).isEqualTo(0.0);
        assertThat(EvaluationWindow.clamp(0.5)).isEqualTo(0.5);
    }
}
