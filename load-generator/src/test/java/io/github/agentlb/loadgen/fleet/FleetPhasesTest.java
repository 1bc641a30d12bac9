package io.github.agentlb.loadgen.fleet;

import static io.github.agentlb.loadgen.fleet.Outcomes.answered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetPhasesTest {

    private static final long MS = 1_000_000L;
    private final FleetPhases phases = new FleetPhases(100 * MS, 200 * MS, 300 * MS);

    @Test
    void theChangesComeJustBeforeRequestsAQuarterAHalfAndThreeQuartersIn() {
        assertThat(FleetPhase.BEFORE.startsAtRequest(1200)).isEqualTo(1);
        assertThat(FleetPhase.JOINED.startsAtRequest(1200)).isEqualTo(301);
        assertThat(FleetPhase.DRAINED.startsAtRequest(1200)).isEqualTo(601);
        assertThat(FleetPhase.RETURNED.startsAtRequest(1200)).isEqualTo(901);
        assertThat(FleetPhase.RETURNED.startsAtRequest(7)).isEqualTo(6); // 3 * 7 / 4 + 1
        assertThatThrownBy(() -> FleetPhase.JOINED.startsAtRequest(3))
                .hasMessage("requests must be >= 4 for four phases, was 3");
    }

    @Test
    void eachPhaseOpensWithTheChangeOfOneAgent() {
        assertThat(FleetPhase.BEFORE.opening()).isEqualTo("start");
        assertThat(FleetPhase.JOINED.opening()).isEqualTo("join A4");
        assertThat(FleetPhase.DRAINED.opening()).isEqualTo("drain A2");
        assertThat(FleetPhase.RETURNED.opening()).isEqualTo("return A2");
    }

    @Test
    void aRequestBelongsToThePhaseItWasSentInAChangeOpeningItsPhase() {
        assertThat(phases.phaseOf(99 * MS)).isEqualTo(FleetPhase.BEFORE);
        assertThat(phases.phaseOf(100 * MS)).isEqualTo(FleetPhase.JOINED);
        assertThat(phases.phaseOf(200 * MS - 1)).isEqualTo(FleetPhase.JOINED);
        assertThat(phases.phaseOf(200 * MS)).isEqualTo(FleetPhase.DRAINED);
        assertThat(phases.phaseOf(300 * MS)).isEqualTo(FleetPhase.RETURNED);
    }

    @Test
    void splitPutsEveryOutcomeInOnePhaseAndKeepsEmptyPhases() {
        TimedOutcome early = answered(1, "A1", 10, 500); // answered long after the join: still before
        TimedOutcome joined = answered(2, "A4", 150, 5);
        TimedOutcome late = answered(3, "A3", 310, 5);
        Map<FleetPhase, List<TimedOutcome>> split = phases.split(List.of(early, joined, late));
        assertThat(split.get(FleetPhase.BEFORE)).containsExactly(early);
        assertThat(split.get(FleetPhase.JOINED)).containsExactly(joined);
        assertThat(split.get(FleetPhase.DRAINED)).isEmpty();
        assertThat(split.get(FleetPhase.RETURNED)).containsExactly(late);
    }

    @Test
    void durationsRunFromChangeToChangeAndToTheEnds() {
        assertThat(phases.durations(40 * MS, 420 * MS)).isEqualTo(Map.of(FleetPhase.BEFORE, 60 * MS,
                FleetPhase.JOINED, 100 * MS, FleetPhase.DRAINED, 100 * MS, FleetPhase.RETURNED, 120 * MS));
    }

    @Test
    void changesOutOfOrderAreRejected() {
        assertThatThrownBy(() -> new FleetPhases(2, 1, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("changes must be in order join <= drain <= return, were 2, 1, 3");
    }
}
