package io.github.agentlb.camel;

import java.io.IOException;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Channel;
import org.apache.camel.EndpointAware;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.Processor;
import org.apache.camel.processor.loadbalancer.LoadBalancerSupport;
import org.apache.camel.spi.IdAware;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.util.URISupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared Camel side of every strategy: maps child processors to agent ids, asks the strategy
 * for a {@link Selection}, sends the exchange, and fails over to the next candidate on connection
 * errors.
 *
 * <h2>Agent ids</h2>
 * A child's agent id is the name given to its endpoint with {@link #nameAgent}, else its endpoint
 * URI ({@code .to("http://host:8081")} gives the URI Camel normalized), else the processor's id,
 * else its {@code toString()}: never its list position nor an identity hash code, so a strategy's
 * decisions are the same in every instance, JVM and child order. Naming agents (as Envoy's
 * {@code hash_key} does) keeps their users in place when their addresses change, for example
 * agents on ephemeral ports. Two children with the same id are a configuration error.
 *
 * <h2>Failover</h2>
 * Each attempt runs on a fresh copy of the exchange ({@link ExchangeHelper#createCopy}); when the
 * attempt fails with a connection error ({@link #isConnectionFailure}: an {@link IOException},
 * such as connection refused or reset, a {@link TimeoutException} or an
 * {@link ExchangeTimedOutException} anywhere in the cause chain) the next candidate is tried, each
 * agent at most once. Any other outcome, success or an answer such as an HTTP error, is copied
 * back to the original exchange and ends the exchange. When every candidate fails, or there are
 * no children, the exchange fails with one {@link NoAgentAvailableException}. The callback runs
 * exactly once; no thread blocks (attempts continue on Camel's reactive executor). Children should
 * have no redelivery of their own (use {@code .errorHandler(noErrorHandler())} or
 * {@code maximumRedeliveries(0)}), or a dead agent is retried before failover sees it.
 *
 * <p>On completion the exchange carries properties {@value #AGENT_PROPERTY} (the agent that
 * answered) and {@value #STRATEGY_PROPERTY}, for metrics and logs downstream.
 *
 * <h2>Logging</h2>
 * One INFO line per exchange on logger {@code io.github.agentlb.decision}:
 * {@code request=<req_id> strategy=<name> agent=<id> <detail>}, and one INFO line per failover.
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

    /** Base class of Netty's read and write timeouts. */
    private static final String NETTY_TIMEOUT = "io.netty.handler.timeout.TimeoutException";
    /** The message of camel-netty's exception for a connection closed before any answer. */
    private static final String NO_RESPONSE = "No response received from remote server";
    private static final Logger DECISIONS = LoggerFactory.getLogger("io.github.agentlb.decision");

    private volatile Members members = Members.EMPTY;
    private final Map<String, String> agentNames = new ConcurrentHashMap<>();
    private final List<AttemptListener> listeners = new CopyOnWriteArrayList<>();
    private CamelContext camelContext;

    /** How an attempt on one agent ended. */
    public enum AttemptOutcome {
        /** The agent answered and the answer is not an exception. */
        SUCCESS,
        /** The agent could not answer ({@link #isConnectionFailure}); the exchange fails over. */
        CONNECTION_FAILURE,
        /** The agent answered with a failure (for example an HTTP error status); no failover. */
        ERROR
    }

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
     * membership is safe.
     *
     * @param agentIds the current agent ids, in child order (never empty)
     */
    protected abstract Selection select(Exchange exchange, List<String> agentIds);

    /**
     * Called when the set of agents changes (including the first child added), serialized with
     * other calls, before requests see the new membership. Strategies rebuild their ring or
     * weights here.
     *
     * @param agentIds the new agent ids in child order; possibly empty
     */
    protected void agentsChanged(List<String> agentIds) {
    }

    /** Called just before an attempt is sent to {@code agentId}. Must be fast and not block. */
    protected void attemptStarted(String agentId, Exchange attempt) {
    }

    /**
     * Called when an attempt on {@code agentId} has completed, successfully or not, before the
     * failover decision. Strategies read load reports from the answer here.
     *
     * @param elapsedNanos the time the attempt took, ns
     */
    protected void attemptCompleted(String agentId, Exchange attempt, long elapsedNanos) {
    }

    /**
     * Whether {@code failure} means the agent could not answer, so the exchange should go to the
     * next candidate: an {@link IOException}, {@link TimeoutException},
     * {@link ExchangeTimedOutException} or Netty timeout ({@code io.netty.handler.timeout.TimeoutException},
     * e.g. the {@code ReadTimeoutException} of camel-netty's {@code requestTimeout}) anywhere in the
     * cause chain, a {@link NoSuchElementException} from a connection pool that could not hand
     * out a connection, or camel-netty's "No response received from remote server" (the agent
     * closed the connection before answering, e.g. it died mid-request).
     */
    protected boolean isConnectionFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IOException || t instanceof TimeoutException || t instanceof ExchangeTimedOutException
                    || isNettyTimeout(t) || isClosedWithoutAnswer(t)) {
                return true;
            }
        }
        // camel-netty(-http) producers borrow channels from a commons-pool pool; a connect that is
        // refused at once fails the pool's validation, which throws NoSuchElementException
        // ("Unable to validate object") instead of the ConnectException.
        return failure instanceof NoSuchElementException;
    }

    /** camel-netty's ClientChannelHandler reports a connection closed before the answer this way, with no cause. */
    private static boolean isClosedWithoutAnswer(Throwable t) {
        return t instanceof CamelExchangeException && t.getMessage() != null
                && t.getMessage().startsWith(NO_RESPONSE);
    }

    /** Netty's timeouts extend neither IOException nor TimeoutException; matched by name to need no Netty dependency. */
    private static boolean isNettyTimeout(Throwable t) {
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
            if (NETTY_TIMEOUT.equals(c.getName())) {
                return true;
            }
        }
        return false;
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

    /** Registers a listener told of every attempt's outcome. Thread-safe. */
    public void addAttemptListener(AttemptListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
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

    /**
     * Names the agent behind {@code endpointUri}: decisions, logs and metrics use {@code agentId}
     * for that child instead of its URI. Best called before the route starts; a later call
     * re-maps the children at once.
     *
     * @param endpointUri the child's endpoint URI, as written in {@code .to(...)} or normalized
     * @param agentId     the stable name, e.g. {@code A1}
     * @return this balancer
     * @throws IllegalArgumentException if either is blank
     */
    public AgentLoadBalancerSupport nameAgent(String endpointUri, String agentId) {
        if (endpointUri == null || endpointUri.isBlank()) {
            throw new IllegalArgumentException("endpointUri must not be blank, was '" + endpointUri + "'");
        }
        if (agentId == null || agentId.isBlank()) {
            throw new IllegalArgumentException("agentId must not be blank, was '" + agentId + "'");
        }
        synchronized (this) {
            agentNames.put(normalized(endpointUri), agentId);
            refreshMembers();
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

    @Override
    public void addProcessor(AsyncProcessor processor) {
        synchronized (this) {
            super.addProcessor(processor);
            refreshMembers();
        }
    }

    @Override
    public void removeProcessor(AsyncProcessor processor) {
        synchronized (this) {
            super.removeProcessor(processor);
            refreshMembers();
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
        if (current.ids.isEmpty()) {
            exchange.setException(new NoAgentAvailableException(
                    "No agent available: the " + strategyName() + " balancer has no agents", exchange, null));
            callback.done(true);
            return true;
        }
        Selection selection;
        try {
            selection = select(exchange, current.ids);
        } catch (RuntimeException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
        Attempts attempts = new Attempts(exchange, callback, current, selection);
        exchange.getContext().getCamelContextExtension().getReactiveExecutor().schedule(attempts::next);
        return false;
    }

    /** The state of one exchange's attempts; each step runs on the reactive executor. */
    private final class Attempts {
        private final Exchange exchange;
        private final AsyncCallback callback;
        private final Members members;
        private final Selection selection;
        private final Set<String> tried = new HashSet<>();
        private final List<AgentFailure> failures = new ArrayList<>(2);

        Attempts(Exchange exchange, AsyncCallback callback, Members members, Selection selection) {
            this.exchange = exchange;
            this.callback = callback;
            this.members = members;
            this.selection = selection;
        }

        void next() {
            String agent = nextCandidate();
            if (agent == null) {
                giveUp();
                return;
            }
            if (DECISIONS.isInfoEnabled()) {
                logDecision(agent);
            }
            Exchange attempt = ExchangeHelper.createCopy(exchange, true);
            long start = System.nanoTime();
            try {
                attemptStarted(agent, attempt);
                members.byId.get(agent).process(attempt, doneSync -> exchange.getContext()
                        .getCamelContextExtension().getReactiveExecutor()
                        .schedule(() -> completed(agent, attempt, System.nanoTime() - start)));
            } catch (RuntimeException e) {
                attempt.setException(e);
                completed(agent, attempt, System.nanoTime() - start);
            }
        }

        private void logDecision(String agent) {
            String requestId = requestId(exchange);
            if (tried.size() == 1) {
                String detail = selection.detail().get();
                DECISIONS.info("request={} strategy={} agent={}{}", requestId, strategyName(), agent,
                        detail.isEmpty() ? "" : " " + detail);
            } else {
                DECISIONS.info("request={} strategy={} failover to agent={} after {}", requestId, strategyName(),
                        agent, failures.get(failures.size() - 1));
            }
        }

        private String nextCandidate() {
            while (selection.candidates().hasNext()) {
                String candidate = selection.candidates().next();
                if (members.byId.containsKey(candidate) && tried.add(candidate)) {
                    return candidate;
                }
            }
            return null;
        }

        private void completed(String agent, Exchange attempt, long elapsedNanos) {
            try {
                attemptCompleted(agent, attempt, elapsedNanos);
            } catch (RuntimeException e) {
                LOG_SUPPORT.debug("attemptCompleted failed for agent {}", agent, e);
            }
            Exception failure = attempt.getException();
            boolean connectionFailure = failure != null && isConnectionFailure(failure);
            notifyListeners(agent, failure == null ? AttemptOutcome.SUCCESS
                    : connectionFailure ? AttemptOutcome.CONNECTION_FAILURE : AttemptOutcome.ERROR, elapsedNanos);
            if (connectionFailure && isRunAllowed()) {
                failures.add(AgentFailure.of(agent, failure));
                next();
                return;
            }
            ExchangeHelper.copyResults(exchange, attempt);
            exchange.setProperty(AGENT_PROPERTY, agent);
            exchange.setProperty(STRATEGY_PROPERTY, strategyName());
            callback.done(false);
        }

        private void giveUp() {
            String message = tried.isEmpty()
                    ? "No agent available: the " + strategyName() + " balancer selected no agent"
                    : "No agent available: all " + tried.size() + " agents tried failed: " + failures.stream().map(AgentFailure::toString).collect(Collectors.joining(", "));
            Throwable lastFailure = failures.isEmpty() ? null : failures.get(failures.size() - 1).failure();
            exchange.setException(new NoAgentAvailableException(message, exchange, lastFailure, failures));
            callback.done(false);
        }
    }

    private void notifyListeners(String agent, AttemptOutcome outcome, long elapsedNanos) {
        for (AttemptListener listener : listeners) {
            try {
                listener.attemptCompleted(strategyName(), agent, outcome, elapsedNanos);
            } catch (RuntimeException e) {
                LOG_SUPPORT.debug("Attempt listener failed", e);
            }
        }
    }

    private static final Logger LOG_SUPPORT = LoggerFactory.getLogger(AgentLoadBalancerSupport.class);

    private static String requestId(Exchange exchange) {
        Object header = exchange.getIn().getHeader(REQUEST_ID_HEADER);
        return header != null ? loggable(header.toString()) : exchange.getExchangeId();
    }

    /** Longest client-supplied text written into a decision log line, chars. */
    static final int MAX_LOGGED_CHARS = 200;

    /**
     * Client-supplied text made safe for a one-line log of {@code key=value} fields: control
     * characters (line breaks, NUL, ...) and white space (so no {@code " agent=evil"} field can be
     * forged) written as a backslash, {@code u} and four hex digits, and cut at
     * {@value #MAX_LOGGED_CHARS} characters. Strategies pass client values in a
     * {@link Selection#detail()} through it.
     */
    protected static String loggable(String text) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_LOGGED_CHARS) + 8);
        for (int i = 0; i < text.length(); i++) {
            if (out.length() >= MAX_LOGGED_CHARS) {
                return out.append("...").toString();
            }
            char c = text.charAt(i);
            if (Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
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

    private record Members(List<String> ids, Map<String, AsyncProcessor> byId) {
        static final Members EMPTY = new Members(List.of(), Map.of());
    }
}
