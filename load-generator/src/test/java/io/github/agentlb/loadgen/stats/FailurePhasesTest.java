package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.loadgen.stats.FailurePhases.Phase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FailurePhasesTest {

    private static TimedOutcome sentAt(long nanos) {
        return new TimedOutcome(RequestOutcome.success("r" + nanos, 1, "A1", 200, 0), nanos);
    }

    @Test
    void aRequestBelongsToThePhaseItWasSentInWithTheKillAndTheRestartOpeningTheirPhases() {
        FailurePhases phases = new FailurePhases(1_000, 2_000);

        assertThat(phases.phaseOf(999)).isEqualTo(Phase.BEFORE);
        assertThat(phases.phaseOf(1_000)).isEqualTo(Phase.DOWN);
        assertThat(phases.phaseOf(1_999)).isEqualTo(Phase.DOWN);
        assertThat(phases.phaseOf(2_000)).isEqualTo(Phase.AFTER);
    }

    @Test
    void everyRequestIsInExactlyOnePhase() {
        FailurePhases phases = new FailurePhases(1_000, 2_000);
        List<TimedOutcome> outcomes = List.of(sentAt(5_000), sentAt(0), sentAt(1_000), sentAt(999), sentAt(2_000),
                sentAt(1_500));

        Map<Phase, List<TimedOutcome>> split = phases.split(outcomes);

        assertThat(split.get(Phase.BEFORE)).containsExactly(sentAt(0), sentAt(999));
        assertThat(split.get(Phase.DOWN)).containsExactly(sentAt(1_000), sentAt(1_500));
        assertThat(split.get(Phase.AFTER)).containsExactly(sentAt(5_000), sentAt(2_000));
        List<TimedOutcome> all = new ArrayList<>();
        split.values().forEach(all::addAll);
        assertThat(all).containsExactlyInAnyOrderElementsOf(outcomes);
    }

    @Test
    void everyPhaseIsPresentEvenWhenEmpty() {
        assertThat(new FailurePhases(1_000, 2_000).split(List.of()))
                .containsOnlyKeys(Phase.BEFORE, Phase.DOWN, Phase.AFTER)
                .allSatisfy((phase, list) -> assertThat(list).isEmpty());
    }

    @Test
    void phasesFollowNanoTimeAcrossItsWrapAround() {
        FailurePhases phases = new FailurePhases(Long.MAX_VALUE - 10, Long.MIN_VALUE + 10);

        assertThat(phases.phaseOf(Long.MAX_VALUE - 20)).isEqualTo(Phase.BEFORE);
        assertThat(phases.phaseOf(Long.MAX_VALUE)).isEqualTo(Phase.DOWN);
        assertThat(phases.phaseOf(Long.MIN_VALUE + 10)).isEqualTo(Phase.AFTER);
        assertThat(phases.durations(Long.MAX_VALUE - 110, Long.MIN_VALUE + 60).get(Phase.DOWN)).isEqualTo(21);
    }

    @Test
    void durationsRunFromTheStartToTheKillToTheRestartToTheEnd() {
        assertThat(new FailurePhases(1_000, 2_500).durations(400, 3_000))
                .containsOnly(Map.entry(Phase.BEFORE, 600L), Map.entry(Phase.DOWN, 1_500L), Map.entry(Phase.AFTER, 500L));
    }

    @Test
    void aRestartBeforeTheKillIsRejected() {
        assertThatThrownBy(() -> new FailurePhases(2_000, 1_999))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("restartNanos must be >= killNanos (2000), was 1999");
    }
}
