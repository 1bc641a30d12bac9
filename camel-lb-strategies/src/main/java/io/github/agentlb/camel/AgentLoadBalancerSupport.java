package io.github.agentlb.camel;

import io.github.agentlb.core.retry.RetriesInFlight;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.Traceable;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedResource;
import org.apache.camel.processor.loadbalancer.LoadBalancerSupport;
import org.slf4j.LoggerFactory;

/**
 * The one Camel face of every strategy: a {@link org.apache.camel.processor.loadbalancer.LoadBalancer}
 * for Camel's {@code loadBalance()} EIP over a {@link Strategy} that only picks agents. The classes
 * a route uses ({@link RoundRobinLB}, {@link ConsistentHashLB}, {@link PidWeightedLB},
 * {@link AdaptiveVirtualNodeLB}, {@link LeastRequestLB}) are this class with their strategy and
 * their own knobs; everything else is here, the same for all: members and their names, failover,
 * outlier ejection, busy agents, slow start, drains, learned sessions, load reports, listeners,
 * the queue when agents are full ({@link FlowControlSettings}).
 *
 * <h2>One state per change</h2>
 * Everything a request reads is one immutable {@link BalancerState}: members with names and
 * weights, draining and ramping agents, the {@link BalancerConfig}, the strategy's {@link Picker}
 * and the stores built from the configuration (outlier ejection, bounded loads, learned sessions).
 * One writer (one lock) publishes a new state for each change, and {@link #process} reads it once:
 * its only volatile read of the balancer, so a decision never mixes two states. Per-agent
 * counters (in flight, rests, slow-start offers, load reports) live outside and carry over.
 * {@link Attempts} runs the exchange on that state through an {@link AttemptContext}, never
 * through this class.
 *
 * <h2>Agents</h2>
 * A child's agent id is the name given to it with {@link #nameAgent}, else its endpoint URI without
 * user info and query ({@link #agentIdOf}): never a list position, so a key's agent is the same in every instance,
 * JVM and child order (a rotation, {@code rr}'s, follows child order); two children with one id are an error. Agents
 * also come and go at runtime ({@link RuntimeMembership}).
 *
 * <h2>Configuration and lifecycle</h2>
 * Every knob is a JavaBean property (YAML {@code beans:}, {@code camel.beans.*} properties, XML) of
 * {@link FailureSettings}, {@link AgentSettings} and the strategy's own; when a knob takes effect is
 * one rule, in {@link Configurable}. One instance serves one {@code loadBalance()}: a second route
 * that uses the same instance is rejected when it is created, naming both routes. Visible in JMX
 * ({@link ManagedResource}) when {@code camel-management} is on the class path. On completion the
 * exchange carries properties {@value AgentLb#AGENT_PROPERTY} and {@value AgentLb#STRATEGY_PROPERTY}.
 *
 * <p>Logs one INFO line per exchange and per failover on {@code io.github.agentlb.decision}, per ejection and
 * re-admission on {@code io.github.agentlb.health} ({@link DecisionLog}). Thread-safe: {@link #process} is lock-free.
 *
 * <p>Over 300 lines: this is the one class on Camel's {@code LoadBalancerSupport}, so Camel's
 * contract (process, lifecycle, children, tracing, the CamelContext) and the JMX attributes and
 * operations Camel's management reads from this class meet here; each method only delegates to the
 * state, the writer or the strategy, and the knobs live in the interfaces it implements.
 */
