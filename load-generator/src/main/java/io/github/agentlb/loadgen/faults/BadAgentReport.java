package io.github.agentlb.loadgen.faults;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.run.HealthEventLog;
import io.github.agentlb.loadgen.stats.PhaseSplit;
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
import java.util.OptionalInt;

/**
 * What one strategy's busy or gray run measured, computed from the client's outcomes, the
 * balancer's attempts and health events and the two switch times alone (no I/O, no clock), so it
 * can be checked against figures worked out by hand.
 *
 * @param strategy          the strategy's name
 * @param answer            what A1 answered in the {@link BadAgentPhase#DURING} phase
 * @param config            the measured load
 * @param phases            per phase, the statistics of the requests sent in it
 * @param badAgentRequests  per phase, the attempts the balancer made on A1 that were sent in it:
 *                          what A1 received, its busy and error answers included
 * @param onSeconds         when A1 began to answer its fault, s from the first request
 * @param offSeconds        when A1 answered normally again, s from the first request
 * @param restMs            from the switch to A1's first busy answer, when the balancer rested it, ms;
 *                          NaN when it never answered busy
 * @param ejectionMs        from the switch to A1's first ejection, ms; NaN when it was not ejected
 * @param ejections         A1's ejections from the switch on
 * @param readmissions      A1's re-admissions while it answered its fault: each by an answer that
 *                          was not its fault (a request sent before the switch), as no trial can succeed
 * @param mostPerRest       the most attempts on A1 sent within any {@link BadAnswer#rest()} (a
 *                          half-open window), of those sent while it answered its fault or answered
 *                          with it (sent just before the switch); empty without a rest
 * @param timeline          requests answered per agent, and failed, per half second from the first request
 */
