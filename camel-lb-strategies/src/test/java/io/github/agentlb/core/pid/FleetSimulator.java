package io.github.agentlb.core.pid;

import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import io.github.agentlb.core.stats.LoadStatistics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * A deterministic discrete-time fleet: no HTTP, no threads, no sleeping.
 *
 * <p>Model, per control period of 1 s (simulated):
 * <ul>
 *   <li>{@code N = round(demand x (1 + noise x U(-1, 1)))} requests of one work unit each arrive
 *       (seeded {@link Random});</li>
 *   <li>each request goes to the agent picked by the real selection path:
 *       {@link PidWeights#select()} for the PID balancer, a {@link SmoothWeightedRoundRobin}
 *       with equal weights for plain round-robin;</li>
 *   <li>agent {@code i} serves up to {@code capacity[i]} units per period; what it cannot serve
 *       queues and is served in later periods (work completes, unlike the seed's toy model);</li>
 *   <li>the agent <i>reports</i> {@code (arrivals + backlog) / capacity}: outstanding work over
 *       capacity, like in-flight / capacity on a real agent; it exceeds 1 while the agent
 *       queues, so the controller is not blind to how overloaded an agent is;</li>
 *   <li>the figure of merit is the <i>busy fraction</i> {@code served / capacity} (0..1, what a
 *       CPU meter shows), whose max/mean is Robinhood's "max/avg CPU". With capacities
 *       1 : 1 : 0.5 at 75 % load, round-robin gives busy fractions 0.625, 0.625, 1.0: 1.333.</li>
 * </ul>
 * After the period the agents' reports are fed to {@link PidWeights#report}, the injected clock
 * advances by 1 s and {@link PidWeights#controlStep()} runs.
 */
final class FleetSimulator {

    static final long PERIOD_NANOS = 1_000_000_000L;

    private final String[] agents;
    private final double[] capacity;
    private final double[] backlog;
    private final double demand;
    private final double noise;
    private final Random random;
    private final PidWeights pid;
    private final Supplier<String> selector;
    private final double[] pinned;
    private final long[] clock;
    private final List<Period> history = new ArrayList<>();

    /** One simulated period: the weights used to dispatch it and the resulting loads. */
    record Period(int index, double[] weights, double[] reported, double[] busy) {
        double busyMaxOverMean() {
            return maxOverMean(busy);
        }

        double reportedMaxOverMean() {
            return maxOverMean(reported);
        }
    }

    private FleetSimulator(double[] capacity, double demand, double noise, long seed,
                           PidWeights pid, Supplier<String> selector, long[] clock) {
        int n = capacity.length;
        this.agents = new String[n];
        for (int i = 0; i < n; i++) {
            agents[i] = "A" + (i + 1);
        }
        this.capacity = capacity.clone();
        this.backlog = new double[n];
        this.demand = demand;
        this.noise = noise;
        this.random = new Random(seed);
        this.pid = pid;
        this.selector = selector;
        this.pinned = new double[n];
        Arrays.fill(pinned, Double.NaN);
        this.clock = clock;
    }

    /** A fleet balanced by {@link PidWeights} with this configuration. */
    static FleetSimulator pid(PidWeightsConfig config, double[] capacity, double demand,
                              double noise, long seed) {
        long[] clock = {0};
        PidWeights pid = new PidWeights(config, () -> clock[0]);
        FleetSimulator sim = new FleetSimulator(capacity, demand, noise, seed, pid, pid::select, clock);
        pid.setAgents(List.of(sim.agents));
        return sim;
    }

    /** The same fleet under plain round-robin (SWRR with equal weights). */
    static FleetSimulator roundRobin(double[] capacity, double demand, double noise, long seed) {
        SmoothWeightedRoundRobin rr = new SmoothWeightedRoundRobin();
        FleetSimulator sim = new FleetSimulator(capacity, demand, noise, seed, null, rr::select, new long[1]);
        Map<String, Integer> equal = new LinkedHashMap<>();
        for (String a : sim.agents) {
            equal.put(a, 1);
        }
        rr.setWeights(equal);
        return sim;
    }

    PidWeights balancer() {
        return pid;
    }

    String agent(int i) {
        return agents[i];
    }

    void setCapacity(int i, double value) {
        capacity[i] = value;
    }

    /** Makes agent {@code i} report {@code utilization} whatever its load; NaN to release. */
    void pin(int i, double utilization) {
        pinned[i] = utilization;
    }

    List<Period> history() {
        return history;
    }

    void run(int periods) {
        for (int p = 0; p < periods; p++) {
            step();
        }
    }

    Period step() {
        int n = agents.length;
        double[] weights = new double[n];
        if (pid != null) {
            Map<String, Double> w = pid.weights();
            for (int i = 0; i < n; i++) {
                weights[i] = w.get(agents[i]);
            }
        } else {
            Arrays.fill(weights, 1.0);
        }
        long requests = Math.round(demand * (1 + noise * (2 * random.nextDouble() - 1)));
        double[] arrivals = new double[n];
        for (long r = 0; r < requests; r++) {
            arrivals[indexOf(selector.get())]++;
        }
        double[] reported = new double[n];
        double[] busy = new double[n];
        for (int i = 0; i < n; i++) {
            double outstanding = arrivals[i] + backlog[i];
            double served = Math.min(capacity[i], outstanding);
            backlog[i] = outstanding - served;
            reported[i] = Double.isNaN(pinned[i]) ? outstanding / capacity[i] : pinned[i];
            busy[i] = served / capacity[i];
        }
        if (pid != null) {
            for (int i = 0; i < n; i++) {
                pid.report(agents[i], reported[i]);
            }
            clock[0] += PERIOD_NANOS;
            pid.controlStep();
        }
        Period period = new Period(history.size(), weights, reported, busy);
        history.add(period);
        return period;
    }

    private int indexOf(String agent) {
        for (int i = 0; i < agents.length; i++) {
            if (agents[i].equals(agent)) {
                return i;
            }
        }
        throw new IllegalStateException("unknown agent " + agent);
    }

    static double maxOverMean(double[] values) {
        return LoadStatistics.of(values).maxOverMean();
    }

    /**
     * The first period from which {@code metric} stays at or below {@code bound} until the end
     * of {@code periods}, counted from {@code from}; -1 if it never settles.
     */
    static int settledAt(List<Period> periods, int from, double bound,
                         ToDoubleFunction<Period> metric) {
        int settled = -1;
        for (int p = from; p < periods.size(); p++) {
            if (metric.applyAsDouble(periods.get(p)) <= bound) {
                if (settled < 0) {
                    settled = p;
                }
            } else {
                settled = -1;
            }
        }
        return settled;
    }
}
