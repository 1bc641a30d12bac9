package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.Durations;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.orca.LoadReport;
import io.github.agentlb.core.orca.LoadReports;
import io.github.agentlb.core.orca.Saturation;
import io.github.agentlb.core.session.LearnedSessions;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.Traceable;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedOperation;
import org.apache.camel.api.management.ManagedResource;
import org.apache.camel.processor.SendProcessor;

/**
 * The shared Camel side of every strategy: maps child processors to agent ids, asks the strategy
 * for a {@link Selection}, and runs the exchange's {@link Attempts}: failover, outlier ejection
 * and retry safety are the same for all four strategies.
 *
 * <h2>Agent ids</h2>
 * A child's agent id is the name given to it with {@link #nameAgent}, else its endpoint URI
 * without user info and query ({@link #agentIdOf}): {@code http://host:8081?authPassword=s} has
 * id {@code http://host:8081}, so no endpoint option reaches logs, metrics tags or exception
 * messages. Never a list position nor an identity hash code, so decisions are the same in every
 * instance, JVM and child order. Two children with one id (also two endpoints that differ only in
 * their options) are a configuration error; a rejected change leaves the balancer as it was.
 *
 * <h2>Configuration and lifecycle</h2>
 * Every knob has a builder method (Java) and a JavaBean setter (YAML {@code beans:},
 * {@code camel.beans.*} properties, XML). Setters of the algorithm's knobs are accepted until the
 * balancer starts and validated when its route starts: a bad value fails the start with an
 * {@link IllegalArgumentException} naming the field and the value. One instance serves one
 * {@code loadBalance()}: a second route that uses the same instance is rejected when it is
 * created, naming both routes. Visible in JMX ({@link ManagedResource}) with the route's other
 * processors when {@code camel-management} is on the class path.
 *
 * <p>On completion the exchange carries properties {@value #AGENT_PROPERTY} (the agent that
 * answered) and {@value #STRATEGY_PROPERTY}, for metrics and logs downstream.
 *
 * <h2>Logging</h2>
 * One INFO line per exchange on logger {@code io.github.agentlb.decision}:
 * {@code request=<req_id> strategy=<name> agent=<id> <detail>} (and {@code ejected=[..]} while
 * agents are ejected), one INFO line per failover, one INFO line per ejection and re-admission on
 * {@code io.github.agentlb.health}.
 *
 * <h2>One state per change</h2>
 * Everything a request reads is one immutable {@link BalancerState}: members with names and
 * weights, draining and ramping agents, the strategy's {@link Picker}, outlier ejection, the
 * failover policy and the answer rules. One writer ({@code StateWriter}, one lock) publishes a new
 * state for each change and {@link #process} reads it once, so a decision never mixes two
 * states. Per-agent counters (in flight, PID signals, decayed loads, ejection state) live outside
 * and carry over.
 *
 * <h2>A fleet that changes at runtime</h2>
 * {@link #addAgent}, {@link #removeAgent}, {@link #drainAgent} (no new requests, those in flight
 * finish, then it leaves), {@link #setAgentWeight} and {@link #editAgents} (several at once) each
 * publish one new state, all or nothing, and are JMX operations on the balancer's MBean.
 * Membership sources (a watched file, DNS, Kubernetes EndpointSlices; modules
 * {@code camel-lb-fleet} and {@code camel-lb-kubernetes}) feed them through {@link FleetSync}.
 * Slow start ({@link #setSlowStart}, off by default) ramps an added or re-admitted agent's share
 * over a window: it keeps part f(t) of the requests the strategy offers it, keyed exchanges by
 * their key's rank (the same keys come back as f grows), others by count.
 *
 * <h2>ORCA load reports and the saturation gate</h2>
 * Each answer's {@value LoadReports#HEADER} header (ORCA, sent by vLLM and Triton; TEXT and JSON
 * forms, see {@link LoadReports}) is read, removed from the answer, kept as the agent's latest
 * report with its arrival time (the balancer's clock), and set on the exchange as property
 * {@value #LOAD_REPORT_PROPERTY}. Agents send it when the request asks:
 * {@link #setLoadReportFormat} ({@code TEXT} or {@code JSON}; off by default) adds
 * {@value LoadReports#FORMAT_HEADER} to each attempt. A report header in the client's request
 * never reaches an agent. {@code pid}, {@code avn} and {@code lr} use reports as load signals
 * (see each). The saturation gate ({@link #setSaturation}; on by default with the Gateway API
 * inference extension's thresholds, acting only once an agent has reported) tries an agent whose
 * fresh report says it is saturated only after the others, before ejected ones: never dropped.
 * When every agent that could take the exchange is saturated, the gate steps aside and the
 * strategy's own order stands (passing them all over would send every exchange to the strategy's
 * first pick). A decision where the gate passed agents over ends with {@code saturated=[..]}.
 *
 * <h2>Thread-safety</h2>
 * {@link #process} is lock-free: one volatile read of the state. Changes are serialized by the
 * writer; the JavaBean settings of the algorithm are applied when the balancer starts.
 *
 * <p>Failover, outlier ejection and answer classes (busy, error answer), and their knobs, are
 * described in {@link FailureAwareSupport}; ids and names in {@link Membership}. Over 300 lines,
 * because it is the balancer's whole public face: the strategy's hooks, the lifecycle, the
 * membership operations, the JMX attributes and the JavaBean knobs of slow start, learned sessions
 * and load reports (Camel binds YAML and properties to the balancer's own setters), each a few
 * lines that delegate, with their contracts; the work is in {@code StateWriter}, {@link Attempts},
 * {@code SessionAffinity} and {@code LoadReporting}.
 */
