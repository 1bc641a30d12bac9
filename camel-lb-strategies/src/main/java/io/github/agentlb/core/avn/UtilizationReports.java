package io.github.agentlb.core.avn;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The CPU and memory reports {@link AdaptiveVirtualNodes} judges hosts by: each host's latest
 * report with its time, dropped once older than {@link AdaptiveVirtualNodesConfig#reportExpiry()},
 * and the smoothed utilization of eq. (3), an exponentially weighted moving average over the
 * windows' mean reports ({@link AdaptiveVirtualNodesConfig#utilizationSmoothing()}).
 *
 * <p>{@link #latest} is lock-free; {@link #current} too. {@link #smooth} and {@link #restartSmoothing}
 * are called under the owner's lock. O(h) each, h = hosts.
 */
final class UtilizationReports {

    private final Map<String, TimedReport> latest = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;
    private final long expiryNanos;
    private final double smoothing;
    /** Smoothed CPU and memory per host; guarded by the owner's lock. */
    private final Map<String, HostUtilization> smoothed = new HashMap<>();

    UtilizationReports(AdaptiveVirtualNodesConfig config, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.expiryNanos = config.reportExpiry().toNanos();
        this.smoothing = config.utilizationSmoothing();
    }

    /** Keeps {@code utilization} as the host's latest report, dated now. Lock-free. */
    void latest(String host, HostUtilization utilization) {
        latest.put(host, new TimedReport(utilization, nanoClock.getAsLong()));
    }

    /** Forgets the reports of hosts that are no longer members. */
    void retain(Collection<String> hosts) {
        latest.keySet().retainAll(hosts);
    }

    /** Hosts whose latest report is at most {@code reportExpiry} old, to that report. */
    Map<String, HostUtilization> current() {
        long now = nanoClock.getAsLong();
        Map<String, HostUtilization> current = new HashMap<>();
        latest.forEach((host, report) -> {
            if (now - report.nanos() <= expiryNanos) {
                current.put(host, report.utilization());
            }
        });
        return current;
    }

    /**
     * EWMA over windows: {@code u = a * windowMean + (1 - a) * u}, {@code a} the configured
     * smoothing; a host's first window after a restart is taken as is.
     *
     * @return host id to its smoothed utilization, the hosts of {@code windowMeans}
     */
    Map<String, HostUtilization> smooth(Map<String, HostUtilization> windowMeans) {
        double a = smoothing;
        Map<String, HostUtilization> next = new HashMap<>();
        windowMeans.forEach((host, mean) -> {
            HostUtilization previous = smoothed.get(host);
            next.put(host, previous == null ? mean : new HostUtilization(
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

    private record TimedReport(HostUtilization utilization, long nanos) {
    }
}
