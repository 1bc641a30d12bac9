package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.ConsistentHashLB;
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

    /**
     * The {@code user_id} header keys {@code ch} through the proxy as the strategies' docs say (a
     * trial with the OpenAI SDK's {@code putHeader("user_id", ...)}: every request spread, the
     * decision log said {@code user_id=<none>}); the query's {@code user_id}, the demo's own, wins
     * when both are given.
     */
    @Test
    void theUserIdHeaderKeysChAndTheQuerysUserIdWinsWhenBothAreGiven() throws Exception {
        try (NumberedAgents numbered = new NumberedAgents(3)) {
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).strategy("ch").agentUrls(numbered.named()).build();
            try (DemoProxy proxy = DemoProxy.start(config, ConsistentHashLB::new)) {
                Set<String> agents = new HashSet<>();
                for (int user = 0; user < 12; user++) {
                    Set<String> byUser = new HashSet<>();
                    for (int call = 0; call < 4; call++) {
                        byUser.add(get(proxy.baseUrl() + "/process/r" + call, "user_id", "user-" + user));
                    }
                    assertThat(byUser).as("user_id: user-%d", user).hasSize(1);
                    agents.addAll(byUser);
                }
                assertThat(agents).hasSize(3);
                for (int user = 0; user < 6; user++) {
                    String byQuery = get(proxy.baseUrl() + "/process/q?user_id=u" + user, "X-Other", "x");
                    for (int other = 0; other < 3; other++) {
                        assertThat(get(proxy.baseUrl() + "/process/q?user_id=u" + user, "user_id", "other-" + other))
                                .as("the query's user_id u%d", user).isEqualTo(byQuery);
                    }
                }
            }
        }
    }

    private String get(String url, String header, String value) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(url)).header(header, value).GET()
                .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
