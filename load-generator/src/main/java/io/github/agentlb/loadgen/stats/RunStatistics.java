package io.github.agentlb.loadgen.stats;

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
 * The measured figures of one load run, computed from its {@link RequestOutcome}s alone (no I/O,
 * no clock), so they can be checked against values worked out by hand.
 *
 * <ul>
 *   <li>Counts per agent are of successful requests only. Agents passed as {@code knownAgents}
 *       appear with a count of 0 when they answered nothing, so a starved agent shows up in the
 *       spread.
 *   <li>Spread, variance (population), coefficient of variation and max/mean are those of the
 *       per-agent counts, computed by the library's {@link LoadStatistics}; all 0 when no agent
 *       is known.
 *   <li>Stickiness: among users with at least one successful answer, the fraction whose
 *       successful answers all came from one agent (0..1; 0 when no user was answered). Failed
 *       requests neither break nor make a user's stickiness: a user's request that timed out
 *       tells nothing about where the balancer sent it.
 *   <li>Latencies ({@link LatencySummary}) are of successful requests, per agent and overall.
 *   <li>Throughput: successful requests per second of the run's {@link SteadyWindow} when it has
 *       one (a closed count-bound run), else of its wall time.
 * </ul>
 * Immutable and thread-safe.
 */
public final class RunStatistics {

    private final int requests;
    private final long successes;
    private final long errors;
    private final long timeouts;
    private final SortedMap<Integer, Long> errorStatuses;
    private final Map<String, AgentSummary> agents;
    private final LoadStatistics counts;
    private final int answeredUsers;
    private final int stickyUsers;
    private final LatencySummary latency;
    private final long durationNanos;
    private final SteadyWindow steady;

    private RunStatistics(Accumulator acc, Collection<String> knownAgents, long durationNanos, SteadyWindow steady) {
        this.requests = acc.requests;
        this.durationNanos = durationNanos;
        this.steady = steady;
        SortedMap<String, LatencySummary.Recorder> perAgent = new TreeMap<>(acc.perAgent);
        knownAgents.forEach(id -> perAgent.putIfAbsent(Objects.requireNonNull(id, "agent id"),
                new LatencySummary.Recorder()));
        this.successes = acc.successes;
        this.errors = acc.errors;
        this.timeouts = acc.timeouts;
        this.errorStatuses = Collections.unmodifiableSortedMap(new TreeMap<>(acc.statuses));
        Map<String, AgentSummary> summaries = new LinkedHashMap<>();
        long total = acc.successes;
        perAgent.forEach((id, recorder) -> {
            LatencySummary s = recorder.summary();
            summaries.put(id, new AgentSummary(id, s.count(), total == 0 ? 0 : (double) s.count() / total, s));
        });
        this.agents = Collections.unmodifiableMap(summaries);
        this.counts = summaries.isEmpty() ? null
                : LoadStatistics.of(summaries.values().stream().map(AgentSummary::count).toList());
        this.answeredUsers = acc.userSticky.size();
        this.stickyUsers = (int) acc.userSticky.values().stream().filter(Boolean::booleanValue).count();
        this.latency = acc.overall.summary();
    }

    /**
     * Adds outcomes one at a time, for a run too long to keep every outcome (a soak): memory grows
     * with the agents and users, not the requests. {@link #of} is this over a list. Not
     * thread-safe: callers on several threads synchronize.
     */
    public static final class Accumulator {
        private final SortedMap<String, LatencySummary.Recorder> perAgent = new TreeMap<>();
        private final LatencySummary.Recorder overall = new LatencySummary.Recorder();
        private final Map<Integer, String> agentOfUser = new HashMap<>();
        private final Map<Integer, Boolean> userSticky = new HashMap<>();
        private final SortedMap<Integer, Long> statuses = new TreeMap<>();
        private int requests;
        private long successes;
        private long errors;
        private long timeouts;

        /** Counts one outcome. */
        public void add(RequestOutcome o) {
            requests++;
            switch (o.kind()) {
                case SUCCESS -> {
                    successes++;
                    perAgent.computeIfAbsent(o.agentId(), id -> new LatencySummary.Recorder()).record(o.latencyNanos());
                    overall.record(o.latencyNanos());
                    String first = agentOfUser.putIfAbsent(o.userId(), o.agentId());
                    userSticky.merge(o.userId(), first == null || first.equals(o.agentId()), Boolean::logicalAnd);
                }
                case ERROR -> {
                    errors++;
                    statuses.merge(o.status(), 1L, Long::sum);
                }
                case TIMEOUT -> timeouts++;
            }
        }

