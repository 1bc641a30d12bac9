package io.github.agentlb.camel;

/**
 * Strict round-robin over the agents: A1, A2, A3, A1, ... After any N exchanges, also from many
 * concurrent callers, no agent has received more than one exchange more than another (a
 * lock-free counter, see {@link io.github.agentlb.core.select.RoundRobin}). When the chosen agent
 * fails (or is ejected), the exchange takes the rotation's next turn, so a failed agent's share is
 * spread over the others as nginx does (one of three agents down: the other two get half each, not
 * 2/3 and 1/3), then any agent not yet tried; each agent at most once. Unequal weights
 * ({@link #setAgentWeight}): nginx's smooth weighted round-robin over the weights.
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new RoundRobinLB())
 *             .to("netty-http:http://localhost:8081/process?bridgeEndpoint=true&throwExceptionOnFailure=false")
 *             .to("netty-http:http://localhost:8082/process?bridgeEndpoint=true&throwExceptionOnFailure=false")
 *             .to("netty-http:http://localhost:8083/process?bridgeEndpoint=true&throwExceptionOnFailure=false")
 *         .end()
 *     .endDoTry()
 *     .doCatch(NoAgentAvailableException.class)        // every agent down: a JSON 503, no stack trace
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"no agent available\"}"))
 *     .end()
 *     .removeHeaders("*", "Content-Type", Exchange.HTTP_RESPONSE_CODE); // the agent's answer, not its headers
 * }</pre>
 *
 * <p>The example runs as written (a test compiles it): it needs {@code camel-netty-http}, is
 * non-blocking end to end (no thread waits while an agent answers), and each agent's id is its
 * endpoint URI without options ({@code http://localhost:8081/process}). When no agent can take an
 * exchange it fails with {@link NoAgentAvailableException}, which the route answers as a JSON 503
 * (uncaught, netty-http would send the stack trace). It streams an answer only after the whole
 * answer arrived; the demo proxy streams as the agent writes.
 *
 * <p>Thread-safe; O(1) per exchange.
 */
public final class RoundRobinLB extends AgentLoadBalancerSupport {

    public RoundRobinLB() {
        super(new RoundRobinStrategy());
    }
}
