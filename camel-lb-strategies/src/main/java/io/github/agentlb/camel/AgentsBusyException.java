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

    public AgentsBusyException(String message, Exchange exchange, long retryAfterSeconds) {
        super(message, exchange, null);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** @return the shortest rest left among the agents, whole seconds, at least 1 */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