        /**
         * The statistics of what was added, as {@link RunStatistics#of}.
         *
         * @throws IllegalArgumentException if {@code durationNanos < 0}
         */
        public RunStatistics statistics(Collection<String> knownAgents, long durationNanos) {
            return statistics(knownAgents, durationNanos, null);
        }

        /** As {@link #statistics(Collection, long)}, with the throughput of {@code steady} when not {@code null}. */
        public RunStatistics statistics(Collection<String> knownAgents, long durationNanos, SteadyWindow steady) {
            Objects.requireNonNull(knownAgents, "knownAgents");
            if (durationNanos < 0) {
                throw new IllegalArgumentException("durationNanos must be >= 0, was " + durationNanos);
            }
            return new RunStatistics(this, knownAgents, durationNanos, steady);
        }
    }

    /**
     * Computes the statistics of a run.
     *
     * @param outcomes      every request's outcome, in any order
     * @param knownAgents   agents that took part, listed even if they answered nothing (may be
     *                      empty when unknown, e.g. behind an external balancer)
     * @param durationNanos wall time of the run, ns (>= 0)
     * @throws IllegalArgumentException if {@code durationNanos < 0}
     */
    public static RunStatistics of(List<RequestOutcome> outcomes, Collection<String> knownAgents, long durationNanos) {
        Objects.requireNonNull(outcomes, "outcomes");
        Accumulator acc = new Accumulator();
        outcomes.forEach(acc::add);
        return acc.statistics(knownAgents, durationNanos);
    }

    /**
     * The statistics of a closed count-bound run: as {@link #of(List, Collection, long)}, with the
     * throughput of the run's {@link SteadyWindow} {@code steady} when it has one ({@code null}
     * for none).
     */
    public static RunStatistics of(List<RequestOutcome> outcomes, Collection<String> knownAgents, long durationNanos,
                                   SteadyWindow steady) {
        Accumulator acc = new Accumulator();
        outcomes.forEach(acc::add);
        return acc.statistics(knownAgents, durationNanos, steady);
    }

    /** Requests sent (every outcome). */
    public int requests() {
        return requests;
    }

    /** Requests answered by an agent. */
    public long successes() {
        return successes;
    }

    /** Requests with a non-2xx, unusable or no answer (not counting timeouts). */
    public long errors() {
        return errors;
    }

    /** Requests that got no answer within the timeout. */
    public long timeouts() {
        return timeouts;
    }

    /** Errors by HTTP status (0 = no HTTP answer), ascending; unmodifiable. */
    public SortedMap<Integer, Long> errorStatuses() {
        return errorStatuses;
    }

    /** Per-agent figures, by agent id ascending; unmodifiable. */
    public Map<String, AgentSummary> agents() {
        return agents;
    }

    /** The agents' request counts as {@link LoadStatistics}; empty when no agent is known. */
    public Optional<LoadStatistics> countStatistics() {
        return Optional.ofNullable(counts);
    }

    /** Max minus min requests per agent. */
    public long spread() {
        return counts == null ? 0 : Math.round(counts.spread());
    }

    /** Population variance of requests per agent, requests squared. */
    public double variance() {
        return counts == null ? 0 : counts.variance();
    }

    /** Coefficient of variation of requests per agent (standard deviation over mean), fraction. */
    public double coefficientOfVariation() {
        return counts == null ? 0 : counts.coefficientOfVariation();
    }

    /** Max over mean of requests per agent (1 = perfectly even). */
    public double maxOverMean() {
        return counts == null ? 0 : counts.maxOverMean();
    }

    /** Mean requests per agent. */
    public double meanPerAgent() {
        return counts == null ? 0 : counts.mean();
    }

    /** Users with at least one successful answer. */
    public int answeredUsers() {
        return answeredUsers;
    }

    /** Answered users whose successful answers all came from one agent. */
    public int stickyUsers() {
        return stickyUsers;
    }

    /** {@link #stickyUsers()} over {@link #answeredUsers()}, fraction 0..1; 0 when no user was answered. */
    public double stickiness() {
        return answeredUsers == 0 ? 0 : (double) stickyUsers / answeredUsers;
    }

    /** Response times of all successful requests. */
    public LatencySummary latency() {
        return latency;
    }

    /** Wall time of the run, ms. */
    public double durationMs() {
        return durationNanos / 1e6;
    }

    /**
     * Successful requests per second: of the {@link #steadyWindow()} when there is one, else of
     * wall time; 0 for a zero duration.
     */
    public double throughputRps() {
        if (steady != null) {
            return steady.throughputRps();
        }
        return durationNanos == 0 ? 0 : successes * 1e9 / durationNanos;
    }

    /** The window {@link #throughputRps()} counts over, when not the whole wall time. */
    public Optional<SteadyWindow> steadyWindow() {
        return Optional.ofNullable(steady);
    }
}
