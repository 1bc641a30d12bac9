package io.github.agentlb.camel;

import java.util.Map;
import java.util.TreeMap;
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
 *       default; see {@link AgentSettings}) gives {@code num_requests_waiting} counts
 *       those too: requests other balancers queued on it, which this one cannot see.</li>
 *   <li>Failover: the other choice, then every agent by fewest requests in flight; ejected,
 *       resting, draining and ramping agents are handled by the balancer as for every strategy.</li>
 *   <li>The draws come from a seeded generator (a counter stepped by the golden ratio, as in
 *       SplitMix64, mixed by {@link io.github.agentlb.core.hash.HashAlgorithm#fmix64}), so one caller's
 *       sequence of decisions is the same on every run ({@link #setSeed}).</li>
 * </ul>
 *
 * <p>A route in a {@code RouteBuilder}'s {@code configure()}, with the imports
 * {@code io.github.agentlb.camel.LeastRequestLB}, {@code io.github.agentlb.camel.AgentsBusyException},
 * {@code io.github.agentlb.camel.AgentsUnavailableException},
 * {@code io.github.agentlb.camel.NoAgentAvailableException} and {@code org.apache.camel.Exchange}:
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true&bridgeEndpoint=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new LeastRequestLB())
 *             .to("agent:http://localhost:8081")       // the agent's answer streams to the client as it arrives
 *             .to("agent:http://localhost:8082")
 *             .to("agent:http://localhost:8083")
 *         .end()
 *     .endDoTry()
 *     .doCatch(AgentsUnavailableException.class)       // every agent resting after a 503 (an outage): a JSON 503 (Retry-After is set)
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"agents unavailable\"}"))
 *     .doCatch(AgentsBusyException.class)              // every agent already resting after a 429: a JSON 429 (Retry-After is set)
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(429))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"agents busy\"}"))
 *     .doCatch(NoAgentAvailableException.class)        // every agent down: a JSON 503, no stack trace
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"no agent available\"}"))
 *     .doCatch(Exception.class)                        // a POST's call failed, or a call timed out, before the answer: a JSON 502
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(502))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setHeader("x-should-retry", constant("false"))      // sent once: SDKs that retry a 502 must not either
 *         .setBody(constant("{\"error\":\"the agent failed or did not answer in time\"}"))
 *     .end()
 *     .removeHeaders("*", "Content-Type", "Retry-After", "x-should-retry",
 *             Exchange.HTTP_RESPONSE_CODE); // none of the request's
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
public final class LeastRequestLB extends AgentLoadBalancerSupport {

    /** The seed of the draws by default. */
    public static final long DEFAULT_SEED = BalancerConfig.LeastRequest.DEFAULT_SEED;
    /** Envoy's default active request bias: 1.0. */
    public static final double DEFAULT_ACTIVE_REQUEST_BIAS = BalancerConfig.LeastRequest.DEFAULT_ACTIVE_REQUEST_BIAS;

    public LeastRequestLB() {
        super(new LeastRequestStrategy());
    }

    /** The seed of the draws; restarts the sequence. */
    public void setSeed(long seed) {
        configure("seed", seed, d -> d.leastRequest(new BalancerConfig.LeastRequest(seed, d.leastRequest().activeRequestBias())));
    }

    public long getSeed() {
        return balancerConfig().leastRequest().seed();
    }

    /**
     * How strongly requests in flight weigh against static weights, finite and >= 0 (Envoy's
     * {@code active_request_bias}).
     *
     * @throws IllegalArgumentException if negative or not finite
     */
    public void setActiveRequestBias(double bias) {
        configure("activeRequestBias", bias, d -> d.leastRequest(new BalancerConfig.LeastRequest(d.leastRequest().seed(), bias)));
    }

    public double getActiveRequestBias() {
        return balancerConfig().leastRequest().activeRequestBias();
    }

    /** Agent id to its requests in flight now, sorted by id; for JMX and metrics. */
    @ManagedAttribute(description = "Agent id to its requests in flight through this balancer")
    public Map<String, Integer> getInFlight() {
        BalancerState state = balancerState();
        Map<String, Integer> now = new TreeMap<>();
        for (String agent : state.agentIds()) {
            now.put(agent, state.inFlight(agent));
        }
        return now;
    }

    /** {@code in.flight} and {@code weight} (the configured weight it is picked by) per agent. */
    @Override
    public Map<String, Map<String, Double>> agentMetrics() {
        Map<String, Double> values = new TreeMap<>();
        getInFlight().forEach((agent, count) -> values.put(agent, count.doubleValue()));
        return Map.of("in.flight", values, "weight", balancerState().weights());
    }
}