@ManagedResource(description = "Agent load balancer (agentlb)")
public abstract class AgentLoadBalancerSupport extends FailureAwareSupport implements CamelContextAware, Traceable {

    /** The header read for the request id in decision logs; the exchange id when it is absent. */
    public static final String REQUEST_ID_HEADER = "req_id";
    /** Exchange property set to the id of the agent that produced the outcome, e.g. for metrics tags. */
    public static final String AGENT_PROPERTY = "agentlb.agent";
    /** Exchange property set to the strategy name ({@link #strategyName()}). */
    public static final String STRATEGY_PROPERTY = "agentlb.strategy";
    /**
     * Exchange property set to the {@link LoadReport} of the answer, when the agent sent a usable
     * {@value LoadReports#HEADER}; strategies read it in {@link #attemptCompleted}.
     */
    public static final String LOAD_REPORT_PROPERTY = "agentlb.loadReport";

    private final Listeners listeners = new Listeners();
    private final StateWriter writer = new StateWriter(new WriterOwner());
    private final boolean strategyReadsAttemptTimes = Attempts.overridesAttemptCompleted(getClass());
    private final LoadReporting loadReporting = new LoadReporting(this::isRunning, this::nanoTime);
    private CamelContext camelContext;
    /** Learned sessions, null while off; read once per exchange. */
    private volatile SessionAffinity sessionAffinity;

    /** Told of every attempt's outcome, for example by a metrics binder. Must be fast and not block. */
    @FunctionalInterface
    public interface AttemptListener {
        void attemptCompleted(String strategy, String agentId, AttemptOutcome outcome, long elapsedNanos);
    }

    /** The strategy's short name for logs and metrics, e.g. {@code rr} or {@code ch}. */
    public abstract String strategyName();

    /**
     * Builds the strategy's {@link Picker} for a new {@link BalancerState}: called by the balancer's
     * one writer for each change, before requests see the state. The picker captures what it
     * decides with (a ring, a rotation, a schedule) so that a decision reads one state only.
     * By default it calls {@link #select} with {@code agentIds}. Ids the picker returns that are
     * not serving agents of the state are skipped; so are repeated ids.
     *
     * @param agentIds the agents taking new requests, in child order; possibly empty
     * @param weights  agent id to its static weight (1 unless set), for the same agents
     */
    protected Picker newPicker(List<String> agentIds, Map<String, Double> weights) {
        return exchange -> select(exchange, agentIds);
    }

