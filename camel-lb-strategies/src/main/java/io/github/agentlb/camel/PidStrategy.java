package io.github.agentlb.camel;

import io.github.agentlb.core.orca.LoadReport;
import io.github.agentlb.core.pid.PidWeights;
import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import io.github.agentlb.core.stats.LoadStatistics;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code pid}: one PID controller per agent moves its weight until utilizations are equal
 * ({@link PidWeights}, after Dropbox's Robinhood); exchanges follow the weights' smooth weighted
 * round-robin schedule, a new picker for each step that changes it. Utilization comes from the
 * answers' {@value #UTILIZATION_HEADER}, else their ORCA report ({@link #orcaUtilization}); a failed
 * attempt, an error answer and a busy answer count as {@code failureUtilization}. A control loop on
 * a Camel-managed thread steps every control period between start and stop. Thread-safe.
 */
final class PidStrategy implements Strategy {

    /** The response header an agent reports its utilization in (fraction, may exceed 1). */
    static final String UTILIZATION_HEADER = "X-Agent-Utilization";
    private static final List<String> REPORT_HEADERS = List.of(UTILIZATION_HEADER);
    private static final Logger LOG = LoggerFactory.getLogger(PidWeightedLB.class);

    /** The turn of the weighted schedule, shared by the states' pickers. */
    private final AtomicLong turn = new AtomicLong();
    private StrategyContext context;
    /** The controllers, replaced whole by a new configuration (under the writer's lock). */
    private volatile PidWeights core;
    /** The serving agents, kept under the writer's lock for a replaced core. */
    private List<String> agents = List.of();
    /** The control loop's executor between start and stop; guarded by this. */
    private ScheduledExecutorService controlLoop;


    @Override
    public void attach(StrategyContext context) {
        this.context = context;
    }

    PidWeights core() {
        return core;
    }

    /** A new configuration restarts the controllers, at the agents of now. */
    @Override
    public void configure(BalancerConfig config) {
        PidWeights current = core;
        if (current == null || !current.config().equals(config.pid())) {
            PidWeights replacement = new PidWeights(config.pid(), () -> context.nanoTime());
            replacement.setAgents(agents);
            core = replacement;
        }
    }

    @Override
    public void agentsChanged(List<String> agentIds) {
        core.setAgents(agentIds);
        agents = agentIds;
    }

    /**
     * The weights' smooth weighted round-robin schedule of this moment, captured whole; each
     * control step that changes the weights publishes a new state with the new schedule.
     */
    @Override
    public Picker newPicker(BalancerState state) {
        return Candidates.weighted(core.schedule(), state.agentIds().size(), turn);
    }

    @Override
    public void attemptStarted(String agentId, Exchange attempt) {
        if (!AgentSlot.isStream(attempt)) { // a long-lived stream is no load, nor its time a latency
            core.requestStarted(agentId);
        }
    }

    @Override
    public boolean needsAttemptTimes() {
        return true;
    }

    /** A re-admitted agent restarts at the mean weight of the others ({@link PidWeights#restart}). */
    @Override
    public void agentReadmitted(String agentId) {
        core.restart(agentId);
        context.pickerChanged();
    }

    @Override
    public void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos,
            Selection selection) {
        if (AgentSlot.isStream(attempt)) {
            return;
        }
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
            LoadReport orca = OwnProperties.get(attempt, AgentLb.LOAD_REPORT_PROPERTY) instanceof LoadReport r ? r : null;
            double utilization = orca == null ? Double.NaN : orcaUtilization(orca);
            if (!Double.isNaN(utilization)) {
                current.report(agentId, utilization);
            }
            return;
        }
        double utilization = LoadReporting.decimal(header);
        if (Double.isNaN(utilization)) {
            LOG.debug("Ignoring non-numeric {} '{}' from agent {}", UTILIZATION_HEADER, header, agentId);
            return;
        }
        current.report(agentId, utilization);
    }

    /**
     * The utilization an ORCA report gives the controller, fraction (may exceed 1):
     * {@code application_utilization}, else {@code cpu_utilization}, else the KV cache in use
     * ({@link LoadReport#kvCacheUsage()}); NaN when the report has none of them (gRFC A58's order).
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
    void controlStep() {
        try {
            PidWeights current = core;
            SmoothWeightedRoundRobin.Schedule before = current.schedule();
            current.controlStep();
            if (current.schedule() != before) {
                context.pickerChanged();
            }
        } catch (RuntimeException e) {
            // A failed step must not cancel the schedule: the next period tries again.
            LOG.warn("PID control step failed: {}", e.toString());
        }
    }

    @Override
    public synchronized void start() {
        if (context.camelContext() == null) {
            throw new IllegalStateException("PidWeightedLB needs a CamelContext to start its control loop");
        }
        ScheduledExecutorService executor = context.camelContext().getExecutorServiceManager()
                .newSingleThreadScheduledExecutor(context.source(), "agentlb-pid-" + context.name());
        long periodNanos = core.config().controlPeriod().toNanos();
        executor.scheduleAtFixedRate(this::controlStep, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        controlLoop = executor;
    }

    @Override
    public synchronized void stop() {
        ScheduledExecutorService executor = controlLoop;
        controlLoop = null;
        if (executor != null) {
            // shutdown() cancels the periodic task; a step under way finishes within a second.
            context.camelContext().getExecutorServiceManager().shutdownGraceful(executor, 1000);
        }
    }

    /** @return whether the control loop is scheduled (between start and stop) */
    synchronized boolean isControlLoopRunning() {
        return controlLoop != null && !controlLoop.isShutdown();
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

    @Override
    public String name() {
        return "pid";
    }

    @Override
    public Collection<String> reportHeaders() {
        return REPORT_HEADERS;
    }
}
