package io.github.agentlb.camel;

import java.util.Map;

/**
 * Strict round-robin over the agents: A1, A2, A3, A1, ... After any N exchanges, also from many
 * concurrent callers, no agent has received more than one exchange more than another (a
 * lock-free counter, see {@link io.github.agentlb.core.select.RoundRobin}). When the chosen agent
 * fails (or is ejected), the exchange takes the rotation's next turn, so a failed agent's share is
 * spread over the others as nginx does (one of three agents down: the other two get half each, not
 * 2/3 and 1/3), then any agent not yet tried; each agent at most once. Unequal weights
 * ({@link #setAgentWeight}): nginx's smooth weighted round-robin over the weights.
 *
 * <p>A route in a {@code RouteBuilder}'s {@code configure()}, with the imports
 * {@code io.github.agentlb.camel.RoundRobinLB}, {@code io.github.agentlb.camel.AgentsBusyException},
 * {@code io.github.agentlb.camel.AgentsUnavailableException},
 * {@code io.github.agentlb.camel.NoAgentAvailableException} and {@code org.apache.camel.Exchange}:
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true&bridgeEndpoint=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new RoundRobinLB())
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
 * <p>Thread-safe; O(1) per exchange.
 */
public final class RoundRobinLB extends AgentLoadBalancerSupport {

    public RoundRobinLB() {
        super(new RoundRobinStrategy());
    }

    /** {@code weight} per agent: the configured weight it is picked by ({@link #setAgentWeight}, a fleet's). */
    @Override
    public Map<String, Map<String, Double>> agentMetrics() {
        return Map.of("weight", balancerState().weights());
    }
}
