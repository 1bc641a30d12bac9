package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.BalancerState;
import io.github.agentlb.camel.http.ScriptedAgent;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An MCP 2026-07-28 {@code subscriptions/listen} stream through the demo proxy is counted as a
 * long-lived stream, not as a request in flight; the same request of a 2025-11-25 client (whose
 * headers a server does not check) is an ordinary request; both counts return to 0 when the streams end.
 */
@Tag("e2e")
@Timeout(60)
class LongLivedStreamsProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void aListenStreamIsCountedApartFromTheRequestsInFlight() throws Exception {
        CountDownLatch end = new CountDownLatch(1);
        try (ScriptedAgent agent = listening(end); DemoProxy proxy = Proxies.start(List.of(agent.baseUrl()), "lr")) {
            HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
            String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{}}";
            HttpResponse<InputStream> modern = client.send(listen(proxy, body, "2026-07-28"), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(modern.statusCode()).isEqualTo(200);
            assertThat(modern.body().readNBytes(13)).asString(StandardCharsets.UTF_8).isEqualTo(": listening\n\n");
            BalancerState state = proxy.balancer().balancerState();
            assertThat(state.streams(agent.baseUrl())).isEqualTo(1);
            assertThat(state.inFlight(agent.baseUrl())).isZero();

            HttpResponse<InputStream> legacy = client.send(listen(proxy, body, "2025-11-25"), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(legacy.body().readNBytes(13)).asString(StandardCharsets.UTF_8).isEqualTo(": listening\n\n");
            assertThat(proxy.balancer().balancerState().streams(agent.baseUrl())).isEqualTo(1);
            assertThat(proxy.balancer().balancerState().inFlight(agent.baseUrl())).isEqualTo(1);

            end.countDown();
            assertThat(modern.body().readAllBytes()).isEmpty();
            assertThat(legacy.body().readAllBytes()).isEmpty();
            Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> {
                BalancerState now = proxy.balancer().balancerState();
                assertThat(new int[] {now.streams(agent.baseUrl()), now.inFlight(agent.baseUrl())}).containsOnly(0);
            });
        }
    }

    /**
     * MCP's headers are read on {@code /mcp} only, and only when sent once: an LLM call on
     * {@code /v1/} with the listen headers (an LLM server checks neither), a listen whose
     * protocol version comes twice (the agent would see both) and a GET off {@code /mcp} with
     * {@code Mcp-Session-Id} are requests in flight, under every
     * strategy, {@code pid} (no keys, no limit) as {@code lr}; a plain listen under {@code pid} is a
     * stream.
     */
    @Test
    void mcpHeadersCountOnlyOnTheMcpPathAndWhenSentOnce() throws Exception {
        for (String strategy : List.of("pid", "lr")) {
            CountDownLatch end = new CountDownLatch(1);
            try (ScriptedAgent agent = listening(end); DemoProxy proxy = Proxies.start(List.of(agent.baseUrl()), strategy)) {
                HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
                String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{}}";
                List<HttpResponse<InputStream>> open = new ArrayList<>();
                open.add(client.send(listen(proxy, "/mcp", body, "2026-07-28"), HttpResponse.BodyHandlers.ofInputStream()));
                open.add(client.send(listen(proxy, "/v1/chat/completions", body, "2026-07-28"),
                        HttpResponse.BodyHandlers.ofInputStream()));
                open.add(client.send(listen(proxy, "/mcp", body, "2026-07-28", "2025-11-25"),
                        HttpResponse.BodyHandlers.ofInputStream()));
                open.add(client.send(HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/v1/models"))
                        .header("Accept", "text/event-stream").header("Mcp-Session-Id", "s-1").GET().timeout(TIMEOUT).build(),
                        HttpResponse.BodyHandlers.ofInputStream()));
                for (HttpResponse<InputStream> answer : open) {
                    assertThat(answer.body().readNBytes(13)).asString(StandardCharsets.UTF_8).isEqualTo(": listening\n\n");
                }
                BalancerState state = proxy.balancer().balancerState();
                assertThat(new int[] {state.streams(agent.baseUrl()), state.inFlight(agent.baseUrl())}).as(strategy)
                        .containsExactly(1, 3);
                end.countDown();
                for (HttpResponse<InputStream> answer : open) {
                    assertThat(answer.body().readAllBytes()).isEmpty();
                }
            }
        }
    }

    /**
     * A GET on {@code /mcp} that asks for an event stream without a session header (MCP 2024-11-05's
     * HTTP+SSE transport opens its session so) is a stream, {@code pid} (no keys, no limit) as {@code lr};
     * off {@code /mcp} (where the demo reads no MCP stream) a request in flight, as before.
     */
    @Test
    void aSessionlessGetOnMcpThatAsksForAnEventStreamIsAStream() throws Exception {
        for (String strategy : List.of("pid", "lr")) {
            CountDownLatch end = new CountDownLatch(1);
            try (ScriptedAgent agent = listening(end); DemoProxy proxy = Proxies.start(List.of(agent.baseUrl()), strategy)) {
                HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
                List<HttpResponse<InputStream>> open = new ArrayList<>();
                for (String path : List.of("/mcp/sse", "/v1/events")) {
                    open.add(client.send(HttpRequest.newBuilder(URI.create(proxy.baseUrl() + path))
                            .header("Accept", "text/event-stream").GET().timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofInputStream()));
                }
                for (HttpResponse<InputStream> answer : open) {
                    assertThat(answer.body().readNBytes(13)).asString(StandardCharsets.UTF_8).isEqualTo(": listening\n\n");
                }
                BalancerState state = proxy.balancer().balancerState();
                assertThat(new int[] {state.streams(agent.baseUrl()), state.inFlight(agent.baseUrl())}).as(strategy)
                        .containsExactly(1, 1);
                end.countDown();
                for (HttpResponse<InputStream> answer : open) {
                    assertThat(answer.body().readAllBytes()).isEmpty();
                }
            }
        }
    }

    /** An agent that answers every request with an SSE head and a comment, then holds the stream until {@code end}. */
    private static ScriptedAgent listening(CountDownLatch end) throws Exception {
        return ScriptedAgent.start((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write(": listening\n\n".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            end.await(20, TimeUnit.SECONDS);
        });
    }

    private static HttpRequest listen(DemoProxy proxy, String body, String protocolVersion) {
        return listen(proxy, "/mcp", body, protocolVersion);
    }

    private static HttpRequest listen(DemoProxy proxy, String path, String body, String... protocolVersions) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(proxy.baseUrl() + path))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Mcp-Method", "subscriptions/listen");
        for (String version : protocolVersions) {
            request.header("MCP-Protocol-Version", version);
        }
        return request.POST(HttpRequest.BodyPublishers.ofString(body)).timeout(TIMEOUT).build();
    }
}
