package io.github.agentlb.core.avn;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The CPU and memory reports {@link AdaptiveVirtualNodes} judges agents by: each agent's latest
 * report with its time, dropped once older than {@link AdaptiveVirtualNodesConfig#reportExpiry()},
 * and the smoothed utilization of eq. (3), an exponentially weighted moving average over the
 * windows' mean reports ({@link AdaptiveVirtualNodesConfig#utilizationSmoothing()}).
 *
 * <p>{@link #latest} is lock-free; {@link #current} too. {@link #smooth} and {@link #restartSmoothing}
 * are called under the owner's lock. O(h) each, h = agents.
 */
final class UtilizationReports {

    private final Map<String, TimedReport> latest = new ConcurrentHashMap<>();
    private final AdaptiveVirtualNodesConfig config;
    private final LongSupplier nanoClock;
    /** Smoothed CPU and memory per agent; guarded by the owner's lock. */
    private final Map<String, AgentUtilization> smoothed = new HashMap<>();

    UtilizationReports(AdaptiveVirtualNodesConfig config, LongSupplier nanoClock) {
        this.config = config;
        this.nanoClock = nanoClock;
    }

    /** Keeps {@code utilization} as the agent's latest report, dated now. Lock-free. */
    void latest(String agent, AgentUtilization utilization) {
        latest.put(agent, new TimedReport(utilization, nanoClock.getAsLong()));
    }

    /** Forgets the reports of agents that are no longer members. */
    void retain(Collection<String> agents) {
        latest.keySet().retainAll(agents);
    }

    /** Agents whose latest report is at most {@code reportExpiry} old, to that report. */
    Map<String, AgentUtilization> current() {
        long now = nanoClock.getAsLong();
        long expiryNanos = config.reportExpiry().toNanos();
        Map<String, AgentUtilization> current = new HashMap<>();
        latest.forEach((agent, report) -> {
            if (now - report.nanos() <= expiryNanos) {
                current.put(agent, report.utilization());
            }
        });
        return current;
    }

    /**
     * EWMA over windows: {@code u = a * windowMean + (1 - a) * u}, {@code a} the configured
     * smoothing; an agent's first window after a restart is taken as is.
     *
     * @return agent id to its smoothed utilization, the agents of {@code windowMeans}
     */
    Map<String, AgentUtilization> smooth(Map<String, AgentUtilization> windowMeans) {
        double a = config.utilizationSmoothing();
        Map<String, AgentUtilization> next = new HashMap<>();
        windowMeans.forEach((agent, mean) -> {
            AgentUtilization previous = smoothed.get(agent);
            next.put(agent, previous == null ? mean : new AgentUtilization(
                    EvaluationWindow.clamp(a * mean.cpu() + (1 - a) * previous.cpu()),
                    EvaluationWindow.clamp(a * mean.memory() + (1 - a) * previous.memory())));
        });
        smoothed.clear();
        smoothed.putAll(next);
        return next;
    }

    /** Starts the average afresh: earlier reports describe another ring. */
    void restartSmoothing() {
        smoothed.clear();
    }

    private record TimedReport(AgentUtilization utilization, long nanos) {
    }
}