public record BadAgentReport(String strategy, BadAnswer answer, LoadTestConfig config,
                             Map<BadAgentPhase, RunStatistics> phases, Map<BadAgentPhase, Long> badAgentRequests,
                             double onSeconds, double offSeconds, double restMs, double ejectionMs, int ejections,
                             int readmissions, OptionalInt mostPerRest, Timeline timeline)
        implements PhasedReport<BadAgentPhase> {

    /** The agent that answers badly. */
    public static final String BAD_AGENT = "A1";
    /** Width of a timeline bucket. */
    static final Duration TIMELINE_BUCKET = Duration.ofMillis(500);

    public BadAgentReport {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(answer, "answer");
        phases = Collections.unmodifiableMap(new EnumMap<>(phases));
        badAgentRequests = Collections.unmodifiableMap(new EnumMap<>(badAgentRequests));
        Objects.requireNonNull(mostPerRest, "mostPerRest");
    }

    /**
     * The report of a run.
     *
     * @param agents   every agent of the run, listed even when it answered nothing
     * @param outcomes every request's outcome with its send time
     * @param attempts every attempt of the balancer, on the outcomes' clock
     * @param health   the balancer's ejections and re-admissions, on the outcomes' clock
     * @param onNanos  when A1 began to answer its fault
     * @param offNanos when A1 answered normally again, not before {@code onNanos}
     */
    static BadAgentReport of(String strategy, BadAnswer answer, LoadTestConfig config, List<String> agents,
                             List<TimedOutcome> outcomes, List<AttemptLog.Attempt> attempts, HealthEventLog health,
                             long onNanos, long offNanos) {
        PhaseSplit<BadAgentPhase> split = new PhaseSplit<>(BadAgentPhase.class, onNanos, offNanos);
        long start = outcomes.stream().mapToLong(TimedOutcome::sentAtNanos).min().orElse(onNanos);
        long end = outcomes.stream().mapToLong(TimedOutcome::completedAtNanos).max().orElse(offNanos);
        Map<BadAgentPhase, Long> durations = split.durations(start, end);
        Map<BadAgentPhase, RunStatistics> stats = new EnumMap<>(BadAgentPhase.class);
        split.split(outcomes).forEach((phase, list) -> stats.put(phase, RunStatistics.of(
                list.stream().map(TimedOutcome::outcome).toList(), agents, durations.get(phase))));
        List<AttemptLog.Attempt> onBad = attempts.stream().filter(a -> a.agentId().equals(BAD_AGENT)).toList();
        Map<BadAgentPhase, Long> received = new EnumMap<>(BadAgentPhase.class);
        for (BadAgentPhase phase : BadAgentPhase.values()) {
            received.put(phase, onBad.stream().filter(a -> split.phaseOf(a.startedNanos()) == phase).count());
        }
        double restMs = onBad.stream().filter(a -> a.outcome() == AttemptOutcome.BUSY && a.endedNanos() - onNanos >= 0)
                .mapToLong(a -> a.endedNanos() - onNanos).min().stream().mapToDouble(n -> n / 1e6).findFirst()
                .orElse(Double.NaN);
        double ejectionMs = health.nanosUntil(BAD_AGENT, HealthEventLog.Kind.EJECTED, onNanos).stream()
                .mapToDouble(n -> n / 1e6).findFirst().orElse(Double.NaN);
        OptionalInt most = answer.rest().isZero() ? OptionalInt.empty() : OptionalInt.of(mostWithin(
                onBad.stream().filter(a -> split.phaseOf(a.startedNanos()) == BadAgentPhase.DURING
                                || a.outcome() == AttemptOutcome.BUSY || a.outcome() == AttemptOutcome.ERROR_ANSWER)
                        .mapToLong(AttemptLog.Attempt::startedNanos).sorted().toArray(), answer.rest().toNanos()));
        return new BadAgentReport(strategy, answer, config, stats, received, (onNanos - start) / 1e9,
                (offNanos - start) / 1e9, restMs, ejectionMs, health.count(BAD_AGENT, HealthEventLog.Kind.EJECTED, onNanos),
                (int) health.events().stream().filter(e -> e.agentId().equals(BAD_AGENT)
                        && e.kind() == HealthEventLog.Kind.READMITTED && split.phaseOf(e.atNanos()) == BadAgentPhase.DURING)
                        .count(),
                most, Timeline.of(outcomes, start, TIMELINE_BUCKET, agents));
    }

    /** The most of the sorted instants {@code times} within any half-open window {@code [t, t + width)}; O(n). */
    static int mostWithin(long[] times, long width) {
        int most = 0;
        for (int first = 0, last = 0; last < times.length; last++) {
            while (times[last] - times[first] >= width) {
                first++;
            }
            most = Math.max(most, last - first + 1);
        }
        return most;
    }

    /** Clients that got A1's fault status ({@link BadAnswer#status()}) in {@code phase}. */
    public long badAnswersSeen(BadAgentPhase phase) {
        return phases.get(phase).errorStatuses().getOrDefault(answer.status(), 0L);
    }

    /** Clients that got A1's fault status over the run. */
    public long badAnswersSeen() {
        return phases.keySet().stream().mapToLong(this::badAnswersSeen).sum();
    }

    /** The most clients that may get A1's fault status: {@link BadAnswer#allowedClientErrors} of the requests sent during it. */
    public long allowedBadAnswers() {
        return answer.allowedClientErrors(phases.get(BadAgentPhase.DURING).requests());
    }

    /**
     * Client errors beyond what the trials allow: every error or timeout except A1's fault status
     * up to {@link #allowedBadAnswers()} (goal 0).
     */
    public long excessClientErrors() {
        return clientErrors() - Math.min(badAnswersSeen(), allowedBadAnswers());
    }

    /** Requests A1 received that were sent in {@code phase}, busy and error answers included. */
    public long badAgentRequests(BadAgentPhase phase) {
        return badAgentRequests.get(phase);
    }

    /**
     * Whether the run met the trials' bounds: no client error beyond the allowance and, for a
     * busy agent, at most {@link BadAnswer#MAX_PER_REST} requests to A1 within any of its rests.
     */
    public boolean withinBounds() {
        return excessClientErrors() == 0 && (mostPerRest.isEmpty() || mostPerRest.getAsInt() <= BadAnswer.MAX_PER_REST);
    }

    /** Requests {@code agent} answered in {@code phase}. */
    public long answered(BadAgentPhase phase, String agent) {
        var a = phases.get(phase).agents().get(agent);
        return a == null ? 0 : a.count();
    }
}
