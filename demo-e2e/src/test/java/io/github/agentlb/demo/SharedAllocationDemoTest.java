package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.http.ScriptedAgent;
import io.github.agentlb.testing.FreePorts;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.main.Main;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two demo proxies with {@code ZOOKEEPER} set to one ZooKeeper (Curator's in-JVM server): after
 * load that makes the leader move virtual nodes off a busy agent, both report the same
 * {@code agentlb_allocation_generation} and the same {@code agentlb_agent_virtual_nodes}.
 */
@Tag("e2e")
@Timeout(120)
class SharedAllocationDemoTest {

    private static final Pattern GENERATION = Pattern.compile("(?m)^agentlb_allocation_generation\\{[^}]*} ([0-9.]+)");
    private static final Pattern VIRTUAL_NODES = Pattern.compile("(?m)^agentlb_agent_virtual_nodes\\{([^}]*)} ([0-9.]+)");
    private final Http http = new Http();

    /** An agent that reports CPU and memory {@code load} on every answer. */
    private static ScriptedAgent agent(String load) throws Exception {
        return ScriptedAgent.start((exchange, request) -> {
            exchange.getResponseHeaders().set("X-Agent-Cpu", load);
            exchange.getResponseHeaders().set("X-Agent-Memory", load);
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("{}".getBytes());
        });
    }

    private static Main proxy(int port, int managementPort, String agents, String zookeeper) throws Exception {
        Main main = DemoMain.createMain();
        main.addOverrideProperty("port", Integer.toString(port));
        main.addOverrideProperty("host", "127.0.0.1");
        main.addOverrideProperty("agents", agents);
        main.addOverrideProperty("strategy", "avn");
        main.addOverrideProperty("zookeeper", zookeeper);
        main.addOverrideProperty("balancer.id", "demo-test");
        main.addOverrideProperty("balancer.evaluation.window", "60");
        main.addOverrideProperty("balancer.total.virtual.nodes", "30");
        main.addOverrideProperty("camel.management.port", Integer.toString(managementPort));
        main.addOverrideProperty("camel.management.host", "127.0.0.1");
        main.start();
        return main;
    }

    private Map<String, String> metrics(int managementPort) throws Exception {
        HttpResponse<String> page = http.get("http://127.0.0.1:" + managementPort + "/observe/metrics");
        Map<String, String> found = new TreeMap<>();
        Matcher generation = GENERATION.matcher(page.body());
        if (generation.find()) {
            found.put("generation", generation.group(1));
        }
        Matcher nodes = VIRTUAL_NODES.matcher(page.body());
        while (nodes.find()) {
            found.put(nodes.group(1).replaceAll("instance=\"[^\"]*\",?", ""), nodes.group(2));
        }
        return found;
    }

    @Test
    void twoProxiesOnOneZooKeeperReportTheSameGenerationAndVirtualNodes() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true);
                ScriptedAgent a1 = agent("0.9"); ScriptedAgent a2 = agent("0.1"); ScriptedAgent a3 = agent("0.1")) {
            String agents = "A1=" + a1.baseUrl() + ",A2=" + a2.baseUrl() + ",A3=" + a3.baseUrl();
            List<Integer> ports = new ArrayList<>();
            while (ports.size() < 4) {
                int port = FreePorts.next();
                if (!ports.contains(port)) {
                    ports.add(port);
                }
            }
            Main one = proxy(ports.get(0), ports.get(1), agents, zookeeper.getConnectString());
            Main two = proxy(ports.get(2), ports.get(3), agents, zookeeper.getConnectString());
            try {
                Map<String, String> first = Map.of();
                Map<String, String> second = Map.of();
                for (int round = 0; round < 40; round++) {
                    for (int i = 0; i < 30; i++) {
                        int port = i % 2 == 0 ? ports.get(0) : ports.get(2);
                        assertThat(http.get("http://127.0.0.1:" + port + "/process/r" + i + "?user_id=" + (round * 30 + i))
                                .statusCode()).isEqualTo(200);
                    }
                    first = metrics(ports.get(1));
                    second = metrics(ports.get(3));
                    if (!"0.0".equals(first.getOrDefault("generation", "0.0")) && first.equals(second)) {
                        break;
                    }
                    Thread.sleep(100);
                }
                assertThat(first.get("generation")).isNotNull().isNotEqualTo("0.0");
                assertThat(second).isEqualTo(first);
                assertThat(first.keySet()).anyMatch(k -> k.contains("A1"));
                // The readiness check's details say where the allocation comes from.
                String health = http.get("http://127.0.0.1:" + ports.get(1) + "/observe/health?data=true").body();
                assertThat(health).contains("allocation.source", "allocation.store.connected", "allocation.generation");
            } finally {
                two.stop();
                one.stop();
            }
        }
    }
}
