package io.github.agentlb.camel;

import io.github.agentlb.core.health.OutlierDetector;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;

/**
 * Set on an exchange when a balancer has no agent that could answer it: the balancer has no
 * children, or every agent it tried failed to answer (ejected agents are tried last, so an
 * exchange fails this way only after every agent failed, or after the failover limits of
 * {@link FailoverPolicy}). The message lists the agents tried, why each failed and which were
 * ejected; the cause is the last failure, if any.
 *
 * <p>An HTTP front end should answer it with 503 Service Unavailable.
 */
public class NoAgentAvailableException extends CamelExchangeException {

    private static final long serialVersionUID = 1L;

    private final transient List<AgentFailure> failures;
    private final transient Set<String> ejectedAgents;
    private final String sessionAgent;
    /** The message as given, without the exchange Camel's message appends. */
    private final String reason;

    public NoAgentAvailableException(String message, Exchange exchange, Throwable cause) {
        this(message, exchange, cause, List.of(), Set.of());
    }

    /**
     * @param failures the failed attempts, in the order tried; copied
     */
    public NoAgentAvailableException(String message, Exchange exchange, Throwable cause, List<AgentFailure> failures) {
        this(message, exchange, cause, failures, Set.of());
    }

    /**
     * @param failures      the failed attempts, in the order tried; copied
     * @param ejectedAgents the agents ejected when the exchange gave up; copied
     */
    public NoAgentAvailableException(String message, Exchange exchange, Throwable cause, List<AgentFailure> failures,
            Set<String> ejectedAgents) {
        this(message, exchange, cause, failures, ejectedAgents, null);
    }

    /**
     * @param failures      the failed attempts, in the order tried; copied
     * @param ejectedAgents the agents ejected when the exchange gave up; copied
     * @param sessionAgent  the agent holding the exchange's learned session, A2A task or MCP handle,
     *     when that agent alone could take it and was not tried; null otherwise
     */
    public NoAgentAvailableException(String message, Exchange exchange, Throwable cause, List<AgentFailure> failures,
            Set<String> ejectedAgents, String sessionAgent) {
        super(message, exchange, cause);
        this.reason = message;
        this.failures = List.copyOf(failures);
        this.ejectedAgents = Set.copyOf(ejectedAgents);
        this.sessionAgent = sessionAgent;
    }

    /**
     * The exception of an exchange whose attempts gave up: the message says how many of the agents
     * were tried, {@code why} they stopped (text after "each failed", may be empty), each failure
     * and the ejected agents; the cause is the last failure. An exchange {@code pin}ned to an agent
     * (its learned session, A2A task or MCP handle) that was not tried names that agent and why
     * (marked down by health checks, else not serving) instead.
     */
    static NoAgentAvailableException afterAttempts(Exchange exchange, String strategy, int tried, int agents, String why,
            List<AgentFailure> failures, OutlierDetector detector, SessionAffinity.Pin pin) {
        Set<String> ejected = detector.ejected();
        String held = pin == null ? null : pin.agent();
        if (held != null && tried == 0) {
            boolean session = pin.agentSessionId() != null;
            return new NoAgentAvailableException("No agent available: the agent holding this "
                    + (session ? "session, " : "task or handle, ") + DecisionLog.loggable(held) + ", is "
                    + (detector.isMarkedDown(held) ? "marked down by health checks" : "not serving")
                    + (session ? "; retry later, or start a new session" : "; retry later"), exchange, null, List.of(), ejected, held);
        }
        String message = tried == 0 ? "No agent available: the " + strategy + " balancer selected no agent"
                : "No agent available: " + tried + " of " + agents + " agents tried, each failed" + why + ": "
                + failures.stream().map(AgentFailure::toString).collect(Collectors.joining(", "))
                + (ejected.isEmpty() ? "" : "; ejected: " + String.join(", ", ejected));
        Throwable last = failures.isEmpty() ? null : failures.get(failures.size() - 1).failure();
        return new NoAgentAvailableException(message, exchange, last, failures, ejected);
    }

    /** The message as given: why no agent answered, without the exchange Camel's message names. */
    String reason() {
        return reason;
    }

    /** The agents that were ejected (outlier ejection) when the exchange gave up; tried last, if at all. */
    public Set<String> ejectedAgents() {
        return ejectedAgents;
    }

    /**
     * The agent holding the exchange's learned session, A2A task or MCP handle, when that agent alone
     * could take the exchange and was not tried (marked down by health checks): the message says
     * which and why. Null otherwise.
     */
    public String sessionAgent() {
        return sessionAgent;
    }

    /** The failed attempts, in the order tried; empty when the balancer had no agent to try. */
    public List<AgentFailure> failures() {
        return failures;
    }
}
