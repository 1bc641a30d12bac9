package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Phases of a fault run (before, down, after: the kill and the restart) and of a fleet run (three changes). */
class PhasesTest {

    private static final List<String> FAULT = List.of("before", "down", "after");
    private static final List<String> FLEET = List.of("before", "joined", "drained", "returned");

    private static TimedOutcome sentAt(long nanos) {
        return new TimedOutcome(RequestOutcome.success("r" + nanos, 1, "A1", 200, 0), nanos);
    }

    private static Phases fault(long kill, long restart) {
        return new Phases(FAULT, List.of(kill, restart));
    }

    @Test
    void aRequestBelongsToThePhaseItWasSentInWithTheKillAndTheRestartOpeningTheirPhases() {
        Phases phases = fault(1_000, 2_000);

        assertThat(phaseOf(phases, 999)).isEqualTo("before");
        assertThat(phaseOf(phases, 1_000)).isEqualTo("down");
        assertThat(phaseOf(phases, 1_999)).isEqualTo("down");
        assertThat(phaseOf(phases, 2_000)).isEqualTo("after");
    }

    @Test
    void everyRequestIsInExactlyOnePhase() {
        Phases phases = fault(1_000, 2_000);
        List<TimedOutcome> outcomes = List.of(sentAt(5_000), sentAt(0), sentAt(1_000), sentAt(999), sentAt(2_000),
                sentAt(1_500));

        List<List<TimedOutcome>> split = phases.split(outcomes);

        assertThat(split.get(0)).containsExactly(sentAt(0), sentAt(999));
        assertThat(split.get(1)).containsExactly(sentAt(1_000), sentAt(1_500));
        assertThat(split.get(2)).containsExactly(sentAt(5_000), sentAt(2_000));
        List<TimedOutcome> all = new ArrayList<>();
        split.forEach(all::addAll);
        assertThat(all).containsExactlyInAnyOrderElementsOf(outcomes);
    }

    @Test
    void everyPhaseIsPresentEvenWhenEmpty() {
        assertThat(fault(1_000, 2_000).split(List.of())).hasSize(3).allSatisfy(list -> assertThat(list).isEmpty());
    }

    @Test
    void phasesFollowNanoTimeAcrossItsWrapAround() {
        Phases phases = fault(Long.MAX_VALUE - 10, Long.MIN_VALUE + 10);

        assertThat(phaseOf(phases, Long.MAX_VALUE - 20)).isEqualTo("before");
        assertThat(phaseOf(phases, Long.MAX_VALUE)).isEqualTo("down");
        assertThat(phaseOf(phases, Long.MIN_VALUE + 10)).isEqualTo("after");
        assertThat(phases.durations(Long.MAX_VALUE - 110, Long.MIN_VALUE + 60)[1]).isEqualTo(21);
    }

    @Test
    void durationsRunFromTheStartToTheKillToTheRestartToTheEnd() {
        assertThat(fault(1_000, 2_500).durations(400, 3_000)).containsExactly(600L, 1_500L, 500L);
    }

    @Test
    void aChangeOpensItsPhaseAndEqualChangeTimesLeaveAPhaseEmpty() {
        Phases split = fault(10, 10);
        assertThat(phaseOf(split, 9)).isEqualTo("before");
        assertThat(phaseOf(split, 10)).isEqualTo("after");
        assertThat(split.durations(0, 25)).containsExactly(10L, 0L, 15L);
        assertThat(split.durations(12, 8)).containsExactly(0L, 0L, 0L);
    }

    @Test
    void oneChangeTimePerPhaseAfterTheFirstInOrder() {
        assertThatThrownBy(() -> new Phases(FAULT, List.of(1L))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("need 2 change times for 3 phases, were 1");
        assertThatThrownBy(() -> new Phases(FAULT, List.of(2L, 1L)))
                .hasMessage("change times must be in order, were [2, 1]");
        // A restart before the kill, a drain before the join: rejected alike.
        assertThatThrownBy(() -> fault(2_000, 1_999)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("change times must be in order, were [2000, 1999]");
        assertThatThrownBy(() -> new Phases(FLEET, List.of(2L, 1L, 3L))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("change times must be in order, were [2, 1, 3]");
    }

    @Test
    void aFleetRunsRequestBelongsToThePhaseItWasSentInAChangeOpeningItsPhase() {
        long ms = 1_000_000L;
        Phases phases = new Phases(FLEET, List.of(100 * ms, 200 * ms, 300 * ms));
        assertThat(phaseOf(phases, 99 * ms)).isEqualTo("before");
        assertThat(phaseOf(phases, 100 * ms)).isEqualTo("joined");
        assertThat(phaseOf(phases, 200 * ms - 1)).isEqualTo("joined");
        assertThat(phaseOf(phases, 200 * ms)).isEqualTo("drained");
        assertThat(phaseOf(phases, 300 * ms)).isEqualTo("returned");
        TimedOutcome early = new TimedOutcome(RequestOutcome.success("r1", 1, "A1", 200, 500 * ms), 10 * ms);
        TimedOutcome joined = new TimedOutcome(RequestOutcome.success("r2", 2, "A4", 200, 5 * ms), 150 * ms);
        TimedOutcome late = new TimedOutcome(RequestOutcome.success("r3", 3, "A3", 200, 5 * ms), 310 * ms);
        // answered long after the join: still before
        List<List<TimedOutcome>> split = phases.split(List.of(early, joined, late));
        assertThat(split.get(0)).containsExactly(early);
        assertThat(split.get(1)).containsExactly(joined);
        assertThat(split.get(2)).isEmpty();
        assertThat(split.get(3)).containsExactly(late);
        assertThat(phases.durations(40 * ms, 420 * ms)).containsExactly(60 * ms, 100 * ms, 100 * ms, 120 * ms);
    }

    /** The name of the phase of a request sent at {@code sentAtNanos}. */
    private static String phaseOf(Phases phases, long sentAtNanos) {
        return phases.names().get(phases.indexOf(sentAtNanos));
    }
}
