package io.github.agentlb.camel;

import io.github.agentlb.core.health.ActiveHealthCheck;
import io.github.agentlb.core.health.HealthCheckStates;
import io.github.agentlb.core.health.HealthCheckStates.Transition;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a balancer's active health checks ({@link HealthCheckSettings}): for each agent with an HTTP
 * address, a chain of probes on ONE scheduler (each probe schedules the agent's next one when its
 * result is in, after the interval and a seeded jitter), the results fed to the pure
 * {@link HealthCheckStates}, its marks to the outlier detector of the state in use, the listeners
 * and the agent's calls in flight. Follows the configuration and the members: {@link #sync()}
 * after each change starts, re-times or stops the chains (a chain of an older configuration or of
 * an agent gone ends at its next step). Thread-safe: the chains' steps and the changes take this
 * object's monitor, never on the request path.
 */
final class HealthChecks {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.agentlb.health");
    private static final String FAILURE_REASON = "health check failed";
    /** Seeds the jitter of the intervals by default. */
    static final long DEFAULT_SEED = 0x4845414c5448L;

    private final Supplier<BalancerState> state;
    private final Listeners listeners;
    private final String strategyName;
    private final Consumer<String> readmitted;
    private final Random random;
    /** The scheduler and probe a test gave, else null: made from the CamelContext when first needed. */
    private ScheduledExecutorService givenScheduler;
    private HealthProbe givenProbe;
    private CamelContext camel;
    private Object owner;
    /** Set between start and stop; the scheduler is made when probes first run. */
    private boolean running;
    private ScheduledExecutorService scheduler;
    private HealthProbe probe;
    private ActiveHealthCheck config = ActiveHealthCheck.DISABLED;
    private HealthCheckStates states;
    /** The next probe of each agent probed. */
    private final Map<String, ScheduledFuture<?>> chains = new HashMap<>();
    /** Counts configurations: a step of an older one ends its chain. */
    private long generation;

    /**
     * @param state      the balancer's state in use
     * @param readmitted what a re-admission does besides telling the listeners (a ramp up)
     * @param seed       seeds the jitter
     */
    HealthChecks(Supplier<BalancerState> state, Listeners listeners, String strategyName, Consumer<String> readmitted,
            long seed) {
        this.state = Objects.requireNonNull(state, "state");
        this.listeners = listeners;
        this.strategyName = strategyName;
        this.readmitted = readmitted;
        this.random = new Random(seed);
    }

    /** Probes on {@code scheduler} with {@code probe} instead of a thread and the JDK's client of their own; for tests, before the start. */
    synchronized void use(ScheduledExecutorService scheduler, HealthProbe probe) {
        this.givenScheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.givenProbe = Objects.requireNonNull(probe, "probe");
    }

    /**
     * Starts probing when the configuration says so, now or at a later change; the scheduler (one
     * thread, {@code agentlb-health-checks}) is made from {@code camel}'s executor service manager
     * when probes first run.
     */
    void start(CamelContext camel, Object owner) {
        synchronized (this) {
            this.camel = camel;
            this.owner = owner;
            running = true;
        }
        sync();
    }

    /** Stops every chain, lifts the marks and shuts down the scheduler it made. */
    void stop() {
        List<String> lifted;
        synchronized (this) {
            running = false;
            lifted = stopChains();
            if (scheduler != null && scheduler != givenScheduler) {
                camel.getExecutorServiceManager().shutdown(scheduler);
            }
            scheduler = null;
            probe = null;
        }
        if (!lifted.isEmpty()) {
            // Listeners hear a re-admission (a restarted balancer starts unmarked); the log says why.
            LOG.info("strategy={} health checks stopped with the balancer: marks lifted from {}", strategyName, lifted);
        }
        lifted.forEach(agent -> apply(agent, false, ActiveHealthCheck.DISABLED));
    }

    /**
     * Follows the configuration and the members in use: call after each change of either. Marks
     * lifted by a new configuration are applied outside this object's monitor, as every call into
     * the balancer is (the writer calls this under its own lock).
     */
    void sync() {
        List<String> lifted = List.of();
        try {
            synchronized (this) {
                lifted = syncChains();
            }
        } finally {
            lifted.forEach(agent -> apply(agent, false, ActiveHealthCheck.DISABLED));
        }
    }

    private List<String> syncChains() {
        if (!running) {
            return List.of();
        }
        BalancerState current = state.get();
        ActiveHealthCheck next = current.config.healthCheck();
        List<String> lifted = List.of();
        if (!next.equals(config)) {
            lifted = stopChains();
            config = next;
            states = next.isEnabled() ? new HealthCheckStates(next) : null;
        }
        if (states == null) {
            return lifted;
        }
        if (scheduler == null) {
            scheduler = givenScheduler != null ? givenScheduler
                    : camel.getExecutorServiceManager().newSingleThreadScheduledExecutor(owner, "agentlb-health-checks");
            probe = givenProbe != null ? givenProbe : HealthProbe.jdk(scheduler, next.timeout());
        }
        // Draining members too: one that hangs while its calls finish is marked down and ends them.
        List<String> agents = current.members();
        states.setAgents(agents);
        chains.keySet().retainAll(agents);
        for (String agent : agents) {
            if (!chains.containsKey(agent)) {
                URI uri = healthUri(current, agent);
                if (uri == null) {
                    LOG.debug("Agent {} has no HTTP address: not probed", agent);
                    continue;
                }
                chains.put(agent, schedule(agent, generation, jitterNanos()));
            }
        }
        return lifted;
    }

