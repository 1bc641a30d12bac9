package io.github.agentlb.camel;

import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import io.github.agentlb.core.avn.AgentUtilization;
import io.github.agentlb.core.avn.Evaluation;
import io.github.agentlb.core.orca.LoadReport;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.select.RoundRobin;
import io.github.agentlb.core.shared.AvnLearning;
import io.github.agentlb.core.shared.SharedAllocation;
import io.github.agentlb.core.shared.SharedAllocationSync;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.spi.LifecycleStrategy;
import org.apache.camel.support.LifecycleStrategySupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code avn}: consistent hashing whose virtual nodes move one at a time from the most to the least
 * loaded agent ({@link AdaptiveVirtualNodes}, seed {@code 002}); this class feeds it the answers'
 * load reports and each keyed request's ring position (the selection's token), evaluates every
 * window on the thread that completes it, and publishes each new ring as a new picker. With a
 * {@link SharedAllocation}, replicas route by one allocation ({@link SharedAllocationSync}).
 * Thread-safe.
 */
final class AvnStrategy implements Strategy {

    /** Response header with the agent's CPU utilization, a decimal fraction 0..1. */
    static final String CPU_HEADER = "X-Agent-Cpu";
    /** Response header with the agent's memory utilization, a decimal fraction 0..1. */
    static final String MEMORY_HEADER = "X-Agent-Memory";
    private static final List<String> REPORT_HEADERS = List.of(CPU_HEADER, MEMORY_HEADER);
    private static final Logger LOG = LoggerFactory.getLogger(AdaptiveVirtualNodeLB.class);

    private final RoundRobin keylessRotation = new RoundRobin();
    private final SharedAllocationSync shared;
    private final AvnLearning learning;
    private StrategyContext context;
    /** The algorithm, replaced whole by a new configuration (under the writer's lock). */
    private volatile AdaptiveVirtualNodes avn;
    private Map<String, AgentUtilization> startupUtilization = Map.of();
    /** The agents last given ({@link #agentsChanged}), in their order: a new configuration starts over with them. */
    private List<String> agentIds = List.of();
    /** Whether the balancer has started once: membership changes keep the survivors' nodes then. Guarded by this. */
    private boolean started;
    /** With a shared allocation: leaves the store as the CamelContext begins to stop. */
    private LifecycleStrategy leaveWhenStopping;

    /** @param shared the allocation shared with replicas, or null to learn alone */
    AvnStrategy(SharedAllocation shared) {
        this.shared = shared == null ? null
                : new SharedAllocationSync(shared, () -> avn, this::pickerChanged, this::nanoTime);
        this.learning = new AvnLearning(() -> avn, this.shared, AvnStrategy::logEvaluation);
    }


    @Override
    public void attach(StrategyContext context) {
        this.context = context;
    }

    private long nanoTime() {
        return context.nanoTime();
    }

    private void pickerChanged() {
        context.pickerChanged();
    }

    AdaptiveVirtualNodes algorithm() {
        return avn;
    }

    SharedAllocationSync shared() {
        return shared;
    }

    /**
     * A new configuration starts the algorithm afresh over the agents it had (eq. (2) with the new
     * configuration, as at the start); the start-up utilization is read from the configuration.
     */
    @Override
    public void configure(BalancerConfig config) {
        startupUtilization = config.avn().startupUtilization();
        if (avn == null || !avn.config().equals(config.avn().config())) {
            AdaptiveVirtualNodes next = new AdaptiveVirtualNodes(config.avn().config(), this::nanoTime);
            if (!agentIds.isEmpty()) {
                setAgents(next, agentIds); // all or nothing: a configuration refused leaves the running one
            }
            avn = next;
            if (!agentIds.isEmpty() && hasStarted() && shared != null) {
                shared.agentsChanged();
            }
        }
    }

    private void setAgents(AdaptiveVirtualNodes algorithm, List<String> agents) {
        if (startupUtilization.isEmpty()) {
            algorithm.setAgents(agents);
        } else {
            algorithm.setAgents(withAverageForUnknown(agents));
        }
    }

    @Override
    public void agentsChanged(List<String> agentIds) {
        if (agentIds.isEmpty()) {
            return;
        }
        // Children arrive one by one while the route is built: the ring the balancer starts with
        // is eq. (2) over all of them. Once it has started, users are mapped: keep the survivors.
        this.agentIds = List.copyOf(agentIds);
        boolean started = hasStarted();
        if (!started) {
            setAgents(avn, agentIds);
        } else if (startupUtilization.isEmpty()) {
            avn.updateAgents(agentIds);
        } else {
            avn.updateAgents(withAverageForUnknown(agentIds));
        }
        if (started && shared != null) {
            shared.agentsChanged();
        }
    }

    @Override
    public void start() throws Exception {
        synchronized (this) {
            started = true;
        }
        if (shared != null) {
            shared.start(context.camelContext());
            // A context that begins to stop may drain its exchanges for its shutdown timeout: this
            // replica leaves the store (and its leadership) at once, routing them on what it has.
            leaveWhenStopping = new LifecycleStrategySupport() {
                @Override
                public void onContextStopping(CamelContext stopping) {
                    shared.stop();
                }
            };
            context.camelContext().addLifecycleStrategy(leaveWhenStopping);
        }
    }

    @Override
    public void stop() {
        if (shared != null) {
            shared.stop();
            context.camelContext().getLifecycleStrategies().remove(leaveWhenStopping);
        }
    }

    private synchronized boolean hasStarted() {
        return started;
    }

