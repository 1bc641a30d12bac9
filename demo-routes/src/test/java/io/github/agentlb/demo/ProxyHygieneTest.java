package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What reaches the agent and what comes back, seen on the wire by a spy agent. */
@Timeout(60)
class ProxyHygieneTest {

    private final Http http = new Http();
    private SpyAgent spy;
    private DemoProxy proxy;

    @BeforeEach
    void start() throws Exception {
        spy = SpyAgent.start();
        proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                .agentUrls(spy.baseUrl()).strategy("ch").build());
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (spy != null) {
            spy.close();
        }
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
    void userIdAndReqIdAreNotSentAsRequestHeadersNorClientHeadersForwarded() throws Exception {
        http.get(proxy.baseUrl() + "/process/r9?user_id=42", "X-Client", "secret", "user_id", "forged");

        SpyAgent.Seen seen = spy.next();
        assertThat(seen.headers().keySet()).map(String::toLowerCase)
                .doesNotContain("user_id", "req_id", "x-client")
                .allMatch(name -> Set.of("host", "connection", "content-length", "via", "x-forwarded-for").contains(name));
        assertThat(seen.target()).isEqualTo("/process/r9?user_id=42");
    }

    @Test
    void theAgentsLoadHeadersAndOtherHeadersAreNotPassedToTheClient() {
        HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r1?user_id=7");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.headers().map().keySet()).map(String::toLowerCase)
                .noneMatch(name -> name.startsWith("x-agent") || name.startsWith("camel") || name.equals("x-other")
                        || name.equals("user_id") || name.equals("req_id"));
    }

    @Test
    void anAgentErrorStatusAndBodyPassThroughUnchanged() {
        spy.answering(500, "application/json", "{\"error\":\"agent broke\"}");

        HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r1?user_id=7");

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).isEqualTo("{\"error\":\"agent broke\"}");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    }

    @Test
    void aNonJsonAgentAnswerIsRelayedAsItCame() {
        spy.answering(404, "text/plain", "nope");

        HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r1?user_id=7");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).isEqualTo("nope");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain");
    }

    @Test
    void theRequestMethodToTheAgentIsAlwaysGet() throws Exception {
        http.send(HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/process/r1?user_id=7"))
                .method("GET", HttpRequest.BodyPublishers.ofString("body is ignored")));

        SpyAgent.Seen seen = spy.next();
        assertThat(seen.method()).isEqualTo("GET");
        assertThat(seen.header("Content-Length")).allMatch(v -> v.equals("0"));
    }
}
