/**
 * The {@code agent:} Camel component: endpoints that are the children of a route's
 * {@code loadBalance()} and stream each agent's answer into the client's connection as it
 * arrives, for a route whose consumer is camel-netty-http's.
 *
 * <p>In a {@code RouteBuilder}'s {@code configure()}, with the imports
 * {@code io.github.agentlb.camel.AgentsBusyException},
 * {@code io.github.agentlb.camel.AgentsUnavailableException}, {@code io.github.agentlb.camel.ConsistentHashLB},
 * {@code io.github.agentlb.camel.NoAgentAvailableException} and {@code org.apache.camel.Exchange}:
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/v1?matchOnUriPrefix=true&bridgeEndpoint=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new ConsistentHashLB())
 *             .to("agent:http://localhost:8081?firstByteTimeout=5m")
 *             .to("agent:http://localhost:8082?firstByteTimeout=5m")
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
 * <ul>
 *   <li>{@link io.github.agentlb.camel.http.AgentComponent}, {@link io.github.agentlb.camel.http.AgentEndpoint},
 *       {@link io.github.agentlb.camel.http.AgentProducer}: the component in Camel's shape; options and
 *       behaviour in {@code docs/http-component.md}.</li>
 *   <li>{@link io.github.agentlb.camel.http.Downstream}: the client side of a request, the SPI between the
 *       route's consumer and the component; {@link io.github.agentlb.camel.http.NettyDownstream} for
 *       camel-netty-http's consumer.</li>
 *   <li>{@link io.github.agentlb.camel.http.AnswerTimeoutException},
 *       {@link io.github.agentlb.camel.http.AnswerInterruptedException},
 *       {@link io.github.agentlb.camel.http.AgentCallCancelledException}: how a call failed, each saying its
 *       {@link io.github.agentlb.camel.AttemptOutcome} to the balancer.</li>
 * </ul>
 * The component asks a balancer nothing: what it needs at an answer's head comes with the attempt
 * ({@link io.github.agentlb.camel.AttemptHooks}).
 */
package io.github.agentlb.camel.http;
