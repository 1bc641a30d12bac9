package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.stats.LoadStatistics;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The figures of one load run from its {@link RequestOutcome}s alone: per agent its successes (known
 * agents with 0, so a starved one shows in the spread) and their spread, variance, CV, max/mean;
 * stickiness: of the users answered, the share whose answers all came from one agent; latencies of
 * the successes; throughput over the {@link SteadyWindow} ({@code steady}) if any, else the wall
 * time. Errors exclude timeouts, by HTTP status (0 = no answer). A figure not observed (of no
 * answer, or of no agent) is NaN.
 */
public record RunStatistics(int requests, long successes, long errors, long timeouts,
                            SortedMap<Integer, Long> errorStatuses, Map<String, AgentSummary> agents, int answeredUsers,
                            int stickyUsers, LatencySummary latency, long durationNanos, SteadyWindow steady) {

    /** One agent's successes, their share of all successes (0..1) and their latencies. */
    public record AgentSummary(String agentId, long count, double share, LatencySummary latency) {
    }

    public RunStatistics {
        errorStatuses = Collections.unmodifiableSortedMap(new TreeMap<>(errorStatuses));
        agents = Collections.unmodifiableMap(new LinkedHashMap<>(agents));
        Check.atLeast("durationNanos", durationNanos, 0);
    }

    /**
     * Adds outcomes one at a time, for a run too long to keep every outcome (a soak): memory grows
     * with the agents and users, not the requests. {@link #of} is this over a list. Not
     * thread-safe: callers on several threads synchronize.
     */
    public static final class Accumulator {
        private final SortedMap<String, LatencySummary.Recorder> perAgent = new TreeMap<>();
        private final LatencySummary.Recorder overall = new LatencySummary.Recorder();
        /** Each answered user's agent; {@code ""} once a second agent answered it. */
        private final Map<Integer, String> agentOfUser = new HashMap<>();
        private final SortedMap<Integer, Long> statuses = new TreeMap<>();
        private int requests;
        private long successes;
        private long errors;
        private long timeouts;

        public void add(RequestOutcome o) {
            requests++;
            switch (o.kind()) {
                case SUCCESS -> {
                    successes++;
                    perAgent.computeIfAbsent(o.agentId(), id -> new LatencySummary.Recorder()).record(o.latencyNanos());
                    overall.record(o.latencyNanos());
                    agentOfUser.merge(o.userId(), o.agentId(), (agent, next) -> agent.equals(next) ? agent : "");
                }
                case ERROR -> {
                    errors++;
                    statuses.merge(o.status(), 1L, Long::sum);
                }
                case TIMEOUT -> timeouts++;
            }
        }

        /** The statistics so far, as {@link RunStatistics#of}, with the throughput of {@code steady} when not {@code null}. */
        public RunStatistics statistics(Collection<String> knownAgents, long durationNanos, SteadyWindow steady) {
            SortedMap<String, LatencySummary.Recorder> all = new TreeMap<>(perAgent);
            knownAgents.forEach(id -> all.putIfAbsent(Objects.requireNonNull(id, "agent id"),
                    new LatencySummary.Recorder()));
            Map<String, AgentSummary> agents = new LinkedHashMap<>();
            all.forEach((id, recorder) -> {
                LatencySummary s = recorder.summary();
                agents.put(id, new AgentSummary(id, s.count(), successes == 0 ? 0 : (double) s.count() / successes, s));
            });
            return new RunStatistics(requests, successes, errors, timeouts, statuses, agents, agentOfUser.size(),
                    (int) agentOfUser.values().stream().filter(agent -> !agent.isEmpty()).count(), overall.summary(),
                    durationNanos, steady);
        }
    }

    /**
     * The statistics of a run's outcomes (any order) lasting {@code durationNanos} (wall time, ns,
     * >= 0); {@code knownAgents} listed even if they answered nothing (empty when unknown).
     */
    public static RunStatistics of(List<RequestOutcome> outcomes, Collection<String> knownAgents, long durationNanos) {
        Accumulator acc = new Accumulator();
        outcomes.forEach(acc::add);
        return acc.statistics(knownAgents, durationNanos, null);
    }

    /** The agents' request counts as {@link LoadStatistics}; empty when no agent is known. */
    public Optional<LoadStatistics> countStatistics() {
        return agents.isEmpty() ? Optional.empty()
                : Optional.of(LoadStatistics.of(agents.values().stream().map(AgentSummary::count).toList()));
    }

    /** Max minus min requests per agent. */
    public long spread() {
        return countStatistics().map(c -> Math.round(c.spread())).orElse(0L);
    }

    /** Population variance of requests per agent, requests squared. */
    public double variance() {
        return countStatistics().map(LoadStatistics::variance).orElse(0.0);
    }

    /** Coefficient of variation of requests per agent (standard deviation over mean), fraction; NaN when none answered. */
    public double coefficientOfVariation() {
        return successes == 0 ? Double.NaN : countStatistics().map(LoadStatistics::coefficientOfVariation).orElse(0.0);
    }

    /** Max over mean of requests per agent (1 = perfectly even); NaN when none answered. */
    public double maxOverMean() {
        return successes == 0 ? Double.NaN : countStatistics().map(LoadStatistics::maxOverMean).orElse(0.0);
    }

    public double meanPerAgent() {
        return countStatistics().map(LoadStatistics::mean).orElse(0.0);
    }

    /** The successful requests {@code agent} answered; 0 when it answered none. */
    public long answered(String agent) {
        AgentSummary a = agents.get(agent);
        return a == null ? 0 : a.count();
    }

    /** Errors and timeouts: the requests that failed as the client saw them. */
    public long clientErrors() {
        return errors + timeouts;
    }

    /** Sticky users over answered users, 0..1; NaN when no user was answered. */
    public double stickiness() {
        return answeredUsers == 0 ? Double.NaN : (double) stickyUsers / answeredUsers;
    }

    /** Wall time of the run, ms; NaN when no request was sent. */
    public double durationMs() {
        return requests == 0 ? Double.NaN : durationNanos / 1e6;
    }

    /**
     * Successful requests per second: of the {@code steady} window when there is one, else of
     * wall time; 0 for a zero duration.
     */
    public double throughputRps() {
        return steady != null ? steady.throughputRps() : durationNanos == 0 ? 0 : successes * 1e9 / durationNanos;
    }
}
