package io.github.agentlb.loadgen.agents;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One request of a conversation as the client saw it. Immutable.
 *
 * @param conversation the conversation's index
 * @param turn         the turn, 0-based
 * @param mcp          whether the conversation keeps an MCP session id
 * @param replica      the proxy replica it was sent to, 0-based
 * @param answer       what came back
 */
public record Turn(int conversation, int turn, boolean mcp, int replica, ChatStreamClient.Answer answer) {
    public Turn {
        Objects.requireNonNull(answer, "answer");
    }

    /** MCP-style conversation to the agent that answered its first turn (which minted its session). */
    static Map<Integer, String> mintingAgents(List<Turn> turns) {
        Map<Integer, String> first = new HashMap<>();
        for (Turn t : turns) {
            if (t.mcp() && t.turn() == 0 && t.answer().ok() && t.answer().agentId() != null) {
                first.put(t.conversation(), t.answer().agentId());
            }
        }
        return first;
    }
}
