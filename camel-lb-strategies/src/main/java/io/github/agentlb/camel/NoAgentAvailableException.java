package io.github.agentlb.camel;

import java.util.List;
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

    private final transient List<AgentFailure> failures;

    public NoAgentAvailableException(String message, Exchange exchange, Throwable cause) {
        this(message, exchange, cause, List.of());
    }

    /**
     * @param failures the failed attempts, in the order tried; copied
     */
    public NoAgentAvailableException(String message, Exchange exchange, Throwable cause, List<AgentFailure> failures) {
        super(message, exchange, cause);
        this.failures = List.copyOf(failures);
    }

    /** The failed attempts, in the order tried; empty when the balancer had no agent to try. */
    public List<AgentFailure> failures() {
        return failures;
    }
}