@ManagedResource(description = "Agent load balancer (agentlb)")
public abstract class AgentLoadBalancerSupport extends LoadBalancerSupport
        implements CamelContextAware, Traceable, RuntimeMembership, FailureSettings, AgentSettings, HealthCheckSettings,
        RetryBudgetSettings, FlowControlSettings, HedgingSettings {

    private final Strategy strategy;
    private final Listeners listeners = new Listeners();
    private final StateWriter writer;
    private final AttemptContext attempts;
    private final RequestQueue queue;
    private final HealthChecks healthChecks;
    private volatile LongSupplier nanoClock;
    private LongSupplier epochClock = System::currentTimeMillis;

    /** A balancer over {@code strategy} with {@link BalancerConfig#DEFAULT}. */
    protected AgentLoadBalancerSupport(Strategy strategy) {
        this(strategy, BalancerConfig.DEFAULT);
    }

    /** A balancer over {@code strategy} with {@code config}. */
    protected AgentLoadBalancerSupport(Strategy strategy, BalancerConfig config) {
        this(strategy, config, System::nanoTime);
    }

    /** A balancer on the clock {@code nanoClock} (ns), for tests. */
    AgentLoadBalancerSupport(Strategy strategy, BalancerConfig config, LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "clock");
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.writer = new StateWriter(new WriterOwner(), strategy, listeners, this::nanoTime,
                Objects.requireNonNull(config, "config"));
        this.attempts = new AttemptContext(strategy, listeners, writer, this::nanoTime, () -> epochClock.getAsLong(),
                this::isRunAllowed);
        this.queue = new RequestQueue(this::nanoTime, writer::state, attempts::run, listeners);
        this.healthChecks = new HealthChecks(writer::state, listeners, strategy.name(), attempts::readmitted,
                HealthChecks.DEFAULT_SEED);
        strategy.attach(writer);
        writer.attached();
        listeners.add((MembershipListener) agents -> healthChecks.sync());
    }

    /** The strategy's short name for logs and metrics, e.g. {@code rr} or {@code ch}. */
    public final String strategyName() {
        return strategy.name();
    }

    /** The strategy's short name, for JMX. */
    @ManagedAttribute(description = "Strategy: rr, lr, ch, pid or avn")
    public final String getStrategy() {
        return strategy.name();
    }

    /** @return the strategy this balancer picks agents with */
    protected final Strategy strategy() {
        return strategy;
    }

    @Override
    public final BalancerState balancerState() {
        return writer.state();
    }

    @Override
    public final BalancerConfig balancerConfig() {
        return writer.config();
    }

    @Override
    public final void configure(String knob, Object value, Consumer<ConfigDraft> change) {
        writer.configure(knob, value, change);
        healthChecks.sync();
    }

    @Override
    public final <T> T configured(String knob, T current) {
        return writer.configured(knob, current);
    }

    @Override
    public final boolean wasSet(String knob) {
        return writer.wasSet(knob);
    }

    /**
     * Applies and checks the knobs set so far that wait for each other ({@link Configurable}), as the
     * start does, so that a bad combination is found where the configuration is read instead of when
     * the route starts.
     *
     * @throws IllegalArgumentException naming a knob and its value when a relation does not hold
     * @throws IllegalStateException    if the balancer is starting or started
     */
    public final void checkSettings() {
        if (isStartingOrStarted()) {
            throw new IllegalStateException("checkSettings is for a balancer not started yet");
        }
        writer.applyWaitingKnobs();
    }

    /** Registers a listener told of every attempt's outcome. Thread-safe. */
    public final void addAttemptListener(AttemptListener listener) {
        listeners.add(listener);
    }

    /** Registers a listener told of every ejection and re-admission. Thread-safe. */
    public final void addHealthListener(HealthListener listener) {
        listeners.add(listener);
    }

    /** Registers a listener told of the current agents now and of every later change. Thread-safe. */
    public final void addMembershipListener(MembershipListener listener) {
        synchronized (writer) {
            listeners.add(listener);
            BalancerState now = writer.state();
            Listeners.notify(listener, now.agentIds());
            Listeners.notifyMembers(listener, now.members());
        }
    }

    /** Per-agent state for metrics: a figure (e.g. {@code weight}) to agent id to its value ({@link Strategy#agentMetrics}). */
    public Map<String, Map<String, Double>> agentMetrics() {
        return strategy.agentMetrics();
    }

    /** Balancer-wide figures for metrics, the strategy's ({@link Strategy#balancerMetrics}, e.g. {@code imbalance.index}). */
    public Map<String, Double> balancerMetrics() {
        return strategy.balancerMetrics();
    }

    @Override
    public final RetriesInFlight retriesInFlight() {
        return attempts.retries;
    }

    /** Outlier ejections and health checks' mark-downs since the balancer was created, for JMX. */
    @ManagedAttribute(description = "Outlier ejections and health check mark-downs since the balancer was created")
    public final long getEjections() {
        return listeners.ejections();
    }

    /** {@code agentlb-<strategy>}, the label of this processor in Camel's tracer and message history. */
    @Override
    public String getTraceLabel() {
        return "agentlb-" + strategyName();
    }

    /**
     * Names the agent behind {@code endpointUri}: decisions, logs and metrics use {@code agentId}
     * for that child instead of its URI; a later call re-maps the children at once.
     *
     * @param endpointUri the child's endpoint URI as in {@code .to(...)}, normalized, without options, or its http(s) address
     * @param agentId     the stable name, e.g. {@code A1}, without white space
     * @return this balancer
     * @throws IllegalArgumentException if either is blank, the name has white space or is another child's id, no child
     *     has that endpoint (from the first start on: a name given before it that finds none fails it), or its agent came by addAgent
     */
    public final AgentLoadBalancerSupport nameAgent(String endpointUri, String agentId) {
        writer.name(endpointUri, agentId);
        return this;
    }

    @Override
    public final MembershipEdit editAgents() {
        return new MembershipEdit(writer);
    }

    /**
     * The session id a client sees for session {@code agentSessionId} minted by {@code agentId},
     * the same on every replica with the same secret.
     *
     * @return the sealed id, or {@code agentSessionId} unchanged while sessions are not learned
     */
    public final String sessionIdForClient(String agentId, String agentSessionId) {
        SessionAffinity sessions = writer.state().sessions;
        return sessions == null || sessions.header() == null ? agentSessionId : sessions.clientId(agentId, agentSessionId);
    }

    /** A child's id before {@link #nameAgent names}: its endpoint URI without user info and query, else its processor id. */
    public static String agentIdOf(Processor processor) {
        return Membership.defaultId(processor);
    }

    /**
     * @throws IllegalArgumentException if the child's id is already another child's, or the child
     *     belongs to another route than this balancer's children (nothing changes then)
     */
    @Override
    public void addProcessor(AsyncProcessor processor) {
        synchronized (writer) {
            String route = Membership.routeIdOf(processor);
            if (route != null && getRouteId() != null && !route.equals(getRouteId()) && !getAgentIds().isEmpty()) {
                throw new IllegalArgumentException("One balancer instance serves one loadBalance(): " + this
                        + " already balances route '" + getRouteId() + "', so route '" + route
                        + "' needs its own instance (another bean, or a new instance per route)");
            }
            changeChildren(() -> super.addProcessor(processor), () -> super.removeProcessor(processor));
            if (route != null) {
                setRouteId(route);
            }
        }
    }

    @Override
    public void removeProcessor(AsyncProcessor processor) {
        synchronized (writer) {
            changeChildren(() -> super.removeProcessor(processor), () -> super.addProcessor(processor));
        }
    }

    /** Changes the children and publishes; when the state is refused, undoes the change and rethrows. */
    private void changeChildren(Runnable change, Runnable undo) {
        change.run();
        try {
            writer.childrenChanged();
        } catch (RuntimeException e) {
            undo.run();
            throw e;
        }
    }

    /**
     * Chooses and sends the first attempt on the caller's thread, as Camel's own balancers do: returns
     * {@code true}, the callback already told {@code true}, when every attempt answered synchronously;
     * {@code false} when an answer came asynchronously (the callback is then told {@code false}, once).
     * With a queue ({@link FlowControl}), an exchange that finds every agent at its limit waits there
     * and this returns {@code false} at once, no thread held ({@link RequestQueue}); one that opens a
     * long-lived stream ({@link AgentSlot#opensStream}), no load, passes the queue.
     */
    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        BalancerState current = writer.state();
        return current.config.flowControl().queued() && !current.agentIds().isEmpty() && !AgentSlot.opensStream(exchange.getIn())
                ? queue.process(exchange, callback, current) : attempts.run(exchange, callback, current);
    }

    @Override
    public final QueueFigures queueFigures() {
        return queue.figures(writer.state().config.flowControl());
    }

    @Override
    protected void doInit() throws Exception {
        super.doInit();
        writer.initKey();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        synchronized (writer) {
            writer.start();
        }
        strategy.start();
        healthChecks.start(getCamelContext(), this);
        queue.start(getCamelContext());
        SessionAffinity.warnWithoutSecret(getLearnedSessions(), writer.config().key().name(),
                LoggerFactory.getLogger(AgentLoadBalancerSupport.class));
    }

    @Override
    protected void doStop() throws Exception {
        queue.stop();
        healthChecks.stop();
        strategy.stop();
        super.doStop();
    }

    /** Replaces the clock of ejections, rests, reports and deadlines (ns); for tests. Forgets earlier ejections. */
    final void useNanoClock(LongSupplier clock) {
        this.nanoClock = Objects.requireNonNull(clock, "clock");
        writer.resetDetector();
    }

    /** Runs the health checks on {@code scheduler} with {@code probe}; for tests, before the start. */
    final void useHealthChecks(ScheduledExecutorService scheduler, HealthProbe probe) {
        healthChecks.use(scheduler, probe);
    }

    /** Replaces the wall clock read for {@code Retry-After} dates; for tests, before the first exchange. */
    final void useEpochClock(LongSupplier clock) {
        this.epochClock = Objects.requireNonNull(clock, "clock");
    }

    /** Replaces the timer of queue deadlines and failover backoffs; for tests, before the first exchange waits. */
    final void useQueueTimer(ScheduledExecutorService timer) {
        queue.useTimer(timer);
        attempts.timer.use(timer);
    }

    final long nanoTime() {
        return nanoClock.getAsLong();
    }

    @Override
    public CamelContext getCamelContext() {
        return writer.camelContext();
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        writer.setCamelContext(camelContext);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + getAgentIds();
    }

    /** The writer's view of this balancer's Camel side. */
    private final class WriterOwner implements StateWriter.Owner {
        @Override
        public AsyncProcessor[] children() {
            return doGetProcessors();
        }

        @Override
        public void addChild(AsyncProcessor child) {
            AgentLoadBalancerSupport.super.addProcessor(child);
        }

        @Override
        public void removeChild(AsyncProcessor child) {
            AgentLoadBalancerSupport.super.removeProcessor(child);
        }

        @Override
        public boolean started() {
            return isStartingOrStarted();
        }

        @Override
        public Object source() {
            return AgentLoadBalancerSupport.this;
        }

        @Override
        public String name() {
            return getRouteId() != null ? getRouteId() : getId() != null ? getId() : "balancer";
        }
    }
}
