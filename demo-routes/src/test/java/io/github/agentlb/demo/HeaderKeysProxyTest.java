package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.http.ScriptedAgent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Keys the balancer reads from the client's request headers reach it through the proxy:
 * {@code header:<name>} and MCP 2026-07-28's mirrored {@code mcp-param:<Name>} keep every call of a
 * key on one agent, and different keys spread; a client header named as one of Camel's own does not
 * steer the exchange.
 */
@Tag("e2e")
@Timeout(60)
class HeaderKeysProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    @Test
    void headerAndMcpParamKeysKeepEachKeyOnOneAgent() throws Exception {
        try (NumberedAgents numbered = new NumberedAgents(3)) {
            List<ScriptedAgent> agents = numbered.agents;
            try (DemoProxy proxy = numbered.chProxy("mcp-param:handle,header:X-Route")) {
                Set<String> routeAgents = new HashSet<>();
                Set<String> handleAgents = new HashSet<>();
                for (int k = 0; k < 12; k++) {
                    Set<String> byRoute = new HashSet<>();
                    Set<String> byHandle = new HashSet<>();
                    for (int call = 0; call < 4; call++) {
                        HttpResponse<String> routed = client.send(HttpRequest.newBuilder(
                                        URI.create(proxy.baseUrl() + "/process/r" + call))
                                .header("X-Route", "route-" + k).header("CamelHttpMethod", "DELETE")
                                .GET().timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
                        assertThat(routed.statusCode()).isEqualTo(200);
                        byRoute.add(routed.body());
                        HttpResponse<String> mcp = client.send(HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/mcp"))
                                .header("Content-Type", "application/json").header("MCP-Protocol-Version", "2026-07-28")
                                .header("Mcp-Method", "tools/call").header("Mcp-Name", "count")
                                .header("Mcp-Param-Handle", "h-" + k)
                                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":" + call
                                        + ",\"method\":\"tools/call\",\"params\":{\"name\":\"count\",\"arguments\":{\"handle\":\"h-"
                                        + k + "\"}}}"))
                                .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
                        assertThat(mcp.statusCode()).isEqualTo(200);
                        byHandle.add(mcp.body());
                    }
                    assertThat(byRoute).as("X-Route route-%d", k).hasSize(1);
                    assertThat(byHandle).as("Mcp-Param-Handle h-%d", k).hasSize(1);
                    routeAgents.addAll(byRoute);
                    handleAgents.addAll(byHandle);
                }
                assertThat(routeAgents).hasSize(3);
                assertThat(handleAgents).hasSize(3);
                for (ScriptedAgent agent : agents) {
                    for (int i = agent.calls(); i > 0; i--) {
                        assertThat(agent.next().method()).as("what the agent got").isIn("GET", "POST");
                    }
                }
            }
        }
    }
}
