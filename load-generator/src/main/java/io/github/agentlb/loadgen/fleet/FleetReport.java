package io.github.agentlb.loadgen.fleet;

import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.stats.PhasedReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import io.github.agentlb.loadgen.stats.Timeline;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What one strategy's fleet run measured, computed from the client's outcomes and the times of
 * the changes alone (no I/O, no clock), so it can be checked against figures worked out by hand.
 *
 * @param strategy         the strategy's name
 * @param config           the measured load
 * @param slowStart        the balancer's slow start of added agents
 * @param phases           per phase, the statistics of the requests sent in it ({@link FleetPhases})
 * @param changeSeconds    per phase after the first, when its change was applied, s from the first request
 * @param drainMs          from the call that drained A2 to its leaving (its last request in flight
 *                         ended), ms; NaN when it had not left before its return
 * @param moves            per phase after the first, the keys moved from the phase before ({@link KeyMoves})
 * @param inFlightAtDrain  A2's answers to requests sent before its drain and answered after it began
 * @param drainedAnswers   A2's answers to requests sent after its drain and answered before its return
 *                         began: the balancer chose it while drained (goal 0)
 * @param earlyJoinAnswers A4's answers that came before its join began (goal 0)
 * @param timeline         requests answered per agent per second, from the first request
 */
public record FleetReport(String strategy, LoadTestConfig config, SlowStart slowStart,
                          Map<FleetPhase, RunStatistics> phases, Map<FleetPhase, Double> changeSeconds, double drainMs,
                          Map<FleetPhase, KeyMoves> moves, int inFlightAtDrain, int drainedAnswers,
                          int earlyJoinAnswers, Timeline timeline)
        implements PhasedReport<FleetPhase> {

    /** Width of a timeline bucket. */
    static final Duration TIMELINE_BUCKET = Duration.ofMillis(500);
    /** The agents that join or leave: a key move from or to one of them is theirs. */
    static final Set<String> CHANGING = Set.of(FleetPhase.JOINING, FleetPhase.LEAVING);

    public FleetReport {
        Objects.requireNonNull(strategy, "strategy");
        phases = Collections.unmodifiableMap(new EnumMap<>(phases));
        changeSeconds = Collections.unmodifiableMap(new EnumMap<>(changeSeconds));
        moves = Collections.unmodifiableMap(new EnumMap<>(moves));
    }

    /**
     * The report of a run.
     *
     * @param agents    every agent of the run, listed even when it answered nothing
     * @param outcomes  every request's outcome with its send time
     * @param changes   the changes as made, by the phase each opens
     * @param leftNanos when A2 had left after its drain, run clock; null if it had not
     */
    static FleetReport of(String strategy, LoadTestConfig config, SlowStart slowStart, List<String> agents,
                          List<TimedOutcome> outcomes, Map<FleetPhase, FleetTrigger.Change> changes, Long leftNanos) {
        FleetTrigger.Change join = changes.get(FleetPhase.JOINED);
        FleetTrigger.Change drain = changes.get(FleetPhase.DRAINED);
        FleetTrigger.Change back = changes.get(FleetPhase.RETURNED);
        FleetPhases phases = new FleetPhases(join.appliedNanos(), drain.appliedNanos(), back.appliedNanos());
        long start = outcomes.stream().mapToLong(TimedOutcome::sentAtNanos).min().orElse(join.beganNanos());
        long end = outcomes.stream().mapToLong(TimedOutcome::completedAtNanos).max().orElse(back.appliedNanos());
        Map<FleetPhase, List<TimedOutcome>> split = phases.split(outcomes);
        Map<FleetPhase, Long> durations = phases.durations(start, end);
        Map<FleetPhase, RunStatistics> stats = new EnumMap<>(FleetPhase.class);
        split.forEach((phase, list) -> stats.put(phase, RunStatistics.of(
                list.stream().map(TimedOutcome::outcome).toList(), agents, durations.get(phase))));
        Map<FleetPhase, Double> seconds = new EnumMap<>(FleetPhase.class);
        Map<FleetPhase, KeyMoves> moves = new EnumMap<>(FleetPhase.class);
        for (FleetPhase phase : FleetPhase.values()) {
            if (phase != FleetPhase.BEFORE) {
                seconds.put(phase, (changes.get(phase).appliedNanos() - start) / 1e9);
                moves.put(phase, KeyMoves.between(split.get(FleetPhase.values()[phase.ordinal() - 1]), split.get(phase),
                        CHANGING));
            }
        }
        double drainMs = leftNanos == null ? Double.NaN : Math.max(0, leftNanos - drain.beganNanos()) / 1e6;
        int inFlight = count(outcomes, FleetPhase.LEAVING,
                o -> o.sentAtNanos() - drain.appliedNanos() < 0 && o.completedAtNanos() - drain.beganNanos() >= 0);
        int drained = count(outcomes, FleetPhase.LEAVING,
                o -> o.sentAtNanos() - drain.appliedNanos() >= 0 && o.completedAtNanos() - back.beganNanos() <= 0);
        int early = count(outcomes, FleetPhase.JOINING, o -> o.completedAtNanos() - join.beganNanos() <= 0);
        return new FleetReport(strategy, config, slowStart, stats, seconds, drainMs, moves, inFlight, drained, early,
                Timeline.of(outcomes, start, TIMELINE_BUCKET, agents));
    }

    private static int count(List<TimedOutcome> outcomes, String agent, Predicate<TimedOutcome> when) {
        return (int) outcomes.stream()
                .filter(o -> o.outcome().isSuccess() && o.outcome().agentId().equals(agent) && when.test(o)).count();
    }

    /** Keys moved between two agents that never joined or left, over the run (0 for {@code ch}). */
    public int otherKeysMoved() {
        return moves.values().stream().mapToInt(KeyMoves::otherMoved).sum();
    }

    /** Requests {@code agent} answered in {@code phase}. */
    public long answered(FleetPhase phase, String agent) {
        var a = phases.get(phase).agents().get(agent);
        return a == null ? 0 : a.count();
    }
}
