package io.github.agentlb.core.avn;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * One evaluation window: a request counter and the hosts' load reports, written lock-free. The
 * hosts are fixed when the window opens; a report from another host is refused. Thread-safe.
 */
final class EvaluationWindow {
    private final Map<String, DoubleAdder[]> reports = new HashMap<>();
    private final Map<String, LongAdder> reportCounts = new HashMap<>();
    final AtomicLong recorded = new AtomicLong();

    EvaluationWindow(Collection<String> hosts) {
        for (String host : hosts) {
            reports.put(host, new DoubleAdder[] {new DoubleAdder(), new DoubleAdder()});
            reportCounts.put(host, new LongAdder());
        }
    }

    /** Adds a report; false (and nothing added) if {@code host} is not one of this window's. */
    boolean report(String host, HostUtilization utilization) {
        DoubleAdder[] sums = reports.get(host);
        if (sums == null) {
            return false;
        }
        sums[0].add(utilization.cpu());
        sums[1].add(utilization.memory());
        reportCounts.get(host).increment();
        return true;
    }

    /**
     * Each host's mean report in this window if its latest report is current, else that latest
     * report, else nothing: a host absent from {@code currentReports} (never reported, or its
     * report expired) has no utilization, whatever the window holds.
     *
     * @param currentReports host id to its latest report still within the expiry
     */
    Map<String, HostUtilization> utilization(Map<String, HostUtilization> currentReports) {
        Map<String, HostUtilization> utilization = new HashMap<>();
        reports.forEach((host, sums) -> {
            HostUtilization latest = currentReports.get(host);
            if (latest == null) {
                return;
            }
            long n = reportCounts.get(host).sum();
            utilization.put(host, n > 0 ? new HostUtilization(clamp(sums[0].sum() / n), clamp(sums[1].sum() / n)) : latest);
        });
        return utilization;
    }

    static double clamp(double mean) {
        // Sums of doubles in [0, 1] divided by their count can leave [0, 1] by rounding only.
        return Math.min(1, Math.max(0, mean));
    }
}
