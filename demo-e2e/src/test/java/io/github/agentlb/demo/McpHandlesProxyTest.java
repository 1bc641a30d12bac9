package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.bounded.BoundedLoad;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MCP 2026-07-28 clients calling a stateful tool by handle ({@code Mcp-Param-Handle}) through two
 * demo proxies configured as docs/llm-agents.md says ({@code mcp-param:handle}, balance factor
 * 1.25, decay time 60 s, 1000 virtual nodes): every call of a handle reaches the agent of its first
 * call, and the handles spread within 1.25 x the mean.
 */
@Tag("e2e")
@Timeout(120)
class McpHandlesProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /**
     * 150 handles (16 hex digits from {@code Random(0)}, as the library's {@code McpKeysTest}'s first
     * set) that all start at once: four rounds of one call each, a handle's calls taking turns
     * between the proxies (round r sends handle k to proxy (k + r) mod 2). On the library's
     * simulation of these calls a bound that moved handles as other keys kept 0.985 of them home.
     */
    @Test
    void everyCallOfAHandleReachesTheAgentOfItsFirstCallThroughTwoProxies() throws Exception {
        Random random = new Random(0);
        List<String> handles = new ArrayList<>();
        for (int k = 0; k < 150; k++) {
            handles.add(Long.toHexString(random.nextLong()));
        }
        Map<String, List<String>> agents = new LinkedHashMap<>();
        try (NumberedAgents numbered = new NumberedAgents(3);
                DemoProxy first = numbered.chProxy("mcp-param:handle", McpHandlesProxyTest::asDocumented);
                DemoProxy second = numbered.chProxy("mcp-param:handle", McpHandlesProxyTest::asDocumented)) {
            List<DemoProxy> proxies = List.of(first, second);
            for (int round = 0; round < 4; round++) {
                for (int k = 0; k < handles.size(); k++) {
                    String handle = handles.get(k);
                    HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
                                    URI.create(proxies.get((k + round) % 2).baseUrl() + "/mcp"))
                            .header("Content-Type", "application/json").header("MCP-Protocol-Version", "2026-07-28")
                            .header("Mcp-Method", "tools/call").header("Mcp-Name", "query")
                            .header("Mcp-Param-Handle", handle)
                            .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":" + round
                                    + ",\"method\":\"tools/call\",\"params\":{\"name\":\"query\",\"arguments\":{\"handle\":\""
                                    + handle + "\"}}}"))
                            .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(answer.statusCode()).isEqualTo(200);
                    agents.computeIfAbsent(handle, h -> new ArrayList<>()).add(answer.body());
                }
            }
        }
        long calls = agents.values().stream().mapToLong(List::size).sum();
        long home = agents.values().stream().mapToLong(list -> list.stream().filter(list.get(0)::equals).count()).sum();
        Map<String, Integer> handlesPerAgent = new TreeMap<>();
        agents.values().forEach(list -> handlesPerAgent.merge(list.get(0), 1, Integer::sum));
        assertThat(calls).isEqualTo(600);
        assertThat((double) home / calls).isEqualTo(1.0);
        assertThat(Collections.max(handlesPerAgent.values()) / 50.0).isLessThanOrEqualTo(1.25);
        // The ring's own placement of these handles, as in McpKeysTest's first set.
        assertThat(handlesPerAgent).isEqualTo(Map.of("{\"agent\":0}", 61, "{\"agent\":1}", 38, "{\"agent\":2}", 51));
    }

    /** The MCP configuration of docs/llm-agents.md. */
    private static void asDocumented(io.github.agentlb.camel.ConsistentHashLB ch) {
        ch.setVirtualNodes(1000);
        ch.setBoundedLoad(BoundedLoad.custom().balanceFactor(1.25).decayTime(Duration.ofSeconds(60)).build());
    }
}
