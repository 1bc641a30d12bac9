package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import java.util.Objects;

/**
 * What happened to one request of a load run, as seen by the client: {@link Kind#SUCCESS}, a 2xx
 * JSON answer naming the agent ({@code agent_id}) and echoing {@code request_id}; {@link Kind#ERROR},
 * any other answer, or none (refused, reset: {@link #status()} 0); {@link Kind#TIMEOUT}, no answer in
 * time (not an error).
 *
 * @param requestId    the request id sent, e.g. {@code r0001}
 * @param userId       the {@code user_id} sent
 * @param kind         the outcome class
 * @param agentId      the agent that answered; non-null only for a success
 * @param status       the HTTP status code, 0 when there was no HTTP answer
 * @param latencyNanos client-side time from send to answer or failure, ns (>= 0)
 */
public record RequestOutcome(String requestId, int userId, Kind kind, String agentId, int status, long latencyNanos) {

    public enum Kind { SUCCESS, ERROR, TIMEOUT }

    /**
     * @throws IllegalArgumentException if {@code latencyNanos < 0}, or {@code agentId} is blank for
     *                                  a success or present for a failure
     */
    public RequestOutcome {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(kind, "kind");
        Check.atLeast("latencyNanos", latencyNanos, 0);
        if (kind == Kind.SUCCESS && (agentId == null || agentId.isBlank())) {
            throw new IllegalArgumentException("agentId must not be blank for a success, was '" + agentId + "'");
        }
        if (kind != Kind.SUCCESS && agentId != null) {
            throw new IllegalArgumentException("agentId must be null for " + kind + ", was '" + agentId + "'");
        }
    }

    public static RequestOutcome success(String requestId, int userId, String agentId, int status, long latencyNanos) {
        return new RequestOutcome(requestId, userId, Kind.SUCCESS, agentId, status, latencyNanos);
    }

    public static RequestOutcome error(String requestId, int userId, int status, long latencyNanos) {
        return new RequestOutcome(requestId, userId, Kind.ERROR, null, status, latencyNanos);
    }

    public static RequestOutcome timeout(String requestId, int userId, long latencyNanos) {
        return new RequestOutcome(requestId, userId, Kind.TIMEOUT, null, 0, latencyNanos);
    }

    /** Whether the request was answered by an agent. */
    public boolean isSuccess() {
        return kind == Kind.SUCCESS;
    }
}