    /** Ends every chain; returns the agents marked down, whose marks the caller lifts outside the monitor. */
    private List<String> stopChains() {
        generation++;
        chains.values().forEach(f -> f.cancel(false));
        chains.clear();
        List<String> down = states == null ? List.of() : List.copyOf(states.down());
        states = null;
        config = ActiveHealthCheck.DISABLED;
        return down;
    }

    private long jitterNanos() {
        long jitter = config.jitter().toNanos();
        return jitter == 0 ? 0 : (long) (random.nextDouble() * jitter);
    }

    private ScheduledFuture<?> schedule(String agent, long chain, long delayNanos) {
        return scheduler.schedule(() -> probe(agent, chain), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void probe(String agent, long chain) {
        URI uri;
        Duration timeout;
        HealthProbe using;
        synchronized (this) {
            if (chain != generation || !chains.containsKey(agent)) {
                return;
            }
            uri = healthUri(state.get(), agent);
            timeout = config.timeout();
            using = probe;
        }
        if (uri == null) {
            synchronized (this) {
                chains.remove(agent);
            }
            return;
        }
        try {
            using.status(uri, timeout).whenComplete((status, failure) -> result(agent, chain, uri,
                    failure == null ? status : null, failure));
        } catch (RuntimeException e) {
            result(agent, chain, uri, null, e);
        }
    }

    private void result(String agent, long chain, URI uri, Integer status, Throwable failure) {
        boolean down;
        ActiveHealthCheck used;
        synchronized (this) {
            if (chain != generation || !chains.containsKey(agent)) {
                return;
            }
            down = record(agent, uri, status, failure);
            used = config;
            if (scheduler != null) {
                chains.put(agent, schedule(agent, chain, config.nextDelayNanos(random)));
            }
        }
        apply(agent, down, used);
    }

    /** Feeds one result to the states; returns whether the agent is down after it. */
    private boolean record(String agent, URI uri, Integer status, Throwable failure) {
        boolean passed = status != null && status == config.expectedStatus();
        listeners.probed(strategyName, agent, passed);
        Transition transition = states.record(agent, passed);
        if (transition == Transition.MARKED_DOWN) {
            LOG.warn("strategy={} agent={} marked down: {} failed ({} {})", strategyName, agent,
                    checks(config.unhealthyThreshold()), uri, status != null ? "answered " + status : describe(failure));
        } else if (transition == Transition.MARKED_UP) {
            LOG.info("strategy={} agent={} marked up: {} passed", strategyName, agent, checks(config.healthyThreshold()));
        }
        return states.isDown(agent);
    }

    /**
     * Gives the detector in use the agent's mark (again, after a detector was replaced) and tells who
     * must know; outside this object's monitor.
     */
    private void apply(String agent, boolean down, ActiveHealthCheck config) {
        BalancerState current = state.get();
        if (!current.detector.markDown(agent, down)) {
            return;
        }
        if (down) {
            listeners.ejected(strategyName, new AgentFailure(agent, FAILURE_REASON, AttemptOutcome.FAILED_BEFORE_SEND,
                    null), Duration.ZERO);
            AgentSlot slot = current.slot(agent);
            if (config.endCallsWhenDown() && slot != null) {
                for (Runnable end : slot.downHooks) {
                    try {
                        end.run();
                    } catch (RuntimeException e) {
                        LOG.debug("Ending a call of agent {} failed", agent, e);
                    }
                }
            }
        } else {
            readmit(agent);
        }
    }

    private void readmit(String agent) {
        try {
            readmitted.accept(agent);
        } catch (RuntimeException e) {
            LOG.debug("Re-admitting agent {} failed", agent, e);
        }
    }

    /** "2 health checks in a row", or "a health check" for a threshold of 1. */
    private static String checks(int threshold) {
        return threshold == 1 ? "a health check" : threshold + " health checks in a row";
    }

    private static String describe(Throwable failure) {
        Throwable t = failure;
        while (t != null && t.getCause() != null && t.getCause() != t
                && t.getClass().getName().startsWith("java.util.concurrent.Completion")) {
            t = t.getCause();
        }
        return t == null ? "no answer" : t.getClass().getSimpleName()
                + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    /** The health address of {@code agent} ({@link Membership#healthUri}), null when it has none. */
    private URI healthUri(BalancerState current, String agent) {
        AgentSlot slot = current.slot(agent);
        return slot == null ? null : Membership.healthUri(Membership.endpointUriOf(slot.child), config.path());
    }
}