    /** Agents without a configured start-up utilization count as the average configured one. */
    private Map<String, AgentUtilization> withAverageForUnknown(List<String> agentIds) {
        double cpu = startupUtilization.values().stream().mapToDouble(AgentUtilization::cpu).average().orElse(0.5);
        double memory = startupUtilization.values().stream().mapToDouble(AgentUtilization::memory).average().orElse(0.5);
        Map<String, AgentUtilization> startup = new HashMap<>();
        for (String agent : agentIds) {
            startup.put(agent, startupUtilization.getOrDefault(agent, new AgentUtilization(cpu, memory)));
        }
        return startup;
    }

    /** The ring of this moment, captured whole; each reallocation publishes a new state with the new ring. */
    @Override
    public Picker newPicker(BalancerState state) {
        HashRing ring = state.agentIds().isEmpty() ? null : avn.ring();
        return new KeyedSelection(state, keylessRotation, context::nanoTime).ringPicker(ring, true,
                position -> " vnodes=" + ring.virtualNodes().get(ring.agentAt(position)));
    }

    @Override
    public Collection<String> reportHeaders() {
        return REPORT_HEADERS;
    }

    @Override
    public void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos,
            Selection selection) {
        Message answer = attempt.getMessage();
        Object cpu = answer.removeHeader(CPU_HEADER);
        Object memory = answer.removeHeader(MEMORY_HEADER);
        if (outcome.isFailure() || outcome == AttemptOutcome.CANCELLED) {
            return;
        }
        if (outcome == AttemptOutcome.ERROR_ANSWER || outcome == AttemptOutcome.BUSY) {
            // An agent that answers errors or asks to rest is as loaded as it gets: it never looks idle.
            learn(agentId, 1.0, 1.0);
        }
        if (outcome == AttemptOutcome.SUCCESS && (cpu != null || memory != null)) {
            report(agentId, cpu, memory);
        } else if (outcome == AttemptOutcome.SUCCESS) {
            LoadReport orca = OwnProperties.get(attempt, AgentLb.LOAD_REPORT_PROPERTY) instanceof LoadReport r ? r : null;
            if (orca != null) {
                reportOrca(agentId, orca);
            }
        }
        Long position = selection.hasToken() ? selection.token() : null;
        if (learning.answered(position)) {
            context.pickerChanged();
        }
    }

    private void report(String agentId, Object cpu, Object memory) {
        double c = fraction(cpu);
        double m = fraction(memory);
        if (Double.isNaN(c) || Double.isNaN(m)) {
            LOG.debug("Ignoring load report of {}: {}={} {}={}", agentId, CPU_HEADER, cpu, MEMORY_HEADER, memory);
            return;
        }
        learn(agentId, c, m);
    }

    /** A load report for the algorithm, and for the leader when this replica follows a shared allocation. */
    private void learn(String agentId, double cpu, double memory) {
        learning.report(agentId, cpu, memory);
    }

    /**
     * An ORCA report as the agent's CPU and memory: {@code cpu_utilization}, else
     * {@code application_utilization}, capped at 1 (both may exceed 1 in ORCA); memory is
     * {@code mem_utilization}, else the KV cache in use (an LLM server's memory). Without both,
     * nothing is reported.
     */
    private void reportOrca(String agentId, LoadReport orca) {
        double c = Double.isNaN(orca.cpuUtilization()) ? orca.applicationUtilization() : orca.cpuUtilization();
        double m = Double.isNaN(orca.memUtilization()) ? orca.kvCacheUsage() : orca.memUtilization();
        if (Double.isNaN(c) || Double.isNaN(m) || m > 1) {
            LOG.debug("Ignoring load report of {}: {} has no CPU and memory utilization", agentId, orca);
            return;
        }
        learn(agentId, Math.min(c, 1.0), m);
    }

    private static double fraction(Object header) {
        double value = LoadReporting.decimal(header);
        return AgentUtilization.isFraction(value) ? value : Double.NaN;
    }

    /** One INFO line per evaluation that moved: the moves in order, S before and predicted after them, the counts after. */
    static void logEvaluation(Evaluation evaluation) {
        List<Evaluation.Move> moves = evaluation.moves();
        if (moves.isEmpty()) {
            LOG.debug("Evaluated {} requests: S={} L={}", evaluation.requests(), evaluation.imbalanceIndex(),
                    evaluation.loadIndices());
            return;
        }
        StringJoiner moved = new StringJoiner(", ");
        moves.forEach(move -> moved.add(move.from() + " -> " + move.to()));
        LOG.info("Reallocated {} {}: S={} predicted {} vnodes={}",
                moves.size() == 1 ? "a virtual node" : moves.size() + " virtual nodes", moved,
                String.format(Locale.ROOT, "%.3f", moves.get(0).imbalanceBefore()),
                String.format(Locale.ROOT, "%.3f", evaluation.predictedImbalanceIndex()),
                evaluation.ring().virtualNodes());
    }

    /** {@code virtual.nodes} per agent. */
    @Override
    public Map<String, Map<String, Double>> agentMetrics() {
        Map<String, Double> counts = new TreeMap<>();
        avn.virtualNodes().forEach((agent, count) -> counts.put(agent, count.doubleValue()));
        return Map.of("virtual.nodes", counts);
    }

    /** {@code imbalance.index} (S) and {@code reallocations}, and with a shared allocation {@code allocation.generation}. */
    @Override
    public Map<String, Double> balancerMetrics() {
        AdaptiveVirtualNodes current = avn;
        if (shared != null) {
            return Map.of("imbalance.index", current.imbalanceIndex(), "reallocations", (double) current.reallocations(),
                    "allocation.generation", (double) shared.generation());
        }
        return Map.of("imbalance.index", current.imbalanceIndex(), "reallocations", (double) current.reallocations());
    }

    @Override
    public String name() {
        return "avn";
    }
}
