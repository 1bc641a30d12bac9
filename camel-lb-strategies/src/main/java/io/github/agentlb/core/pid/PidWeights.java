package io.github.agentlb.core.pid;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
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
 * Each agent's process variable (utilization, a fraction that may exceed 1 while it queues) is
 * the mean of its own reports during the period, else the balancer's measurement of an agent that
 * never reported, else none (the agent is <i>stale</i>): {@link UtilizationSignal}. Weights are
 * kept at mean 1 within [minWeight, maxWeight] by {@link WeightNormalization}. The step itself is
 * {@code FleetStep}. About 330 lines: this design comment and each public method's contract.
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
 * Thread-safe. {@link #select()} is O(1) and lock-free;
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
            normalizeWeights(next.values());
            agents = Collections.unmodifiableMap(next);
            publish(next);
        }
    }

    /**
     * Restarts an agent that comes back after an outage (re-admitted after outlier ejection) as
     * a newcomer: its weight becomes the mean weight of the others, its controller is reset and
     * its earlier reports (including the failure penalties of its outage) are forgotten, so it
     * gets its share back at once instead of climbing from the weight floor one step at a time.
     * Unknown ids are ignored.
     *
     * @param agentId the agent
     */
    public void restart(String agentId) {
        synchronized (lock) {
            Map<String, AgentState> current = agents;
            AgentState restarted = current.get(agentId);
            if (restarted == null) {
                return;
            }
            restarted.controller.reset();
            restarted.signal.forgetReports();
            AgentState[] states = current.values().toArray(new AgentState[0]);
            double othersSum = 0;
            for (AgentState s : states) {
                othersSum += s == restarted ? 0 : s.weight;
            }
            restarted.weight = states.length == 1 ? 1.0 : othersSum / (states.length - 1);
            normalizeWeights(current.values());
            publish(current);
        }
    }

    /** Renormalizes the agents' weights to mean 1.0 within the clamp; under the lock. */
    private void normalizeWeights(Collection<AgentState> states) {
        AgentState[] all = states.toArray(new AgentState[0]);
        double[] w = new double[all.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = all[i].weight;
        }
        WeightNormalization.normalize(w, config.minWeight(), config.maxWeight());
        for (int i = 0; i < w.length; i++) {
            all[i].weight = w[i];
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
            current.forEach((id, state) -> {
                Double given = initialWeights.get(id);
                if (given != null) {
                    state.controller.reset();
                    state.weight = given;
                }
            });
            normalizeWeights(current.values());
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
        s.signal.report(utilization, now);
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
            s.signal.requestStarted();
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
            s.signal.requestFinished(latencyNanos);
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
            double setpoint = FleetStep.step(current.values().toArray(new AgentState[0]), now, stepNanos, config);
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

    private record Snapshot(Map<String, Double> weights, Map<String, Double> utilizations) {
        static final Snapshot EMPTY = new Snapshot(Map.of(), Map.of());
    }
}
