package io.github.agentlb.camel;

import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;

/**
 * Set on an exchange when a balancer has no agent that could answer it: the balancer has no
 * children, or every agent it tried failed with a connection error. The message lists the agents
 * tried and why each failed; the cause is the last failure, if any.
 *
 * <p>An HTTP front end should answer it with 503 Service Unavailable.
 */
public class NoAgentAvailableException extends CamelExchangeException {

    private static final long serialVersionUID = 1L;

    public NoAgentAvailableException(String message, Exchange exchange, Throwable cause) {
        super(message, exchange, cause);
    }
}
