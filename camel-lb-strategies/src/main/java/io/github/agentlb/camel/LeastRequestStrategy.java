package io.github.agentlb.camel;

import io.github.agentlb.core.hash.HashAlgorithm;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code lr}: least request with the power of two choices (Mitzenmacher 2001; Envoy's and gRPC's
 * default). Two distinct agents are drawn from a seeded sequence and the one with the higher
 * {@code weight / (inFlight + 1)^bias} takes the exchange, {@code inFlight} being the balancer's
 * own count of attempts in flight ({@link BalancerState#inFlight}) plus the requests queued at the
 * agent by its fresh ORCA report. Failover: the other choice, then every agent by fewest in flight.
 * Thread-safe; O(1) and lock-free per exchange.
 */
final class LeastRequestStrategy implements Strategy {

    private final AtomicLong draws = new AtomicLong();
    private StrategyContext context;
    /** The draws' settings the sequence was started for; the writer's lock guards it. */
    private BalancerConfig.LeastRequest settings;


    @Override
    public void attach(StrategyContext context) {
        this.context = context;
    }

    /** A seed set (even the same one) restarts the sequence of draws; a new bias does not. */
    @Override
    public void configure(BalancerConfig config) {
        BalancerConfig.LeastRequest next = config.leastRequest();
        if (next != settings) {
            boolean seedSet = settings == null || next.seed() != settings.seed()
                    || next.activeRequestBias() == settings.activeRequestBias();
            settings = next;
            if (seedSet) {
                draws.set(0);
            }
        }
    }

    @Override
    public Picker newPicker(BalancerState state) {
        List<String> agentIds = state.agentIds();
        int n = agentIds.size();
        if (n == 0) {
            return exchange -> Selection.of(Collections.emptyIterator());
        }
        String[] ids = agentIds.toArray(new String[0]);
        AtomicInteger[] counts = new AtomicInteger[n];
        double[] w = new double[n];
        boolean weighted = false;
        for (int i = 0; i < n; i++) {
            counts[i] = state.slot(ids[i]).inFlight;
            w[i] = state.weights().getOrDefault(ids[i], 1.0);
            weighted |= w[i] != 1.0;
        }
        long seed = settings.seed();
        double bias = settings.activeRequestBias();
        boolean plain = !weighted && bias == 1.0;
        return exchange -> {
            if (n == 1) {
                return Selection.of(List.of(ids[0]).iterator());
            }
            long random = HashAlgorithm.fmix64(seed + draws.getAndIncrement() * 0x9E3779B97F4A7C15L);
            int first = (int) Long.remainderUnsigned(random, n);
            int second = (first + 1 + (int) Long.remainderUnsigned(random >>> 32, n - 1)) % n;
            double firstLoad = counts[first].get() + beyondOwn(state, ids[first]);
            double secondLoad = counts[second].get() + beyondOwn(state, ids[second]);
            boolean secondWins = plain ? secondLoad < firstLoad
                    : score(w[second], secondLoad, bias) > score(w[first], firstLoad, bias);
            int chosen = secondWins ? second : first;
            int other = secondWins ? first : second;
            return Selection.of(new Choices(ids, counts, chosen, other));
        };
    }

    /** Requests at the agent beyond this balancer's by its fresh report; no clock read for an agent that never reported. */
    private double beyondOwn(BalancerState state, String agent) {
        return state.hasReported(agent) ? state.reportedBeyondOwn(agent, context.nanoTime()) : 0;
    }

    /** weight / (active + 1)^bias; a bias of 0 gives the weight itself, x^0 being 1 for every x. */
    private static double score(double weight, double active, double bias) {
        return weight / Math.pow(active + 1.0, bias);
    }

    /** The chosen agent, the other choice, then the rest by fewest in flight (sorted only when reached). */
    private static final class Choices implements Iterator<String> {
        private final String[] ids;
        private final AtomicInteger[] counts;
        private final int chosen;
        private final int other;
        private int step;
        private Iterator<String> rest;

        Choices(String[] ids, AtomicInteger[] counts, int chosen, int other) {
            this.ids = ids;
            this.counts = counts;
            this.chosen = chosen;
            this.other = other;
        }

        @Override
        public boolean hasNext() {
            return step < 2 || rest().hasNext();
        }

        @Override
        public String next() {
            if (step == 0) {
                step++;
                return ids[chosen];
            }
            if (step == 1) {
                step++;
                return ids[other];
            }
            if (!rest().hasNext()) {
                throw new NoSuchElementException();
            }
            return rest.next();
        }

        private Iterator<String> rest() {
            if (rest == null) {
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < ids.length; i++) {
                    if (i != chosen && i != other) {
                        order.add(i);
                    }
                }
                order.sort(Comparator.comparingInt(i -> counts[i].get()));
                rest = order.stream().map(i -> ids[i]).iterator();
            }
            return rest;
        }
    }

    @Override
    public String name() {
        return "lr";
    }
}
