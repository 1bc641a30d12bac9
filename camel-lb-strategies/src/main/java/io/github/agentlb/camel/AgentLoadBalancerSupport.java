package io.github.agentlb.camel;

import io.github.agentlb.core.health.OutlierDetector;
import io.github.agentlb.core.health.OutlierEjection;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Channel;
import org.apache.camel.EndpointAware;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.processor.loadbalancer.LoadBalancerSupport;
import org.apache.camel.spi.IdAware;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.util.URISupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared Camel side of every strategy: maps child processors to agent ids, asks the strategy
 * for a {@link Selection}, and runs the exchange's {@link Attempts}: failover, outlier ejection
 * and retry safety are the same for all four strategies.
 *
 * <h2>Agent ids</h2>
 * A child's agent id is the name given to its endpoint with {@link #nameAgent}, else its endpoint
 * URI ({@code .to("http://host:8081")} gives the URI Camel normalized), else the processor's id,
 * else its {@code toString()}: never its list position nor an identity hash code, so a strategy's
 * decisions are the same in every instance, JVM and child order. Two children with the same id
 * are a configuration error; a rejected change ({@link #nameAgent}, {@link #addProcessor})
 * leaves the balancer as it was.
 *
 * <h2>Failover</h2>
 * Each attempt runs on a fresh copy of the exchange ({@link ExchangeHelper#createCopy}) whose
 * load-report headers ({@link #reportHeaders()}) are removed, so a client cannot write an agent's
 * report. {@link FailureClassifier} tells each outcome: a failure before the request was sent
 * (refused, connect timeout) always goes to the next candidate; a failure after it was sent (read
 * timeout, reset, closed without answer) only for idempotent methods; an answer, even an HTTP
 * error, is never retried ({@link FailoverPolicy}, {@link #setMaximumFailoverAttempts},
 * {@link #setFailoverDeadline}, {@link #setIdempotentMethods}). The next candidate follows the
 * strategy's own distribution over the agents left (see each strategy). When every candidate
 * failed the exchange fails with one {@link NoAgentAvailableException}. The callback runs exactly
 * once, whatever throws; no thread blocks. Children should have no redelivery of their own
 * ({@code .errorHandler(noErrorHandler())}), or a dead agent is retried before failover sees it.
 *
 * <h2>Outlier ejection</h2>
 * After {@link OutlierEjection#consecutiveFailures()} failed attempts in a row (default 1, as
 * nginx's {@code max_fails}) an agent is ejected for 10 s, doubling with each repeated ejection
 * up to 300 s; then one request tries it, and success re-admits it ({@link OutlierDetector},
 * {@link #setOutlierEjection}). Ejected agents are skipped (ring strategies go on clockwise) and
 * tried only when no other agent is left, so ejection never answers 503 without trying. Per
 * balancer instance; costs one volatile read per exchange while nobody is ejected.
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
 * <h2>Thread-safety</h2>
 * {@link #process} is lock-free: children and their ids are an immutable snapshot swapped on
 * {@link #addProcessor}/{@link #removeProcessor}, which are serialized among themselves.
 */
public abstract class AgentLoadBalancerSupport extends LoadBalancerSupport implements CamelContextAware {

    /** The header read for the request id in decision logs; the exchange id when it is absent. */
    public static final String REQUEST_ID_HEADER = "req_id";
    /** Exchange property set to the id of the agent that produced the outcome, e.g. for metrics tags. */
    public static final String AGENT_PROPERTY = "agentlb.agent";
    /** Exchange property set to the strategy name ({@link #strategyName()}). */
    public static final String STRATEGY_PROPERTY = "agentlb.strategy";

    private static final Logger LOG = LoggerFactory.getLogger(AgentLoadBalancerSupport.class);

    private volatile Members members = Members.EMPTY;
    private final Map<String, String> agentNames = new ConcurrentHashMap<>();
    private final List<AttemptListener> listeners = new CopyOnWriteArrayList<>();
    private final List<HealthListener> healthListeners = new CopyOnWriteArrayList<>();
    private volatile LongSupplier nanoClock = System::nanoTime;
    private volatile OutlierDetector detector = new OutlierDetector(OutlierEjection.ofDefaults(), this::nanoTime);
    private volatile FailoverPolicy failoverPolicy = FailoverPolicy.DEFAULT;
    private CamelContext camelContext;

    /** Told of every attempt's outcome, for example by a metrics binder. Must be fast and not block. */
    @FunctionalInterface
    public interface AttemptListener {
        void attemptCompleted(String strategy, String agentId, AttemptOutcome outcome, long elapsedNanos);
    }

    /** The strategy's short name for logs and metrics, e.g. {@code rr} or {@code ch}. */
    public abstract String strategyName();

    /**
     * Decides where {@code exchange} goes. Called once per exchange, on the caller's thread; must
     * not block. Ids not in {@code agentIds} are skipped, so a decision built on a slightly older
     * membership is safe; so are repeated ids.
     *
     * @param agentIds the current agent ids, in child order (never empty)
     */
    protected abstract Selection select(Exchange exchange, List<String> agentIds);

    /**
     * Called when the set of agents changes (including the first child added), serialized with
     * other calls, before requests see the new membership. Strategies rebuild their ring or
     * weights here; a strategy that throws rejects the change, so it must change nothing first.
     *
     * @param agentIds the new agent ids in child order; possibly empty
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
        if (header instanceof Number number) {
            double value = number.doubleValue();
            return Double.isFinite(value) ? value : Double.NaN;
        }
        if (header == null) {
            return Double.NaN;
        }
        try {
            double value = Double.parseDouble(header.toString().trim());
            return Double.isFinite(value) ? value : Double.NaN;
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
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
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Registers a listener told of every ejection and re-admission. Thread-safe. */
    public void addHealthListener(HealthListener listener) {
        healthListeners.add(Objects.requireNonNull(listener, "listener"));
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

    /** The agent ids, in child order; an immutable snapshot. */
    public List<String> agentIds() {
        return members.ids;
    }

    /** The agents ejected (or on trial) now, sorted; empty while all are healthy. */
    public Set<String> ejectedAgents() {
        return detector.ejected();
    }

    /** @return the outlier ejection rules in use ({@link OutlierEjection#ofDefaults()} unless set) */
    public OutlierEjection getOutlierEjection() {
        return detector.config();
    }

    /**
     * Sets the outlier ejection rules; {@link OutlierEjection#disabled()} turns ejection off.
     * Takes effect at once, forgetting earlier ejections.
     */
    public void setOutlierEjection(OutlierEjection outlierEjection) {
        Objects.requireNonNull(outlierEjection, "outlierEjection");
        synchronized (this) {
            OutlierDetector replacement = new OutlierDetector(outlierEjection, this::nanoTime);
            replacement.setAgents(members.ids);
            detector = replacement;
        }
    }

    /** @return when exchanges fail over ({@link FailoverPolicy#DEFAULT} unless set) */
    public FailoverPolicy getFailoverPolicy() {
        return failoverPolicy;
    }

    /** Sets when exchanges fail over; takes effect for the next exchange. */
    public void setFailoverPolicy(FailoverPolicy failoverPolicy) {
        this.failoverPolicy = Objects.requireNonNull(failoverPolicy, "failoverPolicy");
    }

    /**
     * Further attempts after the first (Camel's {@code FailoverLoadBalancer} option): -1 (default)
     * tries every agent once, 0 never fails over.
     *
     * @throws IllegalArgumentException if below -1
     */
    public void setMaximumFailoverAttempts(int maximumFailoverAttempts) {
        setFailoverPolicy(failoverPolicy.withMaximumFailoverAttempts(maximumFailoverAttempts));
    }

    /** @return further attempts after the first; -1 for every agent once */
    public int getMaximumFailoverAttempts() {
        return failoverPolicy.maximumFailoverAttempts();
    }

    /**
     * No failover attempt starts later than this after the exchange's first attempt; zero
     * (default) for no deadline.
     *
     * @throws IllegalArgumentException if null or negative
     */
    public void setFailoverDeadline(Duration failoverDeadline) {
        setFailoverPolicy(failoverPolicy.withDeadline(failoverDeadline));
    }

    /** @return the failover deadline; zero for none */
    public Duration getFailoverDeadline() {
        return failoverPolicy.deadline();
    }

    /**
     * HTTP methods sent to another agent after a failure that may have reached the first
     * (default GET, HEAD, OPTIONS, TRACE, PUT, DELETE: RFC 9110 section 9.2.2).
     *
     * @throws IllegalArgumentException if a method is blank
     */
    public void setIdempotentMethods(Collection<String> idempotentMethods) {
        setFailoverPolicy(failoverPolicy.withIdempotentMethods(Set.copyOf(idempotentMethods)));
    }

    /** @return the idempotent methods, upper case */
    public Set<String> getIdempotentMethods() {
        return failoverPolicy.idempotentMethods();
    }

    /** Replaces the clock of ejection times and deadlines (ns); for tests. Forgets earlier ejections. */
    void useNanoClock(LongSupplier clock) {
        this.nanoClock = Objects.requireNonNull(clock, "clock");
        setOutlierEjection(getOutlierEjection());
    }

    long nanoTime() {
        return nanoClock.getAsLong();
    }

    OutlierDetector detector() {
        return detector;
    }

    /**
     * Names the agent behind {@code endpointUri}: decisions, logs and metrics use {@code agentId}
     * for that child instead of its URI. Best called before the route starts; a later call
     * re-maps the children at once.
     *
     * @param endpointUri the child's endpoint URI, as written in {@code .to(...)} or normalized
     * @param agentId     the stable name, e.g. {@code A1}
     * @return this balancer
     * @throws IllegalArgumentException if either is blank, or the name is already another child's
     *     id (the balancer is then left as it was)
     */
    public AgentLoadBalancerSupport nameAgent(String endpointUri, String agentId) {
        if (endpointUri == null || endpointUri.isBlank()) {
            throw new IllegalArgumentException("endpointUri must not be blank, was '" + endpointUri + "'");
        }
        if (agentId == null || agentId.isBlank()) {
            throw new IllegalArgumentException("agentId must not be blank, was '" + agentId + "'");
        }
        synchronized (this) {
            String key = normalized(endpointUri);
            String previous = agentNames.put(key, agentId);
            try {
                refreshMembers();
            } catch (RuntimeException e) {
                if (previous == null) {
                    agentNames.remove(key);
                } else {
                    agentNames.put(key, previous);
                }
                throw e;
            }
        }
        return this;
    }

    private static String normalized(String uri) {
        try {
            return URISupport.normalizeUri(uri);
        } catch (URISyntaxException | RuntimeException e) {
            return uri;
        }
    }

    /** @throws IllegalArgumentException if the child's id is already another child's (nothing changes then) */
    @Override
    public void addProcessor(AsyncProcessor processor) {
        synchronized (this) {
            super.addProcessor(processor);
            try {
                refreshMembers();
            } catch (RuntimeException e) {
                super.removeProcessor(processor);
                throw e;
            }
        }
    }

    @Override
    public void removeProcessor(AsyncProcessor processor) {
        synchronized (this) {
            super.removeProcessor(processor);
            try {
                refreshMembers();
            } catch (RuntimeException e) {
                super.addProcessor(processor);
                throw e;
            }
        }
    }

    private void refreshMembers() {
        Map<String, AsyncProcessor> byId = new LinkedHashMap<>();
        for (AsyncProcessor processor : doGetProcessors()) {
            String uriOrId = agentIdOf(processor);
            String id = agentNames.getOrDefault(normalized(uriOrId), uriOrId);
            if (byId.putIfAbsent(id, processor) != null) {
                throw new IllegalArgumentException("agent ids must be distinct, " + id + " appears twice");
            }
        }
        List<String> ids = List.copyOf(byId.keySet());
        agentsChanged(ids);
        detector.setAgents(ids);
        members = new Members(ids, Collections.unmodifiableMap(byId));
    }

    /**
     * The stable default id of a child, before {@link #nameAgent names}: its endpoint URI, else
     * its processor id, else {@code toString()}.
     */
    public static String agentIdOf(Processor processor) {
        Processor target = processor;
        while (target instanceof Channel channel && channel.getNextProcessor() != null) {
            target = channel.getNextProcessor();
        }
        if (target instanceof EndpointAware endpointAware && endpointAware.getEndpoint() != null) {
            return endpointAware.getEndpoint().getEndpointUri();
        }
        if (target instanceof IdAware idAware && idAware.getId() != null) {
            return idAware.getId();
        }
        return String.valueOf(target);
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        Members current = members;
        try {
            if (current.ids.isEmpty()) {
                exchange.setException(new NoAgentAvailableException(
                        "No agent available: the " + strategyName() + " balancer has no agents", exchange, null));
                callback.done(true);
                return true;
            }
            new Attempts(this, exchange, callback, current, select(exchange, current.ids)).start();
            return false;
        } catch (RuntimeException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
    }

    void notifyAttempt(String agent, AttemptOutcome outcome, long elapsedNanos) {
        for (AttemptListener listener : listeners) {
            try {
                listener.attemptCompleted(strategyName(), agent, outcome, elapsedNanos);
            } catch (RuntimeException e) {
                LOG.debug("Attempt listener failed", e);
            }
        }
    }

    void notifyEjected(AgentFailure failure, Duration ejectionTime) {
        DecisionLog.ejected(strategyName(), failure, ejectionTime);
        for (HealthListener listener : healthListeners) {
            try {
                listener.agentEjected(failure.agentId(), ejectionTime);
            } catch (RuntimeException e) {
                LOG.debug("Health listener failed", e);
            }
        }
    }

    void notifyReadmitted(String agent) {
        DecisionLog.readmitted(strategyName(), agent);
        for (HealthListener listener : healthListeners) {
            try {
                listener.agentReadmitted(agent);
            } catch (RuntimeException e) {
                LOG.debug("Health listener failed", e);
            }
        }
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
        return getClass().getSimpleName() + members.ids;
    }

    /** The children and their ids: one immutable snapshot, swapped whole. */
    record Members(List<String> ids, Map<String, AsyncProcessor> byId) {
        static final Members EMPTY = new Members(List.of(), Map.of());
    }
}
