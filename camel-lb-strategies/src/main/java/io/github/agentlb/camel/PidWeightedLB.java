package io.github.agentlb.camel;

import io.github.agentlb.core.pid.PidWeights;
import io.github.agentlb.core.pid.PidWeightsConfig;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.camel.api.management.ManagedAttribute;

/**
 * Utilization-driven weights with one PID controller per agent, after Dropbox's Robinhood
 * (Dropbox tech blog, 2024); the algorithm is {@link PidWeights}, this class is its Camel glue.
 *
 * <ul>
 *   <li>Each agent's answer may carry header {@value #UTILIZATION_HEADER}: its utilization as a
 *       fraction (in-flight / capacity; may exceed 1 while it queues). The balancer reads it and
 *       removes it from the answer the client gets. A NaN, negative or non-numeric value is
 *       ignored with a DEBUG log. Each control step uses the mean of the reports an agent sent
 *       during the period. An agent that never sends it is measured by the balancer
 *       (in-flight requests and latency, see {@link PidWeights}).</li>
 *   <li>An answer without {@value #UTILIZATION_HEADER} but with an ORCA load report
 *       ({@code endpoint-load-metrics}, see {@link AgentSettings}) reports its
 *       {@code application_utilization}, else its {@code cpu_utilization} (the order of gRPC's
 *       weighted round-robin, gRFC A58), else its KV cache use ({@code kv_cache_usage_perc}, all
 *       vLLM reports).</li>
 *   <li>Every {@link PidWeightsConfig#controlPeriod() control period} (default 1 s) a thread
 *       moves the weights toward equal utilization; requests are spread by smooth weighted
 *       round-robin. The thread comes from Camel's {@link org.apache.camel.spi.ExecutorServiceManager}
 *       (named {@code agentlb-pid-<route id>} in Camel's thread name pattern, tracked, shut down with
 *       the route): the start takes it, the stop returns it.</li>
 *   <li>A failed attempt, an error answer and a busy answer count as a report of
 *       {@link PidWeightsConfig#failureUtilization()} (default 2.0, more than a saturated agent), so a dead or failing agent's weight falls
 *       toward the floor instead of looking idle (the error penalty of gRPC's weighted
 *       round-robin). Reports are read only from an agent's own successful answer: the header is
 *       removed from each attempt before it is sent.</li>
 *   <li>When the chosen agent fails (or is ejected), the exchange takes the schedule's next
 *       pick, so the rest follows the weights, then any agent not yet tried; each at most once.</li>
 * </ul>
 *
 * <p>A route in a {@code RouteBuilder}'s {@code configure()}, with the imports
 * {@code io.github.agentlb.camel.PidWeightedLB}, {@code io.github.agentlb.core.pid.PidWeightsConfig}, {@code io.github.agentlb.camel.AgentsBusyException},
 * {@code io.github.agentlb.camel.AgentsUnavailableException},
 * {@code io.github.agentlb.camel.NoAgentAvailableException} and {@code org.apache.camel.Exchange}:
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true&bridgeEndpoint=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new PidWeightedLB(PidWeightsConfig.custom().kp(1).ki(0.1).build()))
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
 * <p>Every knob of {@link PidWeightsConfig} is also a JavaBean property ({@code kp}, {@code ki},
 * {@code kd}, {@code controlPeriod}, ...; see {@link PidWeightsConfig.Builder} for units and
 * ranges) for YAML and properties; they are those of {@link PidSettings}. As every knob
 * ({@link Configurable}), one is checked when set (a value out of its range is refused at once with an
 * {@link IllegalArgumentException} naming it) and applied at once, before or after the start.
 *
 * <p>Thread-safe; O(1) and lock-free per exchange. Exposes {@code weight} and
 * {@code utilization} per agent through {@link #agentMetrics()} and
 * {@code utilization.max.over.mean} (NaN before the first step) through {@link #balancerMetrics()}.
 */
public final class PidWeightedLB extends AgentLoadBalancerSupport implements PidSettings {

    /** The response header an agent reports its utilization in (fraction, may exceed 1). */
    public static final String UTILIZATION_HEADER = PidStrategy.UTILIZATION_HEADER;

    /** A balancer with {@link PidWeightsConfig#ofDefaults()}. */
    public PidWeightedLB() {
        this(PidWeightsConfig.ofDefaults());
    }

    /**
     * A balancer with this configuration.
     *
     * @param config the gains, period, clamp and expiry
     */
    public PidWeightedLB(PidWeightsConfig config) {
        super(new PidStrategy(), BalancerConfig.DEFAULT.with(d -> d.pid(config)));
    }

    /** A balancer on {@code nanoClock}, for tests. */
    PidWeightedLB(PidWeightsConfig config, LongSupplier nanoClock) {
        super(new PidStrategy(), BalancerConfig.DEFAULT.with(d -> d.pid(config)), nanoClock);
    }

    private PidStrategy pid() {
        return (PidStrategy) strategy();
    }

    /** Agent id to weight (mean 1.0), for JMX. */
    @ManagedAttribute(description = "Agent id to weight, relative to the mean weight 1.0")
    public Map<String, Double> getWeights() {
        return pidWeights().weights();
    }

    /** Agent id to the utilization of the last control step (fraction; NaN without a signal), for JMX. */
    @ManagedAttribute(description = "Agent id to utilization at the last control step, fraction")
    public Map<String, Double> getUtilizations() {
        return pidWeights().utilizations();
    }

    /** @return the algorithm's state: weights, utilizations, schedule; for plots and tests */
    public PidWeights pidWeights() {
        return pid().core();
    }

    /** Runs one control step now; the scheduled loop calls this every control period. */
    public void controlStep() {
        pid().controlStep();
    }

    /** @return whether the control loop is scheduled (between start and stop) */
    boolean isControlLoopRunning() {
        return pid().isControlLoopRunning();
    }
}
