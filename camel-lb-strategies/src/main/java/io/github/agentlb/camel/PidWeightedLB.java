package io.github.agentlb.camel;

import io.github.agentlb.core.orca.LoadReport;
import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import java.util.concurrent.atomic.AtomicLong;
import io.github.agentlb.core.pid.PidWeights;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.core.stats.LoadStatistics;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.camel.Exchange;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.spi.ExecutorServiceManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *       ({@code endpoint-load-metrics}, see {@link AgentLoadBalancerSupport}) reports its
 *       {@code application_utilization}, else its {@code cpu_utilization} (the order of gRPC's
 *       weighted round-robin, gRFC A58), else its KV cache use ({@code kv_cache_usage_perc}, all
 *       vLLM reports): {@link #orcaUtilization}.</li>
 *   <li>Every {@link PidWeightsConfig#controlPeriod() control period} (default 1 s) a thread
 *       moves the weights toward equal utilization; requests are spread by smooth weighted
 *       round-robin. The thread comes from Camel's {@link ExecutorServiceManager} (named
 *       {@code agentlb-pid-<route id>} in Camel's thread name pattern, tracked, shut down with
 *       the route): {@link #doStart()} takes it, {@link #doStop()} returns it.</li>
 *   <li>A failed attempt, an error answer and a busy answer count as a report of
 *       {@link PidWeightsConfig#failureUtilization()} (default 2.0, more than a saturated agent), so a dead or failing agent's weight falls
 *       toward the floor instead of looking idle (the error penalty of gRPC's weighted
 *       round-robin). Reports are read only from an agent's own successful answer: the header is
 *       removed from each attempt before it is sent.</li>
 *   <li>When the chosen agent fails (or is ejected), the exchange takes the schedule's next
 *       pick, so the rest follows the weights, then any agent not yet tried; each at most once.</li>
 * </ul>
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new PidWeightedLB(PidWeightsConfig.custom().kp(1).ki(0.1).build()))
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
 * <p>Every knob of {@link PidWeightsConfig} is also a JavaBean property ({@code kp}, {@code ki},
 * {@code kd}, {@code controlPeriod}, ...; see {@link PidWeightsConfig.Builder} for units and
 * ranges) for YAML and properties, applied and checked when the route starts; they are inherited
 * from {@link PidWeightedSettings}.
 *
 * <p>Thread-safe; O(1) and lock-free per exchange. Exposes {@code weight} and
 * {@code utilization} per agent through {@link #agentMetrics()} and
 * {@code utilization.max.over.mean} (NaN before the first step) through {@link #balancerMetrics()}.
 *
 * <p>Over 300 lines: the Camel face of the controller (its knobs as JavaBean setters, the utilization signal read from answers and load reports, the control step that publishes a new schedule); the controller is {@code core.pid}.
 */
public class PidWeightedLB extends PidWeightedSettings {

    /** The response header an agent reports its utilization in (fraction, may exceed 1). */
    public static final String UTILIZATION_HEADER = "X-Agent-Utilization";
    private static final List<String> REPORT_HEADERS = List.of(UTILIZATION_HEADER);

    private static final Logger LOG = LoggerFactory.getLogger(PidWeightedLB.class);

    private final LongSupplier nanoClock;
    private volatile PidWeights core;
    private volatile ScheduledExecutorService controlLoop;
    /** The turn of the weighted schedule, shared by the states' pickers. */
    private final AtomicLong turn = new AtomicLong();

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
        this(config, System::nanoTime);
    }

    PidWeightedLB(PidWeightsConfig config, LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.core = new PidWeights(Objects.requireNonNull(config, "config"), nanoClock);
        useNanoClock(nanoClock);
    }

    /** @return the configuration in use */
    @Override
    public PidWeightsConfig getConfig() {
        return core.config();
    }

    /**
     * Replaces the configuration; only before the balancer starts.
     *
     * @param config the new configuration
     * @throws IllegalStateException if the balancer is started
     */
    public synchronized void setConfig(PidWeightsConfig config) {
        Objects.requireNonNull(config, "config");
        if (isRunning()) {
            throw new IllegalStateException("config can only be set before the balancer starts");
        }
        useConfig(config);
    }

    private void useConfig(PidWeightsConfig config) {
        PidWeights replacement = new PidWeights(config, nanoClock);
        replacement.setAgents(getAgentIds());
        core = replacement;
        settingsChanged();
    }

    /** Agent id to weight (mean 1.0), for JMX. */
    @ManagedAttribute(description = "Agent id to weight, relative to the mean weight 1.0")
    public Map<String, Double> getWeights() {
        return core.weights();
    }

    /** Agent id to the utilization of the last control step (fraction; NaN without a signal), for JMX. */
    @ManagedAttribute(description = "Agent id to utilization at the last control step, fraction")
    public Map<String, Double> getUtilizations() {
        return core.utilizations();
    }

    /** @return the algorithm's state: weights, utilizations, schedule; for plots and tests */
    public PidWeights pidWeights() {
        return core;
    }

    /** @deprecated renamed to {@link #pidWeights()}: {@link #getWeights()} is the weights themselves */
    @Deprecated
    public PidWeights weights() {
        return pidWeights();
    }

    @Override
    public String strategyName() {
        return "pid";
    }

    @Override
    protected void agentsChanged(List<String> agentIds) {
        core.setAgents(agentIds);
    }

    /**
     * The weights' smooth weighted round-robin schedule of this moment, captured whole; each
     * control step that changes the weights publishes a new state with the new schedule.
     */
    @Override
    protected Picker newPicker(List<String> agentIds, Map<String, Double> weights) {
        return Candidates.weighted(core.schedule(), agentIds.size(), turn);
    }

    @Override
    protected void attemptStarted(String agentId, Exchange attempt) {
        core.requestStarted(agentId);
    }

    /** A re-admitted agent restarts at the mean weight of the others ({@link PidWeights#restart}). */
    @Override
    protected void agentReadmitted(String agentId) {
        core.restart(agentId);
        pickerChanged();
    }

    @Override
    protected Collection<String> reportHeaders() {
        return REPORT_HEADERS;
    }

    @Override
    protected void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos) {
        PidWeights current = core;
        current.requestFinished(agentId, elapsedNanos);
        Object header = attempt.getMessage().removeHeader(UTILIZATION_HEADER);
        if (outcome.isFailure() || outcome == AttemptOutcome.ERROR_ANSWER || outcome == AttemptOutcome.BUSY) {
            double penalty = current.config().failureUtilization();
            if (penalty > 0) {
                current.report(agentId, penalty);
            }
            return;
        }
        if (outcome != AttemptOutcome.SUCCESS) {
            return;
        }
        if (header == null) {
            LoadReport orca = attempt.getProperty(LOAD_REPORT_PROPERTY, LoadReport.class);
            double utilization = orca == null ? Double.NaN : orcaUtilization(orca);
            if (!Double.isNaN(utilization)) {
                current.report(agentId, utilization);
            }
            return;
        }
        double utilization = decimalHeader(header);
        if (Double.isNaN(utilization)) {
            LOG.debug("Ignoring non-numeric {} '{}' from agent {}", UTILIZATION_HEADER, header, agentId);
            return;
        }
        current.report(agentId, utilization);
    }

    /**
     * The utilization an ORCA report gives the controller, fraction (may exceed 1):
     * {@code application_utilization}, else {@code cpu_utilization}, else the KV cache in use
     * ({@link LoadReport#kvCacheUsage()}); NaN when the report has none of them.
     */
    static double orcaUtilization(LoadReport report) {
        if (!Double.isNaN(report.applicationUtilization())) {
            return report.applicationUtilization();
        }
        if (!Double.isNaN(report.cpuUtilization())) {
            return report.cpuUtilization();
        }
        return report.kvCacheUsage();
    }

    /** Runs one control step now; the scheduled loop calls this every control period. */
    public void controlStep() {
        try {
            PidWeights current = core;
            SmoothWeightedRoundRobin.Schedule before = current.schedule();
            current.controlStep();
            if (current.schedule() != before) {
                pickerChanged();
            }
        } catch (RuntimeException e) {
            // A failed step must not cancel the schedule: the next period tries again.
            LOG.warn("PID control step failed: {}", e.toString());
        }
    }

    @Override
    protected void applySettings() {
        super.applySettings();
        PidWeightsConfig staged = stagedConfig();
        if (staged != null) {
            useConfig(staged);
        }
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        if (getCamelContext() == null) {
            throw new IllegalStateException("PidWeightedLB needs a CamelContext to start its control loop");
        }
        String name = "agentlb-pid-" + (getRouteId() != null ? getRouteId() : getId() != null ? getId() : "balancer");
        ScheduledExecutorService executor = getCamelContext().getExecutorServiceManager()
                .newSingleThreadScheduledExecutor(this, name);
        long periodNanos = core.config().controlPeriod().toNanos();
        executor.scheduleAtFixedRate(this::controlStep, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        controlLoop = executor;
    }

    @Override
    protected void doStop() throws Exception {
        ScheduledExecutorService executor = controlLoop;
        controlLoop = null;
        if (executor != null) {
            // shutdown() cancels the periodic task; a step under way finishes within a second.
            getCamelContext().getExecutorServiceManager().shutdownGraceful(executor, 1000);
        }
        super.doStop();
    }

    /** @return whether the control loop is scheduled (between start and stop) */
    boolean isControlLoopRunning() {
        ScheduledExecutorService executor = controlLoop;
        return executor != null && !executor.isShutdown();
    }

    @Override
    public Map<String, Map<String, Double>> agentMetrics() {
        PidWeights current = core;
        return Map.of("weight", current.weights(), "utilization", current.utilizations());
    }

    @Override
    public Map<String, Double> balancerMetrics() {
        double[] known = core.utilizations().values().stream()
                .mapToDouble(Double::doubleValue).filter(Double::isFinite).toArray();
        return Map.of("utilization.max.over.mean",
                known.length == 0 ? Double.NaN : LoadStatistics.of(known).maxOverMean());
    }
}
