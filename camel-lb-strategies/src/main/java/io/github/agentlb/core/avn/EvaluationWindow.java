package io.github.agentlb.core.avn;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * One evaluation window: a request counter and the agents' load reports, written lock-free. The
 * agents are fixed when the window opens; a report from another agent is refused. Thread-safe.
 */
final class EvaluationWindow {
    private final Map<String, DoubleAdder[]> reports = new HashMap<>();
    private final Map<String, LongAdder> reportCounts = new HashMap<>();
    final AtomicLong recorded = new AtomicLong();

    EvaluationWindow(Collection<String> agents) {
        for (String agent : agents) {
            reports.put(agent, new DoubleAdder[] {new DoubleAdder(), new DoubleAdder()});
            reportCounts.put(agent, new LongAdder());
        }
    }

    /** Adds a report; false (and nothing added) if {@code agent} is not one of this window's. */
    boolean report(String agent, AgentUtilization utilization) {
        DoubleAdder[] sums = reports.get(agent);
        if (sums == null) {
            return false;
        }
        sums[0].add(utilization.cpu());
        sums[1].add(utilization.memory());
        reportCounts.get(agent).increment();
        return true;
    }

    /**
     * Each agent's mean report in this window if its latest report is current, else that latest
     * report, else nothing: an agent absent from {@code currentReports} (never reported, or its
     * report expired) has no utilization, whatever the window holds.
     *
     * @param currentReports agent id to its latest report still within the expiry
     */
    Map<String, AgentUtilization> utilization(Map<String, AgentUtilization> currentReports) {
        Map<String, AgentUtilization> utilization = new HashMap<>();
        reports.forEach((agent, sums) -> {
            AgentUtilization latest = currentReports.get(agent);
            if (latest == null) {
                return;
            }
            long n = reportCounts.get(agent).sum();
            utilization.put(agent, n > 0 ? new AgentUtilization(clamp(sums[0].sum() / n), clamp(sums[1].sum() / n)) : latest);
        });
        return utilization;
    }

    static double clamp(double mean) {
        // Sums of doubles in [0, 1] divided by their count can leave [0, 1] by rounding only.
        return Math.min(1, Math.max(0, mean));
    }
}
