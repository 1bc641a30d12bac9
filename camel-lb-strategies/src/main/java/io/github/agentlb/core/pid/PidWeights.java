package io.github.agentlb.core.pid;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Utilization-driven agent weights: one {@link PidController} per agent, requests spread by
 * {@link SmoothWeightedRoundRobin}. The pure core of the PID-weighted load balancer, after
 * Dropbox's Robinhood (Dropbox tech blog, 2024), where every node has a PID controller whose
 * setpoint is the fleet's average utilization and whose output corrects that node's weight.
 *
 * <h2>Signal</h2>
 * Each agent's process variable (utilization, a fraction that may exceed 1 while it queues) is,
 * at each control step:
 * <ol>
 *   <li>the mean of the values it {@link #report(String, double) reported} since the previous
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
 * <h2>Control step</h2>
 * With {@code dt} the time since the previous step (seconds, from the injected clock):
 * <pre>
 *   setpoint  = mean utilization over agents with a signal
 *   out_i     = pid_i.update(setpoint, u_i, dt)          in [-maxStep, +maxStep]
 *   w_i      := w_i * (1 + out_i)                         agents with a signal
 *   w_j      := mean of the w_i just updated              stale agents (controller reset)
 *   w        := clamp(s * w, minWeight, maxWeight)        s chosen so that mean(w) = 1
 * </pre>
 * The error {@code setpoint - u_i} is positive for an under-loaded agent, so it gains weight.
 * The step is relative ({@code w * (1 + out)}) rather than additive because an agent's
 * utilization is proportional to its weight: {@code du/dw = u/w}, so a relative step gives every
 * agent the same loop gain (about {@code kp x u}) whether its weight is 0.2 or 5; an additive
 * step would be unstable for small weights at gains that are sluggish for large ones. A weight
 * that is nevertheless not finite and positive is replaced by the mean weight; if none is usable
 * all weights become 1.0. A step with {@code dt <= 0} changes nothing.
 *
 * <p>When a poor fit: the loop balances <i>utilization</i>, so it needs traffic to learn (at
 * no traffic nothing moves) and it assumes requests of similar cost on average.
 *
 * <h2>Threads and cost</h2>
 * Thread-safe. {@link #select()} and {@link #candidates()} are O(1) and lock-free;
 * {@link #report}, {@link #requestStarted} and {@link #requestFinished} are lock-free (one map
 * lookup and an atomic update; a report allocates one small object and retries its
 * compare-and-set under contention). {@link #controlStep()} and {@link #setAgents} take an internal
 * lock and cost O(n log n + resolution x n) for n agents; call them off the request path.
 */
public final class PidWeights {

    private static final Logger LOG = LoggerFactory.getLogger(PidWeights.class);

    private final PidWeightsConfig config;
    private final PidController.Config controllerConfig;
    private final LongSupplier nanoClock;
    private final long reportExpiryNanos;
    private final SmoothWeightedRoundRobin selector;
    private final Object lock = new Object();

    private volatile Map<String, AgentState> agents = Map.of();
    private volatile Snapshot snapshot = Snapshot.EMPTY;
    private long lastStepNanos;

    /**
     * Creates an instance with no agents, timed by {@link System#nanoTime()}.
     *
     * @param config the configuration
     */
    public PidWeights(PidWeightsConfig config) {
        this(config, System::nanoTime);
    }

    /**
     * Creates an instance with no agents.
     *
     * @param config    the configuration
     * @param nanoClock monotonic clock in nanoseconds, e.g. {@code System::nanoTime}
     * @throws NullPointerException if an argument is null
     */
    public PidWeights(PidWeightsConfig config, LongSupplier nanoClock) {
        if (config == null) {
            throw new NullPointerException("config");
        }
        if (nanoClock == null) {
            throw new NullPointerException("nanoClock");
        }
        this.config = config;
        this.controllerConfig = config.controllerConfig();
        this.nanoClock = nanoClock;
        this.reportExpiryNanos = config.reportExpiry().toNanos();
        this.selector = new SmoothWeightedRoundRobin(config.scheduleResolution());
        this.lastStepNanos = nanoClock.getAsLong();
    }

    /** @return the configuration */
    public PidWeightsConfig config() {
        return config;
    }

    /**
     * Replaces the agent set. Kept agents keep their relative weight and controller state; a new
     * agent starts at the mean weight of the kept ones, so a cold agent is not flooded; a
     * removed agent's state is dropped. Weights are then renormalized to mean 1.0 and a new
     * schedule is swapped in.
     *
     * @param agentIds the agent ids; duplicates are ignored
     * @throws IllegalArgumentException if an id is null
     */
    public void setAgents(Collection<String> agentIds) {
        TreeSet<String> ids = new TreeSet<>();
        for (String id : agentIds) {
            if (id == null) {
                throw new IllegalArgumentException("agent id must not be null");
            }
            ids.add(id);
        }
        synchronized (lock) {
            Map<String, AgentState> old = agents;
            double sum = 0;
            int kept = 0;
            for (String id : ids) {
                AgentState s = old.get(id);
                if (s != null) {
                    sum += s.weight;
                    kept++;
                }
            }
            double newcomerWeight = kept == 0 ? 1.0 : sum / kept;
            Map<String, AgentState> next = new LinkedHashMap<>();
            for (String id : ids) {
                AgentState s = old.get(id);
                next.put(id, s != null ? s : new AgentState(new PidController(controllerConfig), newcomerWeight));
            }
            AgentState[] states = next.values().toArray(new AgentState[0]);
            double[] w = new double[states.length];
            for (int i = 0; i < w.length; i++) {
                w[i] = states[i].weight;
            }
            normalize(w, config.minWeight(), config.maxWeight());
            for (int i = 0; i < w.length; i++) {
                states[i].weight = w[i];
            }
            agents = Collections.unmodifiableMap(next);
            publish(next);
        }
    }

    /**
     * Overrides the weights of known agents, for a warm start from saved weights or operator
     * hints. The given weights are relative: all weights are renormalized to mean 1.0 and
     * clamped; unknown ids are ignored; the overridden agents' controllers are reset.
     *
     * @param initialWeights agent id to weight, finite and {@code > 0}
     * @throws IllegalArgumentException if a weight is not finite and positive
     */
    public void setWeights(Map<String, Double> initialWeights) {
        for (Map.Entry<String, Double> e : initialWeights.entrySet()) {
            Double w = e.getValue();
            Check.finitePositive("weight of " + e.getKey(), w == null ? Double.NaN : w);
        }
        synchronized (lock) {
            Map<String, AgentState> current = agents;
            AgentState[] states = current.values().toArray(new AgentState[0]);
            String[] ids = current.keySet().toArray(new String[0]);
            double[] w = new double[states.length];
            for (int i = 0; i < w.length; i++) {
                Double given = initialWeights.get(ids[i]);
                if (given != null) {
                    states[i].controller.reset();
                }
                w[i] = given != null ? given : states[i].weight;
            }
            normalize(w, config.minWeight(), config.maxWeight());
            for (int i = 0; i < w.length; i++) {
                states[i].weight = w[i];
            }
            publish(current);
        }
    }

    /**
     * Records an agent's own utilization report, stamped with the clock's current time; the next
     * control step uses the mean of the reports received since the previous one.
     * NaN, negative or infinite values and unknown agents are ignored (DEBUG log).
     *
     * @param agentId     the agent
     * @param utilization fraction 0..1, may exceed 1 while the agent queues
     */
    public void report(String agentId, double utilization) {
        if (!(utilization >= 0) || Double.isInfinite(utilization)) {
            LOG.debug("Ignoring utilization {} reported by agent {}", utilization, agentId);
            return;
        }
        AgentState s = agentId == null ? null : agents.get(agentId);
        if (s == null) {
            LOG.debug("Ignoring utilization report from unknown agent {}", agentId);
            return;
        }
        long now = nanoClock.getAsLong();
        s.period.updateAndGet(window -> window.plus(utilization, now));
        s.everReported = true;
    }

    /**
     * Notes that a request was sent to an agent; feeds the fallback measurement.
     * Unknown agents are ignored.
     *
     * @param agentId the agent
     */
    public void requestStarted(String agentId) {
        AgentState s = agentId == null ? null : agents.get(agentId);
        if (s != null) {
            s.inFlight.incrementAndGet();
            s.started.increment();
        }
    }

    /**
     * Notes that a request to an agent finished (successfully or not); feeds the fallback
     * measurement. Unknown agents are ignored.
     *
     * @param agentId      the agent
     * @param latencyNanos the request's latency, nanoseconds; negative values count as 0
     */
    public void requestFinished(String agentId, long latencyNanos) {
        AgentState s = agentId == null ? null : agents.get(agentId);
        if (s != null) {
            s.inFlight.decrementAndGet();
            s.busyNanos.add(Math.max(0, latencyNanos));
        }
    }

    /**
     * Runs one control step (see the class comment) and swaps in a new selection schedule.
     * Meant to be called every {@link PidWeightsConfig#controlPeriod()} by one scheduler thread;
     * the real elapsed time is used, so a late call is not an error. A call with no time elapsed
     * since the previous one changes nothing.
     */
    public void controlStep() {
        synchronized (lock) {
            long now = nanoClock.getAsLong();
            long stepNanos = now - lastStepNanos;
            if (stepNanos <= 0) {
                return;
            }
            lastStepNanos = now;
            Map<String, AgentState> current = agents;
            if (current.isEmpty()) {
                return;
            }
            double dt = stepNanos / 1e9;
            int n = current.size();
            AgentState[] states = current.values().toArray(new AgentState[0]);
            double[] pv = new double[n];
            double pvSum = 0;
            int withSignal = 0;
            for (int i = 0; i < n; i++) {
                pv[i] = processVariable(states[i], now, stepNanos);
                if (!Double.isNaN(pv[i])) {
                    pvSum += pv[i];
                    withSignal++;
                }
            }
            double setpoint = withSignal == 0 ? Double.NaN : pvSum / withSignal;
            double[] w = new double[n];
            double updatedSum = 0;
            for (int i = 0; i < n; i++) {
                AgentState s = states[i];
                s.utilization = pv[i];
                if (!Double.isNaN(pv[i])) {
                    w[i] = s.weight * (1 + s.controller.update(setpoint, pv[i], dt));
                    updatedSum += w[i];
                }
            }
            // The mean of the updated weights, so that a stale agent sits exactly at the mean
            // once the weights are normalized.
            double staleWeight = withSignal == 0 ? 1.0 : updatedSum / withSignal;
            for (int i = 0; i < n; i++) {
                if (Double.isNaN(pv[i])) {
                    states[i].controller.reset();
                    w[i] = staleWeight;
                }
            }
            normalize(w, config.minWeight(), config.maxWeight());
            for (int i = 0; i < n; i++) {
                states[i].weight = w[i];
            }
            publish(current);
            if (LOG.isDebugEnabled()) {
                LOG.debug("PID step dt={}s setpoint={} weights={} utilizations={}",
                        dt, setpoint, snapshot.weights, snapshot.utilizations);
            }
        }
    }

    /**
     * Picks an agent by smooth weighted round-robin. O(1), lock-free.
     *
     * @return the agent id, or {@code null} when there are no agents
     */
    public String select() {
        return selector.select();
    }

    /**
     * Picks an agent and returns the failover order: the chosen agent first, then the others in
     * descending weight, ties by id. O(1) to obtain, lock-free.
     *
     * @return the candidates, empty when there are no agents
     */
    public Iterator<String> candidates() {
        return selector.candidates();
    }

    /** @return the selection schedule in use, immutable; replaced by each effective step */
    public SmoothWeightedRoundRobin.Schedule schedule() {
        return selector.schedule();
    }

    /** @return agent id to weight (mean 1.0), sorted by id, immutable */
    public Map<String, Double> weights() {
        return snapshot.weights;
    }

    /**
     * @return agent id to the utilization used at the last control step, sorted by id,
     *     immutable; NaN for an agent that had no signal (stale, or added since)
     */
    public Map<String, Double> utilizations() {
        return snapshot.utilizations;
    }

    private double processVariable(AgentState s, long now, long stepNanos) {
        long busy = s.busyNanos.sumThenReset();
        long started = s.started.sumThenReset();
        ReportWindow window = s.period.getAndSet(ReportWindow.EMPTY);
        if (window.count() > 0) {
            s.latest = new Report(window.mean(), window.lastNanos());
        }
        Report r = s.latest;
        if (r != null && now - r.nanos <= reportExpiryNanos) {
            return r.utilization;
        }
        int inFlight = Math.max(0, s.inFlight.get());
        if (!s.everReported && (started > 0 || busy > 0 || inFlight > 0)) {
            return Math.max(inFlight, (double) busy / stepNanos) / config.nominalCapacity();
        }
        return Double.NaN;
    }

    /**
     * Replaces unusable weights by the mean of the usable ones, then scales and clamps so that
     * the mean is 1 and every weight lies in [min, max]. The scale is found by bisection:
     * mean(clamp(s * w)) grows monotonically in s from min to max, and min <= 1 <= max.
     */
    static void normalize(double[] w, double min, double max) {
        int n = w.length;
        double sum = 0;
        int usable = 0;
        for (double v : w) {
            if (v > 0 && Double.isFinite(v)) {
                sum += v;
                usable++;
            }
        }
        if (usable == 0 || !Double.isFinite(sum)) {
            Arrays.fill(w, 1.0);
            return;
        }
        double mean = sum / usable;
        double smallest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            if (!(w[i] > 0 && Double.isFinite(w[i]))) {
                w[i] = mean;
            }
            w[i] /= mean;
            smallest = Math.min(smallest, w[i]);
        }
        double lo = 0;
        double hi = max / smallest;
        for (int iter = 0; iter < 100; iter++) {
            double mid = (lo + hi) / 2;
            if (clampedMean(w, mid, min, max) < 1) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        for (int i = 0; i < n; i++) {
            w[i] = Math.max(min, Math.min(max, w[i] * hi));
        }
    }

    private static double clampedMean(double[] w, double scale, double min, double max) {
        double sum = 0;
        for (double v : w) {
            sum += Math.max(min, Math.min(max, v * scale));
        }
        return sum / w.length;
    }

    private void publish(Map<String, AgentState> current) {
        TreeMap<String, Double> weights = new TreeMap<>();
        TreeMap<String, Double> utilizations = new TreeMap<>();
        for (Map.Entry<String, AgentState> e : current.entrySet()) {
            weights.put(e.getKey(), e.getValue().weight);
            utilizations.put(e.getKey(), e.getValue().utilization);
        }
        selector.setWeights(weights);
        snapshot = new Snapshot(Collections.unmodifiableMap(weights),
                Collections.unmodifiableMap(utilizations));
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

    private record Snapshot(Map<String, Double> weights, Map<String, Double> utilizations) {
        static final Snapshot EMPTY = new Snapshot(Map.of(), Map.of());
    }

    private static final class AgentState {
        final PidController controller;
        final AtomicInteger inFlight = new AtomicInteger();
        final LongAdder started = new LongAdder();
        final LongAdder busyNanos = new LongAdder();
        final AtomicReference<ReportWindow> period = new AtomicReference<>(ReportWindow.EMPTY);
        // latest, weight and utilization are read and written under the PidWeights lock only.
        Report latest;
        volatile boolean everReported;
        double weight;
        double utilization = Double.NaN;

        AgentState(PidController controller, double weight) {
            this.controller = controller;
            this.weight = weight;
        }
    }
}
