package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.HealthListener;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MCP 2025-11-25 servers that close their streams to make clients poll (SEP-1699): each answers a
 * call with a priming event carrying an event id and {@code retry:}, ends the stream, and keeps the
 * call's result for a {@code GET} with {@code Last-Event-ID}. Through two proxy replicas with
 * learned sessions, every resumption reaches the server that holds the session and gets the missed
 * event; the servers' polling closes eject no agent.
 */
@Tag("e2e")
@Timeout(60)
class LegacyStreamResumptionProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String SECRET = "the replicas' shared secret";
    private static final int SESSIONS = 12;
    /** Polls a client makes before its result is ready: each a stream the server closes after a priming event. */
    private static final int EMPTY_POLLS = 2;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /**
     * A legacy MCP server: a POST without session mints {@code <name>-<n>}, answers a priming event
     * {@code <session>/0} with {@code retry: 10} and ends the stream; a GET with the session and a
     * {@code Last-Event-ID} gets a priming event again for its first {@value #EMPTY_POLLS} polls,
     * then the result event {@code <session>/1}; an unknown session gets 404.
     */
    private static ScriptedAgent legacyServer(String name) throws Exception {
        int[] minted = {0};
        Map<String, Integer> polls = new ConcurrentHashMap<>();
        return ScriptedAgent.start((exchange, request) -> {
            String session = request.header("Mcp-Session-Id");
            String event;
            if (request.method().equals("POST") && session == null) {
                session = name + "-" + ++minted[0];
                polls.put(session, 0);
                event = "id: " + session + "/0\nretry: 10\ndata: \n\n";
            } else if (request.method().equals("GET") && session != null && polls.containsKey(session)
                    && (session + "/0").equals(request.header("Last-Event-ID"))) {
                int poll = polls.merge(session, 1, Integer::sum);
                event = poll <= EMPTY_POLLS ? "id: " + session + "/0\nretry: 10\ndata: \n\n"
                        : "id: " + session + "/1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"server\":\"" + name + "\"}}\n\n";
            } else {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            exchange.getResponseHeaders().set("Mcp-Session-Id", session);
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write(event.getBytes(StandardCharsets.UTF_8));
        });
    }

    private HttpResponse<String> send(DemoProxy proxy, String method, String sessionId, String lastEventId) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/mcp"))
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2025-11-25")
                .timeout(TIMEOUT);
        if (method.equals("POST")) {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}"));
        } else {
            request.GET().header("Last-Event-ID", lastEventId);
        }
        if (sessionId != null) {
            request.header("Mcp-Session-Id", sessionId);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void resumptionsReachTheSessionsServerThroughEitherReplicaAndPollingClosesEjectNoAgent() throws Exception {
        try (ScriptedAgent a1 = legacyServer("A1"); ScriptedAgent a2 = legacyServer("A2"); ScriptedAgent a3 = legacyServer("A3")) {
            List<String> urls = List.of(a1.baseUrl(), a2.baseUrl(), a3.baseUrl());
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(urls.toArray(String[]::new))
                    .strategy("rr").build();
            List<String> ejected = new CopyOnWriteArrayList<>();
            java.util.function.Supplier<AgentLoadBalancerSupport> balancers = () -> {
                RoundRobinLB balancer = new RoundRobinLB();
                balancer.setLearnedSessions(LearnedSessions.custom().secret(SECRET).build());
                balancer.addHealthListener(new HealthListener() {
                    @Override
                    public void agentEjected(String agentId, Duration ejectionTime) {
                        ejected.add(agentId);
                    }
                });
                return balancer;
            };
            SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
            try (DemoProxy one = DemoProxy.start(config, balancers); DemoProxy two = DemoProxy.start(config, balancers)) {
                int resumed = 0;
                for (int s = 0; s < SESSIONS; s++) {
                    DemoProxy first = s % 2 == 0 ? one : two;
                    DemoProxy other = s % 2 == 0 ? two : one;
                    HttpResponse<String> call = send(first, "POST", null, null);
                    assertThat(call.statusCode()).isEqualTo(200);
                    String sealed = call.headers().firstValue("Mcp-Session-Id").orElseThrow();
                    SessionIds.Sealed owner = ids.decode(sealed);
                    String server = "A" + (urls.indexOf(owner.agent()) + 1);
                    assertThat(owner.agentSessionId()).startsWith(server + "-");
                    assertThat(call.body()).isEqualTo("id: " + owner.agentSessionId() + "/0\nretry: 10\ndata: \n\n");
                    for (int poll = 1; poll <= EMPTY_POLLS + 1; poll++) {
                        DemoProxy via = poll % 2 == 1 ? other : first;
                        HttpResponse<String> resume = send(via, "GET", sealed, owner.agentSessionId() + "/0");
                        assertThat(resume.statusCode()).isEqualTo(200);
                        assertThat(resume.headers().firstValue("Mcp-Session-Id")).hasValue(sealed);
                        if (poll > EMPTY_POLLS) {
                            assertThat(resume.body()).contains("\"server\":\"" + server + "\"");
                            resumed++;
                        }
                    }
                }
                assertThat(resumed).isEqualTo(SESSIONS);
                // 12 calls and 36 polls, 12 x 3 of them closed after a priming event: none counted against its server.
                assertThat(a1.calls() + a2.calls() + a3.calls()).isEqualTo(SESSIONS * (EMPTY_POLLS + 2));
                assertThat(ejected).isEmpty();
                assertThat(one.balancer().getEjectedAgents()).isEmpty();
                assertThat(two.balancer().getEjectedAgents()).isEmpty();
            }
        }
    }
}
