package io.github.agentlb.loadgen.agents;

import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Turn {@code turn} (0-based) of conversation {@code conversation} as the client saw it; {@code mcp}: it keeps a session id. */
public record Turn(int conversation, int turn, boolean mcp, ChatStreamClient.Answer answer) {

    /** This turn as a request outcome ({@link ChatStreamClient.Answer#outcome}), its time to first token as latency. */
    public RequestOutcome outcome() {
        return answer.outcome("c" + conversation + "-t" + turn, conversation, answer.firstTokenNanos());
    }

    /**
     * MCP stickiness of {@code turns}: {@code {later, sticky}}, the MCP-style turns after a first turn
     * that named an agent, and of those the ones that agent answered (a failed one too when {@code failedSticks}).
     */
    public static long[] mcpStickiness(List<Turn> turns, boolean failedSticks) {
        Map<Integer, String> first = turns.stream()
                .filter(t -> t.mcp() && t.turn() == 0 && t.answer().ok() && t.answer().agentId() != null)
                .collect(Collectors.toMap(Turn::conversation, t -> t.answer().agentId(), (a, b) -> b));
        List<Turn> later = turns.stream().filter(t -> t.mcp() && t.turn() > 0 && first.containsKey(t.conversation()))
                .toList();
        long sticky = later.stream().filter(t -> (failedSticks || t.answer().ok())
                && first.get(t.conversation()).equals(t.answer().agentId())).count();
        return new long[] {later.size(), sticky};
    }
}
