package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What reaches the agent and what comes back, seen on the wire by a spy agent. */
@Tag("e2e")
@Timeout(60)
class ProxyHygieneTest {

    private final Http http = new Http();
    private SpyAgent spy;
    private DemoProxy proxy;

    @BeforeEach
    void start() throws Exception {
        spy = SpyAgent.start();
        proxy = Proxies.start(List.of(spy.baseUrl()), "ch");
    }

    @AfterEach
    void stop() throws Exception {
        Resources.close(proxy, spy);
    }

    @Test
    void camelHeadersFromTheClientNeitherReachTheAgentNorRedirectTheRequest() throws Exception {
        HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r1?user_id=7",
                "CamelHttpUri", "http://example.org/",
                "CamelHttpPath", "/evil",
                "CamelHttpQuery", "user_id=666",
                "CamelHttpMethod", "DELETE",
                "CamelHttpResponseCode", "418");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("{\"agent_id\":\"SPY\"}");
        SpyAgent.Seen seen = spy.next();
        assertThat(seen.method()).isEqualTo("GET");
        assertThat(seen.target()).isEqualTo("/process/r1?user_id=7");
        assertThat(seen.headers().keySet()).noneMatch(name -> name.toLowerCase().startsWith("camel"));
    }

    @Test
    void theClientsHostHeaderIsReplacedByTheAgentsOwn() throws Exception {
        http.get(proxy.baseUrl() + "/process/r1?user_id=7", "Host", "evil.example.org:1234");

        SpyAgent.Seen seen = spy.next();
        assertThat(seen.header("Host")).containsExactly(URI.create(spy.baseUrl()).getAuthority());
    }

    @Test
    void pathAndQueryPassThroughStillEncoded() throws Exception {
        HttpResponse<String> response =
                http.get(proxy.baseUrl() + "/process/a%2Fb%20c?user_id=a%20b&x=%2B1&y=%E2%82%AC");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(spy.next().target()).isEqualTo("/process/a%2Fb%20c?user_id=a%20b&x=%2B1&y=%E2%82%AC");
    }

    @Test
    void theBalancersInputsAreNotSentAsHeadersButTheClientsEndToEndHeadersAre() throws Exception {
        http.get(proxy.baseUrl() + "/process/r9?user_id=42", "X-Client", "secret", "Authorization", "Bearer t0k",
                "Accept", "text/event-stream", "Mcp-Session-Id", "s-1");

        SpyAgent.Seen seen = spy.next();
        assertThat(seen.headers().keySet()).map(String::toLowerCase).doesNotContain("user_id", "req_id");
        assertThat(seen.header("X-Client")).containsExactly("secret");
        assertThat(seen.header("Authorization")).containsExactly("Bearer t0k");
        assertThat(seen.header("Accept")).containsExactly("text/event-stream");
        assertThat(seen.header("Mcp-Session-Id")).containsExactly("s-1");
        assertThat(seen.target()).isEqualTo("/process/r9?user_id=42");
    }

    /** The agent's end-to-end headers reach the client unchanged; its load reports and hop-by-hop headers do not. */
    @Test
    void theAgentsEndToEndHeadersReachTheClientButNotItsLoadReports() throws Exception {
        try (FaultyAgent agent = FaultyAgent.replying("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\n"
                + "Cache-Control: no-store\r\nMcp-Session-Id: s-2\r\nSet-Cookie: a=1\r\nWWW-Authenticate: Bearer\r\n"
                + "X-Agent-Utilization: 0.5\r\nEndpoint-Load-Metrics: TEXT named_metrics.num_requests_waiting=2\r\n"
                + "Keep-Alive: timeout=1\r\nConnection: close, X-Hop\r\nX-Hop: 1\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
                DemoProxy direct = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                        .agentUrls(agent.baseUrl()).strategy("rr").build())) {
            HttpResponse<String> response = http.get(direct.baseUrl() + "/process/r1?user_id=7");

            assertThat(response.statusCode()).isEqualTo(429);
            assertThat(response.body()).isEqualTo("{}");
            assertThat(response.headers().firstValue("Retry-After")).hasValue("7");
            assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
            assertThat(response.headers().firstValue("Mcp-Session-Id")).hasValue("s-2");
            assertThat(response.headers().firstValue("Set-Cookie")).hasValue("a=1");
            assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(response.headers().map().keySet()).map(String::toLowerCase)
                    .doesNotContain("x-agent-utilization", "endpoint-load-metrics", "keep-alive", "x-hop");
        }
    }

    /** An agent's error status and body, JSON or not, pass through unchanged. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "500 | application/json | {\"error\":\"agent broke\"}",
            "404 | text/plain       | nope",
    })
    void anAgentAnswerIsRelayedAsItCame(int status, String contentType, String body) {
        spy.answering(status, contentType, body);

        HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r1?user_id=7");

        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.body()).isEqualTo(body);
        assertThat(response.headers().firstValue("Content-Type")).hasValue(contentType);
    }

    @Test
    void theClientsMethodAndBodyReachTheAgent() throws Exception {
        http.send(HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/process/r1?user_id=7"))
                .method("DELETE", HttpRequest.BodyPublishers.ofString("body too")));

        SpyAgent.Seen seen = spy.next();
        assertThat(seen.method()).isEqualTo("DELETE");
        assertThat(seen.header("Content-Length")).containsExactly("8");
    }
}
