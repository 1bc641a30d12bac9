package io.github.agentlb.camel;

import org.apache.camel.Exchange;

/**
 * Every agent the exchange could go to rests after a 503 (an outage, not rate limiting), and none
 * was asked this time: the caller should answer 503 with {@code Retry-After: }{@link #retryAfterSeconds()},
 * which the exchange's message carries as its {@code Retry-After} header, not the 429 of an
 * {@link AgentsBusyException}, which tells a client it sends too much. A type of its own so that a
 * route catches it with a plain {@code doCatch(AgentsUnavailableException.class)} before the catch
 * of {@code AgentsBusyException}, in Java, YAML and XML alike, with no expression language (an OGNL
 * call such as {@code ${exception.unavailable}} needs camel-bean, which a route may not have).
 * {@link #unavailable()} is always true.
 */
public class AgentsUnavailableException extends AgentsBusyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param onlyAgent the one agent left for the request when it alone was unavailable, else null
     */
    public AgentsUnavailableException(String message, Exchange exchange, long retryAfterSeconds, String onlyAgent) {
        super(message, exchange, retryAfterSeconds, onlyAgent, true);
    }
}
