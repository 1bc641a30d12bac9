package io.github.agentlb.loadgen.agents;

import io.github.agentlb.loadgen.run.Parallel;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * Sends a workload's conversations closed-loop, for the in-process scenario and for a run against
 * a URL alike: up to {@code inFlight} threads each take the next conversation and send its turns
 * one after another, each once the previous answer has ended; an MCP-style conversation sends its
 * first answer's session id with every later turn. Stateless; each call runs its own threads.
 */
public final class ConversationDriver {

    private ConversationDriver() {
    }

    /**
     * Sends every conversation's turns to {@code uriOf} it, each body through {@code body}; returns
     * every turn sent, in no particular order, or throws what a conversation's thread threw.
     */
    public static List<Turn> run(Conversations workload, ChatStreamClient client, int inFlight, String threadName,
            IntFunction<URI> uriOf, UnaryOperator<String> body) throws Exception {
        List<Turn> turns = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        Parallel.each(Collections.nCopies(Math.min(inFlight, workload.conversations()), 0), true, threadName, w -> {
            for (int c = next.getAndIncrement(); c < workload.conversations(); c = next.getAndIncrement()) {
                converse(workload, client, uriOf.apply(c), body, c, turns);
            }
            return null;
        });
        return List.copyOf(turns);
    }

    /** Sends every turn of conversation {@code c}, each after the previous answer ended. */
    private static void converse(Conversations workload, ChatStreamClient client, URI uri,
            UnaryOperator<String> body, int c, List<Turn> turns) throws InterruptedException {
        boolean mcp = workload.isMcp(c);
        String session = null;
        for (int k = 0; k < workload.turns(); k++) {
            ChatStreamClient.Answer answer = client.send(uri, body.apply(workload.requestBody(c, k)),
                    session == null ? Map.of() : Map.of(ChatStreamClient.SESSION_HEADER, session));
            if (mcp && k == 0) {
                session = answer.sessionId();
            }
            turns.add(new Turn(c, k, mcp, answer));
        }
    }
}
