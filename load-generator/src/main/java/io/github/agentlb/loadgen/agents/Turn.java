package io.github.agentlb.loadgen.agents;

import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Turn {@code turn} (0-based) of conversation {@code conversation} as the client saw it; {@code mcp}: it keeps a session id. */
public record Turn(int conversation, int turn, boolean mcp, ChatStreamClient.Answer answer) {

    /**
     * This turn as a request outcome: a success from its agent ({@code ?} when no chunk named one)
     * with its time to first token as latency, else a timeout or an error with its HTTP status.
     */
    public RequestOutcome outcome() {
        return answer.outcome("c" + conversation + "-t" + turn, conversation, answer.firstTokenNanos());
    }

    /**
     * MCP stickiness of {@code turns}: {@code {later, sticky}}, the MCP-style turns after a first turn
     * that named an agent, and of those the ones that agent answered (a failed one too when {@code failedSticks}).
     */
    public static long[] mcpStickiness(List<Turn> turns, boolean failedSticks) {
        Map<Integer, String> first = new HashMap<>();
        for (Turn t : turns) {
            if (t.mcp() && t.turn() == 0 && t.answer().ok() && t.answer().agentId() != null) {
                first.put(t.conversation(), t.answer().agentId());
            }
        }
        long later = 0, sticky = 0;
        for (Turn t : turns) {
            String agent = first.get(t.conversation());
            if (t.mcp() && t.turn() > 0 && agent != null) {
                later++;
                if ((failedSticks || t.answer().ok()) && agent.equals(t.answer().agentId())) {
                    sticky++;
                }
            }
        }
        return new long[] {later, sticky};
    }
}
