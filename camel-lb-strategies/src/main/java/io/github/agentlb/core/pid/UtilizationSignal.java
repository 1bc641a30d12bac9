package io.github.agentlb.core.pid;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One agent's utilization signal for {@link PidWeights}.
 *
 * Each agent's process variable (utilization, a fraction that may exceed 1 while it queues) is,
 * at each control step:
 * <ol>
 *   <li>the mean of the values it {@link #report reported} since the previous
 *       step, if it reported any; otherwise that same value from the last step in which it did
 *       report, as long as its latest report is at most {@code reportExpiry} old. Reports win
 *       while fresh. The mean is taken because a report may be a count at one instant (in
 *       service + queued, over capacity) that jumps by {@code 1 / capacity} with every arrival
 *       and departure: with the last report alone the weights of small agents jittered by 15 to
 *       30 % from step to step on the load generator's heterogeneous scenario, half that with
 *       the mean. Averaging the period's reports smooths them the way Robinhood's agents report
 *       a smoothed load, without adding lag beyond one period. It is a mean over responses, not
 *       over time, so it inherits any bias of a report taken when a response leaves: the
 *       agent-stub therefore reports a time average;</li>
 *   <li>otherwise, for an agent that has never reported, the balancer's own measurement if it
 *       sent the agent traffic during the step:
 *       {@code max(inFlightNow, busyNanos / stepNanos) / nominalCapacity}, where
 *       {@code busyNanos} is the summed latency of the requests that finished during the step
 *       (by Little's law, their mean concurrency);</li>
 *   <li>otherwise none: the agent is <i>stale</i>. An agent whose reports expired stays stale until
 *       it reports again: once an agent reports, silence means "unknown", not "idle".</li>
 * </ol>
 *
 * <p>{@link #report}, {@link #requestStarted} and {@link #requestFinished} are lock-free and may be
 * called from any thread; {@link #processVariable} is called by one control step at a time.
 */
final class UtilizationSignal {

    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder started = new LongAdder();
    private final LongAdder busyNanos = new LongAdder();
    private final AtomicReference<ReportWindow> period = new AtomicReference<>(ReportWindow.EMPTY);
    private Report latest;
    private volatile boolean everReported;

    /** Adds a report (utilization, fraction) received at {@code nanos}. */
    void report(double utilization, long nanos) {
        period.updateAndGet(window -> window.plus(utilization, nanos));
        everReported = true;
    }

    /** Drops the reports of the current period and the latest report: the agent starts over. */
    void forgetReports() {
        period.set(ReportWindow.EMPTY);
        latest = null;
    }

    void requestStarted() {
        inFlight.incrementAndGet();
        started.increment();
    }

    /** @param latencyNanos the request's latency; negative counts as 0 */
    void requestFinished(long latencyNanos) {
        inFlight.decrementAndGet();
        busyNanos.add(Math.max(0, latencyNanos));
    }

    /**
     * The process variable for the step ending at {@code now} (see {@link PidWeights}, "Signal"),
     * or NaN when the agent is stale; takes the period's measurements. Called under the
     * {@link PidWeights} lock only.
     *
     * @param stepNanos         the step's length, ns, > 0
     * @param reportExpiryNanos the age after which a report no longer counts, ns
     * @param nominalCapacity   concurrent requests counted as utilization 1.0
     */
    double processVariable(long now, long stepNanos, long reportExpiryNanos, double nominalCapacity) {
        long busy = busyNanos.sumThenReset();
        long startedCount = started.sumThenReset();
        ReportWindow window = period.getAndSet(ReportWindow.EMPTY);
        if (window.count() > 0) {
            latest = new Report(window.mean(), window.lastNanos());
        }
        Report r = latest;
        if (r != null && now - r.nanos <= reportExpiryNanos) {
            return r.utilization;
        }
        int inFlightNow = Math.max(0, inFlight.get());
        if (!everReported && (startedCount > 0 || busy > 0 || inFlightNow > 0)) {
            return Math.max(inFlightNow, (double) busy / stepNanos) / nominalCapacity;
        }
        return Double.NaN;
    }

    /** The utilization used while no report arrives, and the time of the latest report in it. */
    private record Report(double utilization, long nanos) {
    }

    /**
     * The reports of one agent during the current control period: their running mean (no sum,
     * so no overflow), how many, and when the latest arrived (clock nanoseconds). Immutable, so
     * one compare-and-set adds a report and one swap hands the whole period to the step: a
     * report is counted exactly once, in one period.
     */
    private record ReportWindow(double mean, long count, long lastNanos) {
        static final ReportWindow EMPTY = new ReportWindow(0, 0, 0);

        ReportWindow plus(double utilization, long nanos) {
            long n = count + 1;
            return new ReportWindow(mean + (utilization - mean) / n, n, nanos);
        }
    }
}
