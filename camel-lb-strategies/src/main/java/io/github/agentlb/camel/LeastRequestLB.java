package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.hash.HashAlgorithm;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.api.management.ManagedAttribute;

/**
 * Least request with the power of two choices, as Envoy's, gRPC's and Istio's default: for each
 * exchange two distinct agents are drawn at random and the one with fewer requests in flight
 * takes it (Mitzenmacher, "The Power of Two Choices in Randomized Load Balancing", 2001). Needs
 * nothing from the agents and follows their load: a slow agent holds its requests longer and so
 * gets fewer new ones.
 *
 * <ul>
 *   <li>Static weights ({@link #setAgentWeight}) as Envoy's active request bias: an agent's
 *       effective weight is {@code weight / (inFlight + 1)^bias} and the higher one wins
 *       ({@link #setActiveRequestBias}, default 1.0; 0 makes it weighted random). Ties go to the
 *       first draw.</li>
 *   <li>In flight counts each attempt from its send to the end of its answer (a streamed answer
 *       until its last byte), per agent and per balancer instance. An agent whose fresh ORCA load
 *       report ({@code endpoint-load-metrics}, at most the saturation staleness old, 200 ms by
 *       default; see {@link AgentLoadBalancerSupport}) gives {@code num_requests_waiting} counts
 *       those too: requests other balancers queued on it, which this one cannot see.</li>
 *   <li>Failover: the other choice, then every agent by fewest requests in flight; ejected,
 *       resting, draining and ramping agents are handled by the balancer as for every strategy.</li>
 *   <li>The draws come from a seeded generator (a counter stepped by the golden ratio, as in
 *       SplitMix64, mixed by {@link io.github.agentlb.core.hash.HashAlgorithm#fmix64}), so one caller's
 *       sequence of decisions is the same on every run ({@link #setSeed}).</li>
 * </ul>
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new LeastRequestLB())
 *             .to("agent:http://localhost:8081")       // the agent's answer streams to the client as it arrives
 *             .to("agent:http://localhost:8082")
 *             .to("agent:http://localhost:8083")
 *         .end()
 *     .endDoTry()
 *     .doCatch(AgentsBusyException.class)              // every agent asked to rest: 429 (Retry-After is set)
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(429))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"agents busy\"}"))
 *     .doCatch(NoAgentAvailableException.class)        // every agent down: a JSON 503, no stack trace
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"no agent available\"}"))
 *     .doCatch(Exception.class)                        // failed or timed out before the answer began: a JSON 502
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(502))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"the agent failed or did not answer in time\"}"))
 *     .end()
 *     .removeHeaders("*", "Content-Type", "Retry-After", Exchange.HTTP_RESPONSE_CODE); // none of the request's
 * }</pre>
 *
 * <p>The example runs as written (a test compiles it): it needs {@code camel-netty-http} and
 * {@code camel-lb-http}, whose {@code agent:} endpoints stream each agent's answer to the client as
 * it arrives, holding no thread per call; each agent's id is its endpoint's address
 * ({@code http://localhost:8081}). When no agent can take an exchange it fails with
 * {@link NoAgentAvailableException} ({@link AgentsBusyException} when every agent asked to rest),
 * which the route answers as JSON (uncaught, netty-http would send the stack trace).
 *
 * <p>Thread-safe; O(1) and lock-free per exchange (two draws, two counter reads).
 */
public class LeastRequestLB extends AgentLoadBalancerSupport {

    /** The seed of the draws by default. */
    public static final long DEFAULT_SEED = 0x5DEECE66DL;
    /** Envoy's default active request bias: 1.0. */
    public static final double DEFAULT_ACTIVE_REQUEST_BIAS = 1.0;

    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong draws = new AtomicLong();
    private volatile long seed = DEFAULT_SEED;
    private volatile double activeRequestBias = DEFAULT_ACTIVE_REQUEST_BIAS;

    @Override
    public String strategyName() {
        return "lr";
    }

    /** The seed of the draws; takes effect at once and restarts the sequence. */
    public void setSeed(long seed) {
        this.seed = seed;
        draws.set(0);
    }

    public long getSeed() {
        return seed;
    }

    /**
     * How strongly requests in flight weigh against static weights, finite and >= 0 (Envoy's
     * {@code active_request_bias}); takes effect at once.
     *
     * @throws IllegalArgumentException if negative or not finite
     */
    public void setActiveRequestBias(double bias) {
        this.activeRequestBias = Check.finiteNonNegative("activeRequestBias", bias);
        settingsChanged();
    }

    public double getActiveRequestBias() {
        return activeRequestBias;
    }

    /** Agent id to its requests in flight now, sorted by id; for JMX and metrics. */
    @ManagedAttribute(description = "Agent id to its requests in flight through this balancer")
    public Map<String, Integer> getInFlight() {
        Map<String, Integer> now = new java.util.TreeMap<>();
        for (String agent : getAgentIds()) {
            AtomicInteger count = inFlight.get(agent);
            now.put(agent, count == null ? 0 : count.get());
        }
        return now;
    }

    @Override
    public Map<String, Map<String, Double>> agentMetrics() {
        Map<String, Double> values = new java.util.TreeMap<>();
        getInFlight().forEach((agent, count) -> values.put(agent, count.doubleValue()));
        return Map.of("in.flight", values);
    }

    @Override
    protected Picker newPicker(List<String> agentIds, Map<String, Double> weights) {
        int n = agentIds.size();
        if (n == 0) {
            return exchange -> Selection.of(Collections.emptyIterator());
        }
        String[] ids = agentIds.toArray(new String[0]);
        AtomicInteger[] counts = new AtomicInteger[n];
        double[] w = new double[n];
        boolean weighted = false;
        for (int i = 0; i < n; i++) {
            counts[i] = inFlight.computeIfAbsent(ids[i], id -> new AtomicInteger());
            w[i] = weights.getOrDefault(ids[i], 1.0);
            weighted |= w[i] != 1.0;
        }
        double bias = activeRequestBias;
        boolean plain = !weighted && bias == 1.0;
        return exchange -> {
            if (n == 1) {
                return Selection.of(List.of(ids[0]).iterator());
            }
            long random = HashAlgorithm.fmix64(seed + draws.getAndIncrement() * 0x9E3779B97F4A7C15L);
            int first = (int) Long.remainderUnsigned(random, n);
            int second = (first + 1 + (int) Long.remainderUnsigned(random >>> 32, n - 1)) % n;
            double firstLoad = counts[first].get() + reportedWaiting(ids[first]);
            double secondLoad = counts[second].get() + reportedWaiting(ids[second]);
            boolean secondWins = plain ? secondLoad < firstLoad
                    : score(w[second], secondLoad, bias) > score(w[first], firstLoad, bias);
            int chosen = secondWins ? second : first;
            int other = secondWins ? first : second;
            return Selection.of(new Choices(ids, counts, chosen, other));
        };
    }

    /** weight / (active + 1)^bias; a bias of 0 gives the weight itself, x^0 being 1 for every x. */
    private static double score(double weight, double active, double bias) {
        return weight / Math.pow(active + 1.0, bias);
    }

    @Override
    protected void attemptStarted(String agentId, Exchange attempt) {
        AtomicInteger count = inFlight.get(agentId);
        if (count != null) {
            count.incrementAndGet();
        }
    }

    @Override
    protected void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos) {
        AtomicInteger count = inFlight.get(agentId);
        if (count != null) {
            count.decrementAndGet();
        }
    }

    /** Counters of agents that left are dropped with them. */
    @Override
    protected void agentsChanged(List<String> agentIds) {
        inFlight.keySet().retainAll(agentIds);
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
}
