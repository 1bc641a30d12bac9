package io.github.agentlb.loadgen.stats;

/**
 * What one agent served during a run.
 *
 * @param agentId  the agent's id, from its answers' {@code agent_id}
 * @param count    successful requests it answered
 * @param share    {@code count} over all successful requests, fraction 0..1
 * @param latency  client-side response times of those requests
 */
public record AgentSummary(String agentId, long count, double share, LatencySummary latency) {
}
