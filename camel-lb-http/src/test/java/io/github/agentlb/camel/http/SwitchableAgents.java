package io.github.agentlb.camel.http;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Three {@link ScriptedAgent}s on free loopback ports that all answer with one script, switched
 * between checks, for a route whose agents are fixed when it starts.
 */
final class SwitchableAgents implements AutoCloseable {

    private final List<ScriptedAgent> agents = new ArrayList<>();
    private volatile ScriptedAgent.Script script = (exchange, request) -> exchange.sendResponseHeaders(204, -1);

    SwitchableAgents() throws IOException {
        for (int i = 0; i < 3; i++) {
            agents.add(ScriptedAgent.start((exchange, request) -> script.answer(exchange, request)));
        }
    }

    /** From now on every agent answers with {@code next}. */
    void answer(ScriptedAgent.Script next) {
        this.script = next;
    }

    List<Integer> ports() {
        return agents.stream().map(a -> Integer.parseInt(a.baseUrl().substring(a.baseUrl().lastIndexOf(':') + 1))).toList();
    }

    /** The first agent, e.g. to go to it directly. */
    ScriptedAgent first() {
        return agents.get(0);
    }

    /** Requests the three agents received so far. */
    int calls() {
        return agents.stream().mapToInt(ScriptedAgent::calls).sum();
    }

    /** Requests each agent received so far, in agent order. */
    List<Integer> callsByAgent() {
        return agents.stream().map(ScriptedAgent::calls).toList();
    }

    /** How many agents received a request since {@code before} (a {@link #callsByAgent()}). */
    int agentsCalledSince(List<Integer> before) {
        List<Integer> now = callsByAgent();
        int called = 0;
        for (int i = 0; i < now.size(); i++) {
            called += now.get(i) > before.get(i) ? 1 : 0;
        }
        return called;
    }

    @Override
    public void close() {
        agents.forEach(ScriptedAgent::close);
    }
}