    /**
     * Decides where {@code exchange} goes, for strategies that do not override {@link #newPicker}.
     * Called once per exchange, on the caller's thread; must not block.
     *
     * @param agentIds the serving agent ids of the state being read, in child order (never empty)
     * @throws UnsupportedOperationException unless overridden (a strategy overrides one of the two)
     */
    protected Selection select(Exchange exchange, List<String> agentIds) {
        throw new UnsupportedOperationException(getClass().getName() + " overrides neither newPicker nor select");
    }

    /**
     * Publishes a new state with the same agents and a new picker from {@link #newPicker}: for a
     * strategy that learned a new ring or schedule (a control step, a reallocation).
     */
    protected final void pickerChanged() {
        writer.pickerChanged();
    }

    /** @return the state requests read now: agents, draining, weights, picker; immutable */
    public BalancerState balancerState() {
        return writer.state();
    }

    /**
     * Called when the set of serving agents changes (including the first child added, a drain,
     * and at start after settings changed), serialized with other calls, before requests see the
     * new state and before {@link #newPicker}. Strategies with learned per-agent state follow the
     * membership here; a strategy that throws rejects the change, so it must change nothing first.
     *
     * @param agentIds the new serving agent ids in child order; possibly empty
     */
    protected void agentsChanged(List<String> agentIds) {
    }

    /**
     * The headers an agent reports load in (e.g. {@code X-Agent-Utilization}): removed from each
     * attempt before it is sent, so only the agent's own answer can carry them. Empty by default.
     */
    protected Collection<String> reportHeaders() {
        return List.of();
    }

    /**
     * Called when outlier ejection re-admits {@code agentId} (its trial answered), before
     * listeners hear of it. Strategies with learned per-agent state restart the agent from
     * neutral here. Must be fast and not block.
     */
    protected void agentReadmitted(String agentId) {
    }

    /** Called just before an attempt is sent to {@code agentId}. Must be fast and not block. */
    protected void attemptStarted(String agentId, Exchange attempt) {
    }

