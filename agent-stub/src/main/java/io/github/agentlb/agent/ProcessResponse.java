package io.github.agentlb.agent;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * Body of a {@code GET /process/{req_id}} answer.
 *
 * @param agentId id of the answering agent
 * @param requestId the {@code req_id} path segment
 * @param userId the {@code user_id} query parameter as given, null if absent
 * @param timestamp when the answer was produced, seconds since the epoch with a fraction
 */
@JsonPropertyOrder({"agent_id", "request_id", "user_id", "timestamp"})
public record ProcessResponse(
        @JsonProperty("agent_id") String agentId,
        @JsonProperty("request_id") String requestId,
        @JsonProperty("user_id") String userId,
        @JsonProperty("timestamp") double timestamp) {
}
