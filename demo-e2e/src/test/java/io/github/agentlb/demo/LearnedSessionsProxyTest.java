package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.camel.http.ScriptedAgent;
import io.github.agentlb.core.session.LearnedSessions;
import io.github.agentlb.core.session.SessionIds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MCP-style agents behind two proxy replicas: each agent mints {@code Mcp-Session-Id} on the first
 * answer; the client's later requests, through either replica, reach that agent with the agent's own
 * id; a forged id gets 400 JSON and a session whose agent left gets 404 JSON, no agent called.
 */
@Tag("e2e")
@Timeout(60)
class LearnedSessionsProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String SECRET = "the replicas' shared secret";
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** An agent that mints {@code <name>-<n>} for a request without session and echoes the id otherwise. */
    private static ScriptedAgent mcpAgent(String name) throws Exception {
        int[] minted = {0};
        return ScriptedAgent.start((exchange, request) -> {
            String id = request.header("Mcp-Session-Id");
            String session = id != null ? id : name + "-" + ++minted[0];
            exchange.getResponseHeaders().set("Mcp-Session-Id", session);
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write(("data: {\"agent\":\"" + name + "\"}\n\n").getBytes(StandardCharsets.UTF_8));
        });
    }

    private static Supplier<AgentLoadBalancerSupport> withSessions(Supplier<AgentLoadBalancerSupport> strategy) {
        return () -> {
            AgentLoadBalancerSupport balancer = strategy.get();
            balancer.setLearnedSessions(LearnedSessions.custom().secret(SECRET).build());
            return balancer;
        };
    }

    private HttpResponse<String> post(DemoProxy proxy, String userId, String sessionId) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/mcp?user_id=" + userId))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"))
                .timeout(TIMEOUT);
        if (sessionId != null) {
            request.header("Mcp-Session-Id", sessionId);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aSessionStaysWithItsAgentThroughEitherReplicaAndAForgedIdGets400() throws Exception {
        try (ScriptedAgent a1 = mcpAgent("A1"); ScriptedAgent a2 = mcpAgent("A2"); ScriptedAgent a3 = mcpAgent("A3")) {
            List<ScriptedAgent> agents = List.of(a1, a2, a3);
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0)
                    .agentUrls(a1.baseUrl(), a2.baseUrl(), a3.baseUrl()).strategy("rr").build();
            try (DemoProxy one = DemoProxy.start(config, withSessions(RoundRobinLB::new));
                    DemoProxy two = DemoProxy.start(config.toBuilder().strategy("ch").build(),
                            withSessions(ConsistentHashLB::new))) {
                HttpResponse<String> first = post(one, "1", null);
                assertThat(first.statusCode()).isEqualTo(200);
                String sealed = first.headers().firstValue("Mcp-Session-Id").orElseThrow();
                SessionIds.Sealed owner = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8)).decode(sealed);
                assertThat(owner).isNotNull();
                int ownerIndex = List.of(a1.baseUrl(), a2.baseUrl(), a3.baseUrl()).indexOf(owner.agent());
                assertThat(ownerIndex).isNotNegative();
                assertThat(owner.agentSessionId()).isEqualTo("A" + (ownerIndex + 1) + "-1");
                ScriptedAgent ownerAgent = agents.get(ownerIndex);
                assertThat(ownerAgent.next().header("Mcp-Session-Id")).isNull();

                List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    HttpResponse<String> later = post(i % 2 == 0 ? one : two, Integer.toString(i), sealed);
                    statuses.add(later.statusCode());
                    assertThat(later.headers().firstValue("Mcp-Session-Id")).hasValue(sealed);
                    assertThat(ownerAgent.next().header("Mcp-Session-Id")).isEqualTo(owner.agentSessionId());
                }
                assertThat(statuses).containsOnly(200);
                assertThat(a1.calls() + a2.calls() + a3.calls()).isEqualTo(7);

                String forged = new SessionIds("a secret the client guessed".getBytes(StandardCharsets.UTF_8))
                        .encode(owner.agent(), "A9-1");
                HttpResponse<String> rejected = post(two, "9", forged);
                assertThat(rejected.statusCode()).isEqualTo(400);
                assertThat(rejected.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
                assertThat(rejected.body()).contains("\"error\":\"bad session id\"")
                        .contains("Mcp-Session-Id is not a session id this balancer gave").doesNotContain("Exchange[");
                assertThat(a1.calls() + a2.calls() + a3.calls()).isEqualTo(7);
            }
        }
    }

    @Test
    void aSessionWhoseAgentLeftGets404Json() throws Exception {
        try (ScriptedAgent a1 = mcpAgent("A1"); ScriptedAgent a2 = mcpAgent("A2")) {
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0)
                    .agentUrls(a1.baseUrl(), a2.baseUrl()).strategy("rr").build();
            try (DemoProxy proxy = DemoProxy.start(config, withSessions(RoundRobinLB::new))) {
                String sealed = post(proxy, "1", null).headers().firstValue("Mcp-Session-Id").orElseThrow();
                proxy.balancer().removeAgent(a1.baseUrl());
                HttpResponse<String> gone = post(proxy, "1", sealed);
                assertThat(gone.statusCode()).isEqualTo(404);
                assertThat(gone.body()).contains("\"error\":\"session not found\"")
                        .contains("The agent holding this session has left").doesNotContain("Exchange[");
                assertThat(a2.calls()).isZero();
            }
        }
    }
}
