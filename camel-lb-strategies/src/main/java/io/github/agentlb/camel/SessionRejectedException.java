package io.github.agentlb.camel;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;

/**
 * Set on an exchange, before any agent is called, when its session id cannot be routed (see
 * {@link AgentLoadBalancerSupport#setLearnedSessions}): the id is not one the balancer made, or
 * was damaged or forged ({@link #status()} 400), or the agent that holds the session has left the
 * fleet and the balancer is set to answer {@code NOT_FOUND} (404, after which an MCP client starts
 * a new session). An HTTP front end answers {@link #status()} with the message as a JSON error.
 */
public class SessionRejectedException extends CamelExchangeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String reason;
    private final String error;

    public SessionRejectedException(String message, Exchange exchange, int status) {
        this(message, exchange, status, status == 404 ? "session not found" : "bad session id");
    }

    /**
     * @param error the answer's {@code error} field, e.g. {@code bad task id} for an A2A task id
     *     ({@link io.github.agentlb.core.session.LearnedSessions#a2aTasks()})
     */
    public SessionRejectedException(String message, Exchange exchange, int status, String error) {
        super(message, exchange);
        this.status = status;
        this.reason = message;
        this.error = error;
    }

    /** @return why, for the client: the message without the exchange Camel appends to it */
    public String reason() {
        return reason;
    }

    /** @return the HTTP status to answer: 400 (not a session id of ours) or 404 (the session's agent left) */
    public int status() {
        return status;
    }

    /**
     * @return the answer's {@code error} field: {@code bad session id}, {@code session not found},
     *     {@code bad task id}, {@code task not found}, {@code bad handle} or {@code handle not found}
     */
    public String error() {
        return error;
    }

    /**
     * @return the answer's JSON body, {@code {"error":"bad session id","detail":<reason>}} for 400
     *     or {@code {"error":"session not found","detail":<reason>}} for 404 ({@code bad task id}
     *     and {@code task not found} for A2A tasks, {@code bad handle} and {@code handle not found}
     *     for MCP handles), the reason escaped as a JSON string (Jackson's
     *     encoder)
     */
    public String toJson() {
        return "{\"error\":\"" + error + "\",\"detail\":\""
                + new String(JsonStringEncoder.getInstance().quoteAsString(reason)) + "\"}";
    }
}
