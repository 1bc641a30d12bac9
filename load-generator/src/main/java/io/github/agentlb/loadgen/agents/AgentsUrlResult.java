package io.github.agentlb.loadgen.agents;

import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a run of the agents scenario's conversations against a running balancer ({@code --url})
 * measured, from the answers alone: no agent's counters are read, so every figure holds through
 * any balancer.
 *
 * <ul>
 *   <li>Time to first token: send to the first {@code data:} line, successful requests only,
 *       HdrHistogram at 3 significant digits, ms.</li>
 *   <li>Cache hit rate: Σ {@code prompt_tokens_details.cached_tokens} / Σ {@code prompt_tokens}
 *       over the successful answers' {@code usage}.</li>
 *   <li>Stickiness: the share of MCP-style turns after the first answered by the agent that
 *       answered the first (agent from the chunk id {@code chatcmpl-<agent>-<n>}); a turn that
 *       failed counts as not sticky.</li>
 * </ul>
 * Immutable.
 *
 * @param label         the balancer's label ({@code --strategy})
 * @param target        the base URL loaded
 * @param requests      requests sent
 * @param errors        requests that failed (non-2xx, cut stream, I/O, timeout)
 * @param timeouts      of those, the timeouts
 * @param errorStatuses HTTP status to failed requests with it (0: no answer head)
 * @param ttftP50Ms     p50 time to first token, ms (NaN with no success)
 * @param ttftP99Ms     p99 time to first token, ms (NaN with no success)
 * @param promptTokens  Σ {@code prompt_tokens} of the successful answers that reported usage
 * @param cachedTokens  Σ of their {@code cached_tokens}
 * @param withUsage     successful answers that reported usage
 * @param answered      agent id to its successful answers
 * @param mcpLaterTurns MCP-style turns after the first whose first turn named an agent
 * @param stickyTurns   of those, answered by the first turn's agent
 * @param wallNanos     the run's wall time, ns
 * @param errorSamples  up to {@value AgentsResult#ERROR_SAMPLES} error texts
 */
public record AgentsUrlResult(String label, String target, long requests, long errors, long timeouts,
                              SortedMap<Integer, Long> errorStatuses, double ttftP50Ms, double ttftP99Ms,
                              long promptTokens, long cachedTokens, long withUsage, SortedMap<String, Long> answered,
                              long mcpLaterTurns, long stickyTurns, long wallNanos, List<String> errorSamples) {

    public AgentsUrlResult {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(target, "target");
        errorStatuses = new TreeMap<>(errorStatuses);
        answered = new TreeMap<>(answered);
        errorSamples = List.copyOf(errorSamples);
    }

    /**
     * Computes the figures of a run from its turns.
     *
     * @param wallNanos the run's wall time, ns, > 0
     */
    public static AgentsUrlResult of(String label, String target, List<Turn> turns, long wallNanos) {
        if (wallNanos <= 0) {
            throw new IllegalArgumentException("wallNanos must be > 0, was " + wallNanos);
        }
        TurnTally tally = TurnTally.of(turns, false);
        long prompt = 0;
        long cached = 0;
        long withUsage = 0;
        SortedMap<Integer, Long> statuses = new TreeMap<>();
        SortedMap<String, Long> answered = new TreeMap<>();
        for (Turn t : turns) {
            ChatStreamClient.Answer a = t.answer();
            if (!a.ok()) {
                statuses.merge(a.status(), 1L, Long::sum);
                continue;
            }
            if (a.agentId() != null) {
                answered.merge(a.agentId(), 1L, Long::sum);
            }
            if (a.usage() != null) {
                withUsage++;
                prompt += a.usage().promptTokens();
                cached += a.usage().cachedTokens();
            }
        }
        return new AgentsUrlResult(label, target, turns.size(), tally.errors(), tally.timeouts(), statuses,
                tally.ttftP50Ms(), tally.ttftP99Ms(), prompt, cached, withUsage, answered,
                tally.mcpLaterTurns(), tally.stickyTurns(), wallNanos, tally.errorSamples());
    }

    /** Σ cached tokens / Σ prompt tokens; 0 without prompt tokens. */
    public double hitRate() {
        return promptTokens == 0 ? 0 : (double) cachedTokens / promptTokens;
    }

    /** Sticky MCP turns over MCP turns after the first; 1.0 when there were none. */
    public double stickiness() {
        return mcpLaterTurns == 0 ? 1.0 : (double) stickyTurns / mcpLaterTurns;
    }

    /** Wall time, s. */
    public double seconds() {
        return wallNanos / 1e9;
    }
}
