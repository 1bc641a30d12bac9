package io.github.agentlb.demo;

import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.http.ScriptedAgent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Scripted agents that answer every request with {@code {"agent":<index>}}, named A1, A2, ... in order. */
final class NumberedAgents implements AutoCloseable {

    final List<ScriptedAgent> agents = new ArrayList<>();

    NumberedAgents(int count) throws Exception {
        try {
            for (int i = 0; i < count; i++) {
                int index = i;
                agents.add(ScriptedAgent.start((exchange, request) -> {
                    byte[] body = ("{\"agent\":" + index + "}").getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(200, body.length);
                    exchange.getResponseBody().write(body);
                }));
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /** {@code A<n>=<base URL>} for each agent: named, so a ring is the same in every run whatever the ports. */
    List<String> named() {
        List<String> named = new ArrayList<>();
        for (int i = 0; i < agents.size(); i++) {
            named.add("A" + (i + 1) + "=" + agents.get(i).baseUrl());
        }
        return named;
    }

    /** A demo proxy over these agents, {@code ch} keyed by {@code keys}. */
    DemoProxy chProxy(String keys) throws Exception {
        return chProxy(keys, ch -> { });
    }

    /** A demo proxy over these agents, {@code ch} keyed by {@code keys}, with {@code knobs} set on its balancer. */
    DemoProxy chProxy(String keys, Consumer<ConsistentHashLB> knobs) throws Exception {
        ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).strategy("ch").agentUrls(named()).build();
        return DemoProxy.start(config, () -> {
            ConsistentHashLB ch = new ConsistentHashLB();
            ch.setKeys(keys);
            knobs.accept(ch);
            return ch;
        });
    }

    @Override
    public void close() {
        agents.forEach(ScriptedAgent::close);
    }
}
