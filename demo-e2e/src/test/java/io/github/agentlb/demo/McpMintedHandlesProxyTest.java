package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.camel.http.ScriptedAgent;
import io.github.agentlb.core.session.SessionIds;
import io.github.agentlb.testing.McpBasketAnswers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stateful MCP 2026-07-28 servers that mint their own handles (the specification's basket example:
 * {@code create_basket} returns {@code structuredContent.basket_id}, {@code add_item} takes it back,
 * mirrored in {@code Mcp-Param-Basket}) behind two proxy replicas sharing a session secret, with
 * {@code BALANCER_SESSION_MCP_HANDLES=basket_id}: every call of a handle, through either replica,
 * reaches the server that minted it, which sees its own handle in body and header; answers as JSON
 * and as Server-Sent Events alike; forged handles get JSON 400 and reach no server.
 */
@Tag("e2e")
@Timeout(60)
class McpMintedHandlesProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String SECRET = "the replicas' shared secret";
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** A basket server ({@link McpBasketAnswers}): mints {@code <name>-bsk-<n>}; every other answer as Server-Sent Events. */
    private static final class BasketServer implements AutoCloseable {
        final String name;
        final Map<String, Integer> baskets = new ConcurrentHashMap<>();
        final List<String> received = new ArrayList<>();
        final AtomicInteger answers = new AtomicInteger();
        final ScriptedAgent server;

        BasketServer(String name) throws Exception {
            this.name = name;
            this.server = ScriptedAgent.start((exchange, request) -> {
                JsonNode call = JSON.readTree(request.body());
                synchronized (received) {
                    received.add(McpBasketAnswers.basket(call) + " " + request.header("Mcp-Param-Basket"));
                }
                ObjectNode answer = McpBasketAnswers.answer(name, baskets, call);
                boolean sse = answers.incrementAndGet() % 2 == 0;
                byte[] body = (sse ? ": priming\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"
                        + "event: message\ndata: " + answer + "\n\n" : answer.toString()).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", sse ? "text/event-stream" : "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            });
        }

        @Override
        public void close() {
            server.close();
        }
    }

    private static Supplier<AgentLoadBalancerSupport> withHandles(Supplier<AgentLoadBalancerSupport> strategy) {
        return () -> {
            AgentLoadBalancerSupport balancer = strategy.get();
            balancer.setSessionSecret(SECRET);
            balancer.setSessionMcpHandles("basket_id");
            return balancer;
        };
    }

    /** A tools/call through {@code proxy}; the JSON-RPC response, read from the answer's last event when it is SSE. */
    private JsonNode call(DemoProxy proxy, String version, int id, String tool, String basket, int status) throws Exception {
        ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", "tools/call");
        ObjectNode arguments = request.putObject("params").put("name", tool).putObject("arguments");
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/mcp"))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", version).header("Mcp-Method", "tools/call").header("Mcp-Name", tool);
        if (basket != null) {
            arguments.put("basket_id", basket);
            builder.header("Mcp-Param-Basket", basket);
        }
        HttpResponse<String> answer = client.send(builder.POST(HttpRequest.BodyPublishers.ofString(request.toString()))
                .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(status);
        String body = answer.body();
        if (answer.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
            assertThat(body).startsWith(": priming\n\nevent: message\n");
            body = body.substring(body.lastIndexOf("data: ") + 6).strip();
        }
        return JSON.readTree(body);
    }

    @Test
    void everyCallOfAMintedHandleThroughEitherReplicaReachesItsServerAndForgedOnesReachNone() throws Exception {
        try (BasketServer a1 = new BasketServer("A1"); BasketServer a2 = new BasketServer("A2");
                BasketServer a3 = new BasketServer("A3")) {
            List<BasketServer> servers = List.of(a1, a2, a3);
            List<String> urls = servers.stream().map(s -> s.server.baseUrl()).toList();
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(urls).strategy("rr").build();
            SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
            try (DemoProxy one = DemoProxy.start(config, withHandles(RoundRobinLB::new));
                    DemoProxy two = DemoProxy.start(config.toBuilder().strategy("ch").build(), withHandles(ConsistentHashLB::new))) {
                List<DemoProxy> proxies = List.of(one, two);
                List<String> handles = new ArrayList<>();
                for (int k = 0; k < 12; k++) {
                    JsonNode made = call(proxies.get(k % 2), "2026-07-28", k, "create_basket", null, 200).path("result");
                    String handle = made.path("structuredContent").path("basket_id").asText();
                    assertThat(ids.decode(handle)).as("handle %s sealed for the client", handle).isNotNull();
                    assertThat(made.path("content").get(0).path("text").asText()).isEqualTo("Created basket " + handle);
                    handles.add(handle);
                }
                for (int round = 1; round <= 4; round++) {
                    for (int k = 0; k < handles.size(); k++) {
                        JsonNode added = call(proxies.get((k + round) % 2), "2026-07-28", 100 * round + k, "add_item",
                                handles.get(k), 200).path("result");
                        assertThat(added.has("isError")).as(added.toString()).isFalse();
                        assertThat(added.path("structuredContent").path("basket_id").asText()).isEqualTo(handles.get(k));
                        assertThat(added.path("structuredContent").path("items").asInt()).isEqualTo(round);
                    }
                }
                // 12 handles x 4 calls home, each server seeing its own handle in body and header.
                for (BasketServer server : servers) {
                    assertThat(server.received.size() - server.baskets.size()).isEqualTo(4 * server.baskets.size());
                    assertThat(server.received).allSatisfy(r -> assertThat(r.equals("null null")
                            || r.equals(r.split(" ")[0] + " " + r.split(" ")[0]) && server.baskets.containsKey(r.split(" ")[0]))
                            .as(r).isTrue());
                }
                int calls = servers.stream().mapToInt(s -> s.server.calls()).sum();
                String handle = handles.get(0);
                SessionIds guessed = new SessionIds("a secret the client guessed".getBytes(StandardCharsets.UTF_8));
                // One character of the tag changed, never to itself, and not the last (its low bits may be padding).
                int at = handle.length() - 4;
                String tampered = handle.substring(0, at) + (handle.charAt(at) == 'A' ? 'B' : 'A') + handle.substring(at + 1);
                for (String forged : List.of(guessed.encode(urls.get(0), "A1-bsk-1"), tampered)) {
                    JsonNode rejected = call(one, "2026-07-28", 900, "add_item", forged, 400);
                    assertThat(rejected.path("error").asText()).isEqualTo("bad handle");
                }
                assertThat(servers.stream().mapToInt(s -> s.server.calls()).sum()).isEqualTo(calls);
                // An older revision's call is not read: it goes as it came, the server knows no such handle.
                JsonNode old = call(one, "2025-11-25", 901, "add_item", handle, 200).path("result");
                assertThat(old.path("isError").asBoolean()).isTrue();
            }
        }
    }
}
