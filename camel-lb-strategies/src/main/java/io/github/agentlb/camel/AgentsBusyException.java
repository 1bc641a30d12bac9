package io.github.agentlb.camel;

import org.apache.camel.Exchange;

/**
 * Every agent the exchange could go to rests after a busy answer (429, or 503 with
 * {@code Retry-After}), and none was asked this time: the caller should answer 429 with
 * {@code Retry-After: }{@link #retryAfterSeconds()}, which the exchange's message carries as its
 * {@code Retry-After} header. A {@link NoAgentAvailableException}, so routes that catch that one
 * still catch this.
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
        super(message, exchange, null);
        this.retryAfterSeconds = retryAfterSeconds;
        this.onlyAgent = onlyAgent;
    }

    /**
     * "Every agent is busy: retry after N s", or "Agent X, the only one left for this request, is
     * busy: retry after N s" when {@code onlyAgent} is not null.
     */
    static AgentsBusyException resting(Exchange exchange, long retryAfterSeconds, String onlyAgent) {
        return new AgentsBusyException((onlyAgent == null ? "Every agent is busy" : "Agent " + onlyAgent
                + ", the only one left for this request, is busy") + ": retry after " + retryAfterSeconds + " s",
                exchange, retryAfterSeconds, onlyAgent);
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
