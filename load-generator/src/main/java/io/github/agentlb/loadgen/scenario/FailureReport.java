package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.stats.FailoverStickiness;
import io.github.agentlb.loadgen.stats.FailurePhases.Phase;
import io.github.agentlb.loadgen.stats.PhasedReport;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.Timeline;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * One strategy's fault run, ready to be written: what was run and what each phase measured.
 *
 * @param strategy              the strategy label, e.g. {@code ch}
 * @param fault                 what the agent did while down
 * @param config                the measured load's shape
 * @param proxyRequestTimeoutMs the proxy's per-attempt answer timeout, ms
 * @param balancerSettings      the balancer's failure settings as configured (outlier ejection,
 *                              failover), for the report
 * @param deadAgent             the agent that was killed, e.g. {@code A1}
 * @param killSeconds           when the kill began, s from the first request sent
 * @param restartSeconds        when the restarted agent listened, s from the first request sent
 * @param phases                each phase's figures ({@link RunStatistics} of its requests), every phase present
 * @param overProxyTimeout      per phase, requests (any outcome) whose client-side latency reached
 *                              {@code proxyRequestTimeoutMs}: each waited out at least one attempt
 *                              on an agent that did not answer; every phase present
 * @param stickiness            who kept their agent
 * @param health                when the balancer noticed the fault and its end
 * @param timeline              requests per agent over time
 */
public record FailureReport(String strategy, Fault fault, LoadTestConfig config, int proxyRequestTimeoutMs,
                           String balancerSettings, String deadAgent, double killSeconds, double restartSeconds,
                           Map<Phase, RunStatistics> phases, Map<Phase, Long> overProxyTimeout,
                           FailoverStickiness stickiness, HealthTimes health,
                           Timeline timeline)
        implements PhasedReport<Phase> {

    /**
     * When the balancer noticed the fault and its end; NaN for what was not observed (no ejection,
     * or no re-admission, during the run).
     *
     * @param killToEjectionMs         from the kill to the dead agent's first ejection, ms
     * @param restartToReadmissionMs   from the restart to the dead agent's first re-admission, ms
     * @param deadAgentEjections       ejections of the dead agent from the kill on (a failed trial
     *                                 re-ejects, so several while it is down)
     * @param otherEjections           ejections of the agents that never failed (goal 0)
     */
    public record HealthTimes(double killToEjectionMs, double restartToReadmissionMs, int deadAgentEjections,
                              int otherEjections) {
    }

    public FailureReport {
        RunReport.requireLabel(strategy);
        Objects.requireNonNull(fault, "fault");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(deadAgent, "deadAgent");
        Objects.requireNonNull(stickiness, "stickiness");
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(timeline, "timeline");
        for (Phase p : Phase.values()) {
            Objects.requireNonNull(phases.get(p), () -> "phases must hold " + p);
            Objects.requireNonNull(overProxyTimeout.get(p), () -> "overProxyTimeout must hold " + p);
        }
        phases = Collections.unmodifiableMap(new EnumMap<>(phases));
        overProxyTimeout = Collections.unmodifiableMap(new EnumMap<>(overProxyTimeout));
    }

    /** p99 latency of the down phase over that of the before phase; NaN when the before phase has none. */
    public double downP99OverBefore() {
        double before = phases.get(Phase.BEFORE).latency().p99Ms();
        return before == 0 ? Double.NaN : phases.get(Phase.DOWN).latency().p99Ms() / before;
    }
}
