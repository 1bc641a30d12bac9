package io.github.agentlb.core.select;

import io.github.agentlb.core.Check;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Weighted selection by nginx's smooth weighted round-robin, with a lock-free request path.
 *
 * <p>nginx's algorithm (ngx_http_upstream_round_robin.c, {@code ngx_http_upstream_get_peer}):
 * every peer keeps a current weight; on each pick every current weight grows by the peer's
 * weight, the peer with the largest current weight wins (ties: the first peer) and its current
 * weight drops by the total. Over one cycle of {@code sum(w)} picks every peer is chosen exactly
 * {@code w} times, interleaved rather than in bursts: weights 5, 1, 1 give {@code a a b a c a a}.
 *
 * <p>nginx runs that loop under a lock on every request. Here it runs once per weight change, in
 * {@link #setWeights(Map)}, producing an immutable cyclic {@link Schedule}; a request then costs
 * one {@link AtomicLong#getAndIncrement()} and one array read: {@code select()} is O(1) and never
 * blocks. A new schedule is published through a volatile field, so a concurrent pick sees either
 * the old or the new schedule, never a mix.
 *
 * <p>Weights are integerized to about {@code resolution} slots per cycle by the largest-remainder
 * method (ties by agent id), reduced by their greatest common divisor; every agent gets at least
 * one slot. Weights that are already whole numbers summing to at most {@code resolution} are used
 * as they are, so integer weights reproduce nginx's sequence exactly. Agents are ordered by id
 * wherever order matters, so the schedule depends only on the weights, never on insertion order
 * or identity hash codes.
 *
 * <p>Thread-safety: {@link #select()} and {@link #schedule()} are safe from
 * any number of threads. {@link #setWeights(Map)} is safe too but O(slots x agents); call it off
 * the request path.
 */
public final class SmoothWeightedRoundRobin {

    /**
     * The most slots per cycle: 100,000. A schedule holds about {@code resolution} slots (plus one per
     * agent), 4 to 8 bytes each, and is built in O(slots x agents) on each change of weights.
     */
    public static final int MAX_RESOLUTION = 100_000;
    /** Default schedule resolution: slots per cycle for non-integer weights. */
    public static final int DEFAULT_RESOLUTION = 1000;

    private final int resolution;
    private final AtomicLong counter = new AtomicLong();
    private volatile Schedule schedule = Schedule.EMPTY;

    /** Creates a selector with no agents and {@link #DEFAULT_RESOLUTION}. */
    public SmoothWeightedRoundRobin() {
        this(DEFAULT_RESOLUTION);
    }

    /**
     * Creates a selector with no agents.
     *
     * @param resolution slots per cycle used to integerize fractional weights, 1..{@value #MAX_RESOLUTION}
     * @throws IllegalArgumentException if {@code resolution} is out of range
     */
    public SmoothWeightedRoundRobin(int resolution) {
        this.resolution = Check.atMost("resolution", Check.atLeast("resolution", resolution, 1), MAX_RESOLUTION);
    }

    /**
     * Builds a schedule for these weights and swaps it in atomically.
     *
     * @param weights agent id to weight; weights must be finite and {@code > 0}; empty clears
     * @throws IllegalArgumentException if a weight is not finite and positive, or an id is null
     */
    public void setWeights(Map<String, ? extends Number> weights) {
        schedule = Schedule.of(weights, resolution);
    }

    /**
     * Picks the next agent. O(1), lock-free.
     *
     * @return the agent id, or {@code null} when there are no agents
     */
    public String select() {
        Schedule current = schedule;
        if (current.slots.length == 0) {
            return null;
        }
        return current.slots[Math.floorMod(counter.getAndIncrement(), current.slots.length)];
    }

    /** @return the schedule in use, immutable */
    public Schedule schedule() {
        return schedule;
    }

    /**
     * An immutable cyclic pick sequence produced by nginx's smooth weighted round-robin.
     */
    public static final class Schedule {

        static final Schedule EMPTY = new Schedule(new String[0], new String[0], Map.of());

        private final String[] slots;
        private final String[] failoverOrder;
        private final List<String> failoverOrderList;
        private final Map<String, Integer> slotCounts;

        private Schedule(String[] slots, String[] failoverOrder, Map<String, Integer> slotCounts) {
            this.slots = slots;
            this.failoverOrder = failoverOrder;
            this.failoverOrderList = List.of(failoverOrder);
            this.slotCounts = slotCounts;
        }

        /**
         * Builds the schedule for these weights. O(slots x agents).
         *
         * @param weights    agent id to weight, finite and {@code > 0}
         * @param resolution slots per cycle for fractional weights, 1..{@value #MAX_RESOLUTION}
         * @return the schedule; {@link #length()} 0 for no agents
         * @throws IllegalArgumentException if a weight is not finite and positive, an id is null,
         *     or {@code resolution} is out of range
         */
        public static Schedule of(Map<String, ? extends Number> weights, int resolution) {
            Check.atMost("resolution", Check.atLeast("resolution", resolution, 1), MAX_RESOLUTION);
            TreeMap<String, Double> sorted = new TreeMap<>();
            for (Map.Entry<String, ? extends Number> e : weights.entrySet()) {
                if (e.getKey() == null) {
                    throw new IllegalArgumentException("agent id must not be null");
                }
                double w = e.getValue() == null ? Double.NaN : e.getValue().doubleValue();
                sorted.put(e.getKey(), Check.finitePositive("weight of " + e.getKey(), w));
            }
            if (sorted.isEmpty()) {
                return EMPTY;
            }
            String[] agents = sorted.keySet().toArray(new String[0]);
            double[] w = sorted.values().stream().mapToDouble(Double::doubleValue).toArray();
            int[] ints = integerize(agents, w, resolution);
            return new Schedule(nginxSequence(agents, ints), failoverOrder(agents, w),
                    counts(agents, ints));
        }

        /** @return the number of picks in one cycle */
        public int length() {
            return slots.length;
        }

        /** @return the whole cycle, in pick order, unmodifiable */
        public List<String> slots() {
            return Collections.unmodifiableList(Arrays.asList(slots));
        }

        /** @return slots per agent in one cycle, sorted by agent id, unmodifiable */
        public Map<String, Integer> slotCounts() {
            return slotCounts;
        }

        /** @return all agents in descending weight, ties by id, unmodifiable */
        public List<String> failoverOrder() {
            return failoverOrderList;
        }

        private static int[] integerize(String[] agents, double[] w, int resolution) {
            int n = w.length;
            int[] out = new int[n];
            double total = 0;
            boolean whole = true;
            for (double v : w) {
                total += v;
                whole &= v == Math.rint(v);
            }
            if (whole && total <= resolution) {
                for (int i = 0; i < n; i++) {
                    out[i] = (int) w[i];
                }
            } else {
                largestRemainder(agents, w, total, resolution, out);
            }
            int g = 0;
            for (int v : out) {
                g = gcd(g, v);
            }
            for (int i = 0; i < n; i++) {
                out[i] /= g;
            }
            return out;
        }

        // Hamilton's method: floor the exact quotas, hand the leftover slots to the largest
        // fractional parts. The floor of 1 keeps every positive weight routable.
        private static void largestRemainder(String[] agents, double[] w, double total,
                                             int resolution, int[] out) {
            int n = w.length;
            double[] remainder = new double[n];
            int assigned = 0;
            for (int i = 0; i < n; i++) {
                double quota = w[i] / total * resolution;
                out[i] = (int) Math.floor(quota);
                remainder[i] = quota - out[i];
                assigned += out[i];
            }
            Integer[] byRemainder = new Integer[n];
            for (int i = 0; i < n; i++) {
                byRemainder[i] = i;
            }
            Arrays.sort(byRemainder, Comparator.<Integer>comparingDouble(i -> -remainder[i])
                    .thenComparing(i -> agents[i]));
            for (int k = 0; k < resolution - assigned && k < n; k++) {
                out[byRemainder[k]]++;
            }
            for (int i = 0; i < n; i++) {
                out[i] = Math.max(1, out[i]);
            }
        }

        private static String[] nginxSequence(String[] agents, int[] weights) {
            int n = weights.length;
            int total = 0;
            for (int v : weights) {
                total += v;
            }
            long[] current = new long[n];
            String[] sequence = new String[total];
            for (int pick = 0; pick < total; pick++) {
                int best = 0;
                for (int i = 0; i < n; i++) {
                    current[i] += weights[i];
                    if (current[i] > current[best]) {
                        best = i;
                    }
                }
                current[best] -= total;
                sequence[pick] = agents[best];
            }
            return sequence;
        }

        private static String[] failoverOrder(String[] agents, double[] w) {
            Integer[] order = new Integer[agents.length];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            Arrays.sort(order, Comparator.<Integer>comparingDouble(i -> -w[i])
                    .thenComparing(i -> agents[i]));
            String[] out = new String[order.length];
            for (int i = 0; i < order.length; i++) {
                out[i] = agents[order[i]];
            }
            return out;
        }

        private static Map<String, Integer> counts(String[] agents, int[] ints) {
            TreeMap<String, Integer> m = new TreeMap<>();
            for (int i = 0; i < agents.length; i++) {
                m.put(agents[i], ints[i]);
            }
            return Collections.unmodifiableMap(m);
        }

        private static int gcd(int a, int b) {
            while (b != 0) {
                int t = a % b;
                a = b;
                b = t;
            }
            return a;
        }

        @Override
        public String toString() {
            return "Schedule[length=" + slots.length + ", slotCounts=" + slotCounts + "]";
        }
    }
}
