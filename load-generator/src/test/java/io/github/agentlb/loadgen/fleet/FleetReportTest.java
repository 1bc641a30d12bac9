package io.github.agentlb.loadgen.fleet;

import static io.github.agentlb.loadgen.fleet.Outcomes.answered;
import static io.github.agentlb.loadgen.fleet.Outcomes.failed;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A fleet run's figures from hand-made outcomes; times in ms, the join at 100, the drain at 200, the return at 300. */
class FleetReportTest {

    private static final long MS = 1_000_000L;
    private static final List<String> AGENTS = List.of("A1", "A2", "A3", "A4");
    private static final Map<FleetPhase, FleetTrigger.Change> CHANGES = Map.of(
            FleetPhase.JOINED, new FleetTrigger.Change(FleetPhase.JOINED, 99 * MS, 100 * MS),
            FleetPhase.DRAINED, new FleetTrigger.Change(FleetPhase.DRAINED, 199 * MS, 200 * MS),
            FleetPhase.RETURNED, new FleetTrigger.Change(FleetPhase.RETURNED, 299 * MS, 300 * MS));

    private static FleetReport report(List<TimedOutcome> outcomes, Long leftNanos) {
        LoadTestConfig config = LoadTestConfig.custom().requests(outcomes.size()).users(1).warmup(0).build();
        return FleetReport.of("ch", config, SlowStart.DEMO, AGENTS, outcomes, CHANGES, leftNanos);
    }

    @Test
    void countsPerAgentPerPhaseErrorsAndTheChangeTimes() {
        FleetReport r = report(List.of(
                answered(1, "A1", 0, 10), answered(2, "A2", 10, 10),
                answered(1, "A4", 110, 10), failed(2, 120),
                answered(1, "A4", 210, 10),
                answered(1, "A4", 310, 10), answered(2, "A2", 320, 10)), 230 * MS);
        assertThat(r.requests()).isEqualTo(7);
        assertThat(r.answered(FleetPhase.BEFORE, "A1")).isEqualTo(1);
        assertThat(r.answered(FleetPhase.BEFORE, "A4")).isZero();
        assertThat(r.answered(FleetPhase.JOINED, "A4")).isEqualTo(1);
        assertThat(r.answered(FleetPhase.RETURNED, "A2")).isEqualTo(1);
        assertThat(r.clientErrors(FleetPhase.JOINED)).isEqualTo(1);
        assertThat(r.clientErrors()).isEqualTo(1);
        assertThat(r.changeSeconds()).isEqualTo(Map.of(FleetPhase.JOINED, 0.1, FleetPhase.DRAINED, 0.2,
                FleetPhase.RETURNED, 0.3));
        assertThat(r.drainMs()).isEqualTo(31.0); // from the call at 199 ms to leaving at 230 ms
        assertThat(r.timeline().totals()).isEqualTo(Map.of("A1", 1L, "A2", 2L, "A3", 0L, "A4", 3L));
    }

    @Test
    void keysMovedArePerPhaseAndOnlyMovesBetweenUnchangedAgentsAreOthers() {
        FleetReport r = report(List.of(
                answered(1, "A1", 0, 10), answered(2, "A2", 0, 10), answered(3, "A3", 0, 10),
                answered(1, "A4", 110, 10), answered(2, "A2", 110, 10), answered(3, "A1", 110, 10),
                answered(1, "A4", 210, 10), answered(2, "A3", 210, 10), answered(3, "A1", 210, 10),
                answered(1, "A4", 310, 10), answered(2, "A2", 310, 10), answered(3, "A1", 310, 10)), null);
        assertThat(r.moves()).isEqualTo(Map.of(FleetPhase.JOINED, new KeyMoves(3, 2, 1),
                FleetPhase.DRAINED, new KeyMoves(3, 1, 0), FleetPhase.RETURNED, new KeyMoves(3, 1, 0)));
        assertThat(r.otherKeysMoved()).isEqualTo(1);
        assertThat(r.drainMs()).isNaN();
    }

    @Test
    void theDrainedAgentsAnswersAreInFlightOnlyWhenSentBeforeTheDrain() {
        FleetReport r = report(List.of(
                answered(1, "A2", 150, 60), // sent before, answered after the drain began: in flight
                answered(2, "A2", 190, 5), // answered before the drain: neither
                answered(3, "A2", 250, 40), // sent after the drain, answered before the return: chosen while drained
                answered(4, "A2", 290, 20), // answered after the return began: may have been chosen after it
                answered(5, "A4", 50, 49), // answered when the join began: before it joined
                answered(6, "A4", 50, 60)), null); // answered after the join began
        assertThat(r.inFlightAtDrain()).isEqualTo(1);
        assertThat(r.drainedAnswers()).isEqualTo(1);
        assertThat(r.earlyJoinAnswers()).isEqualTo(1);
    }
}
