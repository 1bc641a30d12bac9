package io.github.agentlb.demo;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import java.util.ArrayList;
import java.util.List;

/** Test stub agents A1..An on free loopback ports, with short delays so tests stay quick. */
final class Agents implements AutoCloseable {

    final List<StubAgent> agents = new ArrayList<>();

    static Agents start(int count, int delayMinMs, int delayMaxMs) throws Exception {
        Agents started = new Agents();
        try {
            for (int i = 1; i <= count; i++) {
                started.agents.add(StubAgent.start(AgentConfig.custom()
                        .agentId("A" + i).host("127.0.0.1").port(0).delayMs(delayMinMs, delayMaxMs).build()));
            }
        } catch (Exception e) {
            started.close();
            throw e;
        }
        return started;
    }

    List<String> urls() {
        return agents.stream().map(StubAgent::baseUrl).toList();
    }

    StubAgent get(int index) {
        return agents.get(index);
    }

    /** Agent id (A1..) of the agent at a base URL. */
    String idOf(String baseUrl) {
        return agents.stream().filter(a -> a.baseUrl().equals(baseUrl)).findFirst()
                .map(a -> a.config().agentId()).orElseThrow(() -> new IllegalArgumentException(baseUrl));
    }

    @Override
    public void close() {
        agents.forEach(StubAgent::close);
    }
}
