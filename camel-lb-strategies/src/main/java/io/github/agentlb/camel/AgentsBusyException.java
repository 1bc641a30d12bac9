package io.github.agentlb.camel;

import org.apache.camel.Exchange;

/**
 * Every agent the exchange could go to rests after a busy answer (429, or 503 with
 * {@code Retry-After}), and none was asked this time: the caller should answer 429 with
 * {@code Retry-After: }{@link #retryAfterSeconds()}, which the exchange's message carries as its
 * {@code Retry-After} header; or 503 when {@link #unavailable()} (each rests after a 503: an
 * outage, not rate limiting), which the balancer throws as the subclass {@link AgentsUnavailableException},
 * to be caught first. A {@link NoAgentAvailableException}, so routes that catch that one still catch this.
 */
public class AgentsBusyException extends NoAgentAvailableException {

    private static final long serialVersionUID = 1L;

    private final long retryAfterSeconds;
    private final String onlyAgent;

    public AgentsBusyException(String message, Exchange exchange, long retryAfterSeconds) {
        this(message, exchange, retryAfterSeconds, null);
    }

    /**
     * @param onlyAgent the one agent left for the request when it alone was busy (a learned
     *                  session's or an MCP handle's agent, or the last one the others' failures left), else null
     */
    public AgentsBusyException(String message, Exchange exchange, long retryAfterSeconds, String onlyAgent) {
        this(message, exchange, retryAfterSeconds, onlyAgent, false);
    }

    /**
     * @param unavailable whether each agent rests after a 503 (unavailable), not a 429: true for
     *                    {@link AgentsUnavailableException} alone, so that its type says it
     */
    AgentsBusyException(String message, Exchange exchange, long retryAfterSeconds, String onlyAgent,
            boolean unavailable) {
        super(message, exchange, null);
        this.retryAfterSeconds = retryAfterSeconds;
        this.onlyAgent = onlyAgent;
        this.unavailable = unavailable;
    }

    /**
     * "Every agent is busy: retry after N s", or "Agent X, the only one left for this request, is
     * busy: retry after N s" when {@code onlyAgent} is not null; "unavailable (503)" for "busy" when
     * {@code unavailable}.
     */
    static AgentsBusyException resting(Exchange exchange, long retryAfterSeconds, String onlyAgent, boolean unavailable) {
        String state = unavailable ? "unavailable (503)" : "busy";
        String message = (onlyAgent == null ? "Every agent is " + state : "Agent " + onlyAgent
                + ", the only one left for this request, is " + state) + ": retry after " + retryAfterSeconds + " s";
        return unavailable ? new AgentsUnavailableException(message, exchange, retryAfterSeconds, onlyAgent)
                : new AgentsBusyException(message, exchange, retryAfterSeconds, onlyAgent);
    }

    /** Whether each agent rests after a 503 rather than a 429. */
    private final boolean unavailable;

    /**
     * @return whether each agent the exchange could go to rests after a 503 (an outage: answer 503,
     *         not 429); true exactly for an {@link AgentsUnavailableException}
     */
    public boolean unavailable() {
        return unavailable;
    }

    /** @return the one agent left for the request when it alone was busy, else null (every agent was) */
    public String onlyAgent() {
        return onlyAgent;
    }

    /** @return the shortest rest left among the agents, whole seconds, at least 1 */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