    /**
     * Called when an attempt on {@code agentId} has completed, before the failover decision.
     * Strategies read load reports from a {@link AttemptOutcome#SUCCESS successful} answer here,
     * and count failures as load.
     *
     * @param outcome      how the attempt ended
     * @param elapsedNanos the time the attempt took, ns
     */
    protected void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos) {
    }

    /**
     * The value of a load report header ({@code X-Agent-*}): a number, or a decimal string with
     * {@code '.'}; NaN when it is absent, not a number, NaN or infinite.
     */
    protected static double decimalHeader(Object header) {
        double value;
        if (header instanceof Number number) {
            value = number.doubleValue();
        } else {
            try {
                value = header == null ? Double.NaN : Double.parseDouble(header.toString().trim());
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.isFinite(value) ? value : Double.NaN;
    }

    /**
     * Client-supplied text made safe for a one-line log of {@code key=value} fields (control
     * characters and white space escaped, cut at 200 characters). Strategies pass client values
     * in a {@link Selection#detail()} through it.
     */
    protected static String loggable(String text) {
        return DecisionLog.loggable(text);
    }

    /** Registers a listener told of every attempt's outcome. Thread-safe. */
    public void addAttemptListener(AttemptListener listener) {
        listeners.add(listener);
    }

    /** Registers a listener told of every ejection and re-admission. Thread-safe. */
    public void addHealthListener(HealthListener listener) {
        listeners.add(listener);
    }

    /** Registers a listener told of the current agents now and of every later change. Thread-safe. */
    public synchronized void addMembershipListener(MembershipListener listener) {
        listeners.add(listener);
        Listeners.notify(listener, getAgentIds());
    }

    /**
     * Per-agent state for metrics: a metric name (for example {@code weight}) to agent id to its
     * value. Empty by default; strategies with state override it. Cheap snapshot, any thread.
     */
    public Map<String, Map<String, Double>> agentMetrics() {
        return Map.of();
    }

    /** Balancer-wide state for metrics (for example {@code imbalance.index}); empty by default. */
    public Map<String, Double> balancerMetrics() {
        return Map.of();
    }

    /** {@link #strategyName()}, for JMX. */
    @ManagedAttribute(description = "Strategy: rr, ch, pid or avn")
    public String getStrategy() {
        return strategyName();
    }

    /** The agents taking new requests (draining ones left out), in child order; an immutable snapshot. */
    @Override
    @ManagedAttribute(description = "Agent ids, in child order")
    public List<String> getAgentIds() {
        return writer.state().agentIds();
    }

    /** Outlier ejections since the balancer was created, for JMX. */
    @ManagedAttribute(description = "Outlier ejections since the balancer was created")
    public long getEjections() {
        return listeners.ejections();
    }

    /** {@code agentlb-<strategy>}, the label of this processor in Camel's tracer and message history. */
    @Override
    public String getTraceLabel() {
        return "agentlb-" + strategyName();
    }

    /**
     * Names the agent behind {@code endpointUri}: decisions, logs and metrics use {@code agentId}
     * for that child instead of its URI. Best called before the route starts; a later call
     * re-maps the children at once.
     *
     * @param endpointUri the child's endpoint URI, as written in {@code .to(...)}, normalized, or
     *                    without its options
     * @param agentId     the stable name, e.g. {@code A1}
     * @return this balancer
     * @throws IllegalArgumentException if either is blank, or the name is already another child's
     *     id (the balancer is then left as it was)
     */
    public AgentLoadBalancerSupport nameAgent(String endpointUri, String agentId) {
        writer.name(endpointUri, agentId);
        return this;
    }

    /**
     * Adds an agent at runtime: a new state with {@code name} taking requests, its child started
     * first when the balancer runs. With slow start on ({@link #setSlowStart}) it ramps up. An
     * agent of that name that is draining stays: its drain is called off and it keeps its child
     * (its keys never left a ring). Thread-safe; one new state, or an exception and no change.
     *
     * @param name   the agent's name in decisions, logs and metrics (not blank, no white space)
     * @param child  the processor that calls the agent; completes its callback when the answer ends
     * @param weight static weight in (0, 1000], 1 for an ordinary agent (see {@link #setAgentWeight})
     * @throws IllegalArgumentException if the name is taken by a member that is not draining, or a
     *     value is out of range (naming it)
     */
    public void addAgent(String name, AsyncProcessor child, double weight) {
        writer.change().add(name, child, weight, false).apply();
    }

    /**
     * Adds an agent reached through a Camel endpoint, as {@code .to(endpointUri)} would: the
     * balancer creates the child, and stops it once the agent has left and its last request ended.
     *
     * @throws IllegalArgumentException as {@link #addAgent(String, AsyncProcessor, double)}, or if
     *     the balancer has no CamelContext or the endpoint cannot be resolved
     */
    @ManagedOperation(description = "Adds an agent: name, Camel endpoint URI, weight")
    public void addAgent(String name, String endpointUri, double weight) {
        if (camelContext == null) {
            throw new IllegalArgumentException("addAgent(" + name + ", " + endpointUri + "): the balancer has no CamelContext");
        }
        org.apache.camel.Endpoint endpoint = camelContext.getEndpoint(Check.notBlank("endpointUri", endpointUri));
        writer.change().add(name, new SendProcessor(endpoint), weight, true).apply();
    }

    /**
     * Removes an agent at once: no new request reaches it; requests already sent to it finish.
     * For a removal that waits for them, {@link #drainAgent}.
     *
     * @throws IllegalArgumentException if {@code name} is not a member
     */
    @ManagedOperation(description = "Removes an agent at once (requests in flight finish)")
    public void removeAgent(String name) {
        writer.change().remove(name).apply();
    }

    /**
     * Drains an agent: at once no new request reaches it (keyed strategies send its keys on as
     * they would on ejection), requests in flight finish, then it leaves (one state each).
     * Adding it again before or after it left brings it, and for {@code ch} its keys, back.
     *
     * @return completes when the agent has left
     * @throws IllegalArgumentException if {@code name} is not a member
     */
    public CompletableFuture<Void> drainAgent(String name) {
        return writer.change().drain(name).apply().get(name);
    }

    /** {@link #drainAgent} for JMX: starts the drain and returns at once. */
    @ManagedOperation(description = "Drains an agent: no new requests, those in flight finish, then it leaves")
    public void drain(String name) {
        drainAgent(name);
    }

    /**
     * Sets an agent's static weight: its share relative to the others, 1 for an ordinary agent.
     * {@code rr} spreads by weight (smooth weighted round-robin), {@code ch} gives it
     * {@code round(virtualNodes x weight)} virtual nodes; {@code pid} and {@code avn} learn their
     * weights and read it as the agent's starting share. One new state.
     *
     * @throws IllegalArgumentException if not a member or the weight is not in (0, 1000]
     */
    @ManagedOperation(description = "Sets an agent's static weight, (0, 1000], 1 = ordinary")
    public void setAgentWeight(String name, double weight) {
        writer.change().weight(name, weight).apply();
    }

    /**
     * Several membership edits as one new state, all or nothing: for membership sources that see
     * a whole fleet change at once ({@link FleetSync}).
     */
    public MembershipEdit editAgents() {
        return new MembershipEdit(writer.change());
    }

    /** @return how sessions are learned from answers ({@link LearnedSessions#disabled()} unless set) */
    public LearnedSessions getLearnedSessions() {
        SessionAffinity affinity = sessionAffinity;
        return affinity == null ? LearnedSessions.disabled() : affinity.settings();
    }

    /**
     * Learns sessions from the agents' answers (off by default): when an answer carries a session id
     * in the {@link LearnedSessions#header() header}, the client gets it with the agent's name sealed
     * in, and every later request with that id goes to that agent, with the agent's own id restored,
     * whatever the strategy, on any replica that shares the secret, across membership changes (as
     * long as the agent keeps its name). Such a request is never sent to another agent: when its
     * agent fails it fails; when its agent has left it gets {@link SessionRejectedException} 404, or
     * a new pick ({@link LearnedSessions.WhenAgentGone}); an id the balancer did not make gets
     * {@link SessionRejectedException} 400 and calls no agent. Takes effect for the next exchange.
     * A child that writes an answer's head to the client itself (a streaming child) has the id
     * sealed by its attempt's {@link AttemptHooks}.
     */
    public void setLearnedSessions(LearnedSessions learnedSessions) {
        Objects.requireNonNull(learnedSessions, "learnedSessions");
        sessionAffinity = learnedSessions.isEnabled() ? new SessionAffinity(learnedSessions) : null;
    }

    /**
     * Learned sessions with this header, e.g. {@code Mcp-Session-Id} ({@link #setLearnedSessions}).
     * Each {@code setSession*} setter turns learned sessions on, with the defaults of
     * {@link LearnedSessions#custom()} for the knobs not set.
     */
    public void setSessionHeader(String header) {
        setLearnedSessions(getLearnedSessions().toBuilder().header(header).build());
    }

    public String getSessionHeader() {
        return getLearnedSessions().header();
    }

    /** The secret shared by the replicas that seals agents into session ids; at least 16 bytes, never logged. */
    public void setSessionSecret(String secret) {
        setLearnedSessions(getLearnedSessions().toBuilder().secret(secret).build());
    }

    /** {@code NOT_FOUND} (default, a JSON 404) or {@code NEW_PICK}: what a session whose agent left gets. */
    public void setSessionAgentGone(String whenAgentGone) {
        setLearnedSessions(getLearnedSessions().toBuilder().whenAgentGone(whenAgentGone).build());
    }

    public String getSessionAgentGone() {
        return getLearnedSessions().whenAgentGone().name();
    }

    /**
     * The session id a client sees for session {@code agentSessionId} minted by {@code agentId}:
     * for a child that writes the answer's head to the client itself, before the balancer sees the
     * answer. The same on every replica with the same secret.
     *
     * @return the sealed id, or {@code agentSessionId} unchanged while sessions are not learned
     */
    public String sessionIdForClient(String agentId, String agentSessionId) {
        SessionAffinity affinity = sessionAffinity;
        return affinity == null ? agentSessionId : affinity.clientId(agentId, agentSessionId);
    }

    /** @return the slow-start ramp ({@link SlowStart#DISABLED} unless set) */
    public SlowStart getSlowStart() {
        return writer.slowStart();
    }

    /**
     * Sets the slow start of agents added at runtime or re-admitted after ejection (off by
     * default); takes effect at once.
     */
    public void setSlowStart(SlowStart slowStart) {
        writer.setSlowStart(Objects.requireNonNull(slowStart, "slowStart"));
    }

    /** The slow-start window ({@code 30s}; {@code 0s} turns it off), keeping the other ramp settings. */
    public void setSlowStartWindow(Duration window) {
        setSlowStart(getSlowStart().withWindow(window));
    }

    /**
     * {@link #setSlowStartWindow(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    public void setSlowStartWindow(String slowStartWindow) {
        setSlowStartWindow(Durations.parse("slowStartWindow", slowStartWindow));
    }

    public Duration getSlowStartWindow() {
        return getSlowStart().window();
    }

    /** The ramp's aggression, > 0 (1 = linear). */
    public void setSlowStartAggression(double aggression) {
        setSlowStart(getSlowStart().withAggression(aggression));
    }

    public double getSlowStartAggression() {
        return getSlowStart().aggression();
    }

    /** The smallest part of its share an agent keeps while ramping, in (0, 1]. */
    public void setSlowStartMinWeightShare(double share) {
        setSlowStart(getSlowStart().withMinWeightShare(share));
    }

    public double getSlowStartMinWeightShare() {
        return getSlowStart().minWeightShare();
    }

    /**
     * The latest load report of {@code agentId} if it arrived at most the saturation's
     * {@link Saturation#staleness() staleness} ago (200 ms by default), else null: for strategies
     * that weigh agents by reported load when they choose. O(1); any thread.
     */
    protected final LoadReport freshLoadReport(String agentId) {
        if (!loadReporting.received()) {
            return null;
        }
        return loadReporting.fresh(writer.state().slot(agentId), nanoTime());
    }

    /**
     * The requests waiting in {@code agentId}'s queue by its fresh load report
     * ({@code num_requests_waiting}), 0 without one: load the balancer's in-flight count does not
     * see (requests of other balancers, queued at the agent). O(1); any thread.
     */
    protected final double reportedWaiting(String agentId) {
        LoadReport report = freshLoadReport(agentId);
        double waiting = report == null ? Double.NaN : report.requestsWaiting();
        return Double.isNaN(waiting) ? 0 : waiting;
    }

    /**
     * Asks agents for ORCA load reports: each attempt carries {@value LoadReports#FORMAT_HEADER}
     * with this value. Off by default ({@code NONE}): the balancer adds nothing to what it sends
     * unless told, and vLLM writes an INFO log line for each report it makes. Reports an agent
     * sends unasked are read all the same. Takes effect at once.
     *
     * @param format {@code TEXT}, {@code JSON} (any case), or {@code NONE} (also empty or null) not to ask
     * @throws IllegalArgumentException for another value, naming it
     */
    public void setLoadReportFormat(String format) {
        loadReporting.setFormat(format);
    }

    /** @return {@code TEXT}, {@code JSON}, or {@code NONE} when the balancer does not ask for load reports */
    public String getLoadReportFormat() {
        return loadReporting.format();
    }

    /** {@link #setLoadReportFormat} for Java builders: returns this balancer. */
    public AgentLoadBalancerSupport loadReportFormat(String format) {
        setLoadReportFormat(format);
        return this;
    }

    /** @return the saturation gate's configuration ({@link Saturation#ofDefaults()} unless set) */
    public Saturation getSaturation() {
        return loadReporting.saturation();
    }

    /**
     * Sets the saturation gate; {@link Saturation#disabled()} turns it off. Takes effect at once.
     * Its staleness also bounds the reports {@link #freshLoadReport} gives.
     */
    public void setSaturation(Saturation saturation) {
        loadReporting.setSaturation(saturation);
    }

    /** {@link #setSaturation} for Java builders: returns this balancer. */
    public AgentLoadBalancerSupport saturation(Saturation saturation) {
        setSaturation(saturation);
        return this;
    }

    /** Whether the saturation gate acts (default true); applied when the balancer starts. */
    public void setSaturationEnabled(boolean enabled) {
        loadReporting.saturationSettings().put("saturationEnabled", enabled, b -> b.enabled(enabled));
    }

    public boolean isSaturationEnabled() {
        return loadReporting.saturationSettings().get("saturationEnabled", getSaturation().enabled());
    }

    /**
     * Requests waiting ({@code num_requests_waiting}) above which an agent is saturated, >= 0,
     * default 5; applied and checked when the balancer starts.
     */
    public void setSaturationQueue(int queueDepth) {
        loadReporting.saturationSettings().put("saturationQueue", queueDepth, b -> b.queueDepth(Check.atLeast("saturationQueue", queueDepth, 0)));
    }

    public int getSaturationQueue() {
        return loadReporting.saturationSettings().get("saturationQueue", getSaturation().queueDepth());
    }

    /**
     * KV cache in use ({@code kv_cache_usage_perc}), fraction in [0, 1], above which an agent is
     * saturated, default 0.8; applied and checked when the balancer starts.
     */
    public void setSaturationKvCache(double kvCacheUsage) {
        loadReporting.saturationSettings().put("saturationKvCache", kvCacheUsage, b -> b.kvCacheUsage(Check.fraction("saturationKvCache", kvCacheUsage)));
    }

    public double getSaturationKvCache() {
        return loadReporting.saturationSettings().get("saturationKvCache", getSaturation().kvCacheUsage());
    }

    /**
     * Age beyond which a report says nothing ({@code 200ms} by default, > 0); applied and checked
     * when the balancer starts.
     */
    public void setSaturationStaleness(Duration staleness) {
        loadReporting.saturationSettings().put("saturationStaleness", staleness, b -> b.staleness(Check.positive("saturationStaleness", staleness)));
    }

    /** {@link #setSaturationStaleness(Duration)} from text read strictly ({@code 200ms}, {@code PT0.2S}; see {@link Durations}). */
    public void setSaturationStaleness(String staleness) {
        setSaturationStaleness(Durations.parse("saturationStaleness", staleness));
    }

    public Duration getSaturationStaleness() {
        return loadReporting.saturationSettings().get("saturationStaleness", getSaturation().staleness());
    }

    /** The agents draining now, for JMX. */
    @ManagedAttribute(description = "Agents draining: no new requests, those in flight finish")
    public Set<String> getDrainingAgents() {
        return writer.state().draining();
    }

    /** The generation of the state requests read now, for JMX. */
    @ManagedAttribute(description = "Generation of the balancer's state: one more for each change")
    public long getGeneration() {
        return writer.state().generation();
    }

    /**
     * The default id of a child, before {@link #nameAgent names}: its endpoint URI without user
     * info and query ({@code scheme://host:port/path}), else its processor id, else {@code toString()}.
     */
    public static String agentIdOf(Processor processor) {
        return Membership.defaultId(processor);
    }

    /**
     * @throws IllegalArgumentException if the child's id is already another child's, or the
     *     child belongs to another route than this balancer's children (nothing changes then)
     */
    @Override
    public void addProcessor(AsyncProcessor processor) {
        synchronized (this) {
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
        synchronized (this) {
            changeChildren(() -> super.removeProcessor(processor), () -> super.addProcessor(processor));
        }
    }

    /**
     * Makes a change to the children and publishes the state it leads to; when that state is
     * refused, undoes the change and rethrows, so the children stay as the state in use has them.
     * Call holding this balancer's lock.
     */
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
     * Runs each membership change, serialized, before requests see it: {@link #agentsChanged}
     * with the serving agents first, then outlier ejection with every member.
     */
    void agentsChanging(List<String> serving, List<String> members) {
        agentsChanged(serving);
        detector().setAgents(members);
    }

    @Override
    void settingsChanged() {
        // Before the first child (also while a subclass is being constructed) there is nothing to republish.
        if (writer != null && writer.state().generation() > 0) {
            writer.pickerChanged();
        }
    }

    StateWriter writer() {
        return writer;
    }

    LoadReporting loadReporting() {
        return loadReporting;
    }

    /**
     * Applies and checks the JavaBean settings made so far, as the start does, so that a bad value
     * is found where the configuration is read (a bean definition, a demo's settings) instead of
     * when the route starts; the start applies whatever is set after this. For a balancer not
     * started yet.
     *
     * @throws IllegalArgumentException naming the field and the value of a bad setting (what
     *         failed stays set, and the start reports it again)
     * @throws IllegalStateException if the balancer is starting or started
     */
    public synchronized void checkSettings() {
        if (isStartingOrStarted()) {
            throw new IllegalStateException("checkSettings is for a balancer not started yet");
        }
        applySettings();
    }

    /** Applies the JavaBean settings, the saturation gate's included. */
    @Override
    protected void applySettings() {
        super.applySettings();
        loadReporting.applySettings();
    }

    /** The writer's view of this balancer. */
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
        public void agentsChanging(List<String> serving, List<String> members) {
            AgentLoadBalancerSupport.this.agentsChanging(serving, members);
        }

        @Override
        public Picker newPicker(List<String> serving, Map<String, Double> weights) {
            return AgentLoadBalancerSupport.this.newPicker(serving, weights);
        }

        @Override
        public io.github.agentlb.core.health.OutlierDetector detector() {
            return AgentLoadBalancerSupport.this.detector();
        }

        @Override
        public FailoverPolicy policy() {
            return getFailoverPolicy();
        }

        @Override
        public AnswerRules answerRules() {
            return getAnswerRules();
        }

        @Override
        public long nanoTime() {
            return AgentLoadBalancerSupport.this.nanoTime();
        }

        @Override
        public boolean started() {
            return isStarted() || isStarting();
        }

        @Override
        public void agentsChanged(List<String> serving) {
            listeners.agentsChanged(serving);
        }
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        synchronized (this) {
            applySettings();
            writer.childrenChanged();
        }
        LearnedSessions sessions = getLearnedSessions();
        if (sessions.isEnabled() && !sessions.hasSecret()) {
            org.slf4j.LoggerFactory.getLogger(AgentLoadBalancerSupport.class).warn("Learned sessions ({}) without a"
                    + " sessionSecret: damaged session ids are rejected, forged ones are not; set the same secret on"
                    + " every replica", sessions.header());
        }
    }

    /**
     * Chooses and sends the first attempt on the caller's thread, as Camel's own balancers do (no
     * task on the reactive executor): returns {@code true}, the callback already told {@code true},
     * when every attempt answered synchronously; {@code false} when an answer came asynchronously
     * (the callback is then told {@code false}, once). See {@link Attempts}.
     */
    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        BalancerState current = writer.state();
        try {
            if (current.agentIds().isEmpty()) {
                exchange.setException(new NoAgentAvailableException("No agent available: the " + strategyName()
                        + " balancer has no agents" + (current.draining().isEmpty() ? "" : " taking requests (draining: "
                        + String.join(", ", current.draining()) + ")"), exchange, null));
                callback.done(true);
                return true;
            }
            SessionAffinity affinity = sessionAffinity;
            SessionAffinity.Pin pin = affinity == null ? null : affinity.pin(exchange, current);
            Selection selection = pin != null && pin.agent() != null ? SessionAffinity.selectionOf(pin)
                    : current.picker.select(exchange);
            return new Attempts(this, exchange, callback, current, selection, affinity, pin).start();
        } catch (RuntimeException | SessionRejectedException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
    }

    Listeners listeners() {
        return listeners;
    }

    /** Whether attempts of an exchange under {@code policy} need the clock (see {@link Attempts}). */
    boolean timesAttempts(FailoverPolicy policy) {
        return strategyReadsAttemptTimes || listeners.hasAttemptListeners() || !policy.deadline().isZero();
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + getAgentIds();
    }
}
