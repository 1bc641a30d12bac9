package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptHooks;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.ClassifiedFailure;
import java.io.IOException;

/**
 * An agent call ended because the balancer's active health checks marked its agent down while the
 * call waited for its answer ({@link AttemptHooks#whenAgentDown}, HAProxy's
 * {@code on-marked-down shutdown-sessions}): the attempt ends {@link AttemptOutcome#FAILED_AFTER_SEND},
 * so an idempotent request goes to another agent and any other fails; a route answers it 502.
 */
public class AgentMarkedDownException extends IOException implements ClassifiedFailure {
    private static final long serialVersionUID = 1L;

    /** @param message which agent and why its call ended */
    public AgentMarkedDownException(String message) {
        super(message);
    }

    /** @return {@link AttemptOutcome#FAILED_AFTER_SEND} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.FAILED_AFTER_SEND;
    }
}
