package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.http.RawHttp;
import io.github.agentlb.camel.http.ScriptedAgent;
import io.github.agentlb.testing.FreePorts;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Failures the client may see: always JSON, never a stack trace. */
@Tag("e2e")
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProxyErrorsTest {

    private final Http http = new Http();
    /** Shared by the tests that only read: three agents behind a ch proxy. */
    private Agents shared;
    private DemoProxy sharedProxy;

    @BeforeAll
    void startShared() throws Exception {
        shared = Agents.start(3, 0, 2);
        sharedProxy = Proxies.start(shared.urls(), "ch");
    }

    @AfterAll
    void stopShared() throws Exception {
        Resources.close(sharedProxy, shared);
    }

    private long served() {
        return shared.agents.stream().mapToLong(StubAgent::requestsServed).sum();
    }

    /** rr over the slow agent, then the fast one, with a 300 ms first-byte timeout. */
    private static ProxyConfig slowThenFast(Agents slow, Agents fast) {
        return ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(slow.urls().get(0), fast.urls().get(0))
                .strategy("rr").firstByteTimeoutMs(300).build();
    }

    /** Base URLs where nothing listens: ports found free and left unbound. */
    private static List<String> deadUrls(int count) throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            urls.add("http://127.0.0.1:" + FreePorts.next());
        }
        return urls;
    }

    private HttpResponse<String> requestR1(DemoProxy proxy) {
        return http.get(proxy.baseUrl() + "/process/r1?user_id=1");
    }

    /** Checks a 503 and gives its detail to check. */
    private static AbstractStringAssert<?> assertUnavailable(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(503);
        return assertThat(Http.json(response).path("detail").asText());
    }

    @Test
    void allAgentsDownGives503WithAJsonError() throws Exception {
        try (DemoProxy proxy = Proxies.start(deadUrls(3), "rr")) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r" + i + "?user_id=1");

                assertThat(response.statusCode()).isEqualTo(503);
                assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
                JsonNode body = Http.json(response);
                assertThat(body.path("error").asText()).isEqualTo("no agent available");
                assertThat(body.path("detail").asText()).matches("all 3 agents tried failed: "
                        + "http://127\\.0\\.0\\.1:\\d+ \\((connection refused|could not connect)\\)"
                        + "(, http://127\\.0\\.0\\.1:\\d+ \\((connection refused|could not connect)\\)){2}");
                assertThat(response.body()).doesNotContain("\tat ").doesNotContain("Exception")
                        .doesNotContain("Exchange[");
            }
        }
    }

    /**
     * A client's request whose {@code Via} already names {@code agentlb} eleven times (a spoofed
     * loop): 502 with a JSON error, no agent called, none ejected (before: a 503, and every agent
     * tried ejected "after a loop" for 10 s).
     */
    @Test
    void aRequestArrivingWithTooManyHopsGets502AndNoAgentIsCalledOrEjected() throws Exception {
        long before = served();
        String agent = Http.agentId(requestR1(sharedProxy));

        HttpResponse<String> spoofed = http.get(sharedProxy.baseUrl() + "/process/spoof?user_id=1",
                "Via", String.join(", ", java.util.Collections.nCopies(11, "1.1 agentlb")));

        assertThat(spoofed.statusCode()).isEqualTo(502);
        assertThat(Http.json(spoofed).path("error").asText()).isEqualTo("loop detected");
        assertThat(Http.json(spoofed).path("detail").asText()).contains("passed 11 balancers already (Via)");
        assertThat(served()).as("only the request before it").isEqualTo(before + 1);
        // The bound, as documented: ten names or more are refused (this proxy would be the eleventh), nine pass.
        HttpResponse<String> ten = http.get(sharedProxy.baseUrl() + "/process/spoof?user_id=1",
                "Via", String.join(", ", java.util.Collections.nCopies(10, "1.1 agentlb")));
        assertThat(ten.statusCode()).isEqualTo(502);
        assertThat(Http.json(ten).path("detail").asText()).contains("passed 10 balancers already (Via)");
        assertThat(http.get(sharedProxy.baseUrl() + "/process/spoof?user_id=1",
                "Via", String.join(", ", java.util.Collections.nCopies(9, "1.1 agentlb"))).statusCode()).isEqualTo(200);
        assertThat(served()).as("the request with nine").isEqualTo(before + 2);
        for (int i = 0; i < 3; i++) {
            assertThat(Http.agentId(requestR1(sharedProxy))).as("the key's agent, not ejected").isEqualTo(agent);
        }
    }

    /**
     * A real loop: a proxy listed in its own fleet. The users its key sends there get the loop's
     * error answer once; the answers count against the address that leads back (health checks off
     * here), which is ejected, and the next requests of those users go to the real agent (before:
     * the demo answered loops 508, no error status, and the same users got it again every time).
     */
    @Test
    void aProxyListedInItsOwnFleetIsEjectedAfterTheLoopsErrorAnswers() throws Exception {
        int port = FreePorts.next();
        String self = "http://127.0.0.1:" + port;
        try (Agents agents = Agents.start(1, 0, 2);
                DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(port)
                        .agentUrls(self, agents.urls().get(0)).strategy("ch").build())) {
            String looped = null;
            for (int user = 0; user < 40 && looped == null; user++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r?user_id=" + user);
                if (response.statusCode() != 200) {
                    assertThat(response.statusCode()).isEqualTo(502);
                    assertThat(Http.json(response).path("error").asText()).isEqualTo("loop detected");
                    looped = Integer.toString(user);
                }
            }
            assertThat(looped).as("a user whose key leads to the proxy itself").isNotNull();
            assertThat(proxy.balancer().getEjectedAgents()).containsExactly(self);
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> again = http.get(proxy.baseUrl() + "/process/r" + i + "?user_id=" + looped);
                assertThat(again.statusCode()).isEqualTo(200);
                assertThat(Http.agentId(again)).isEqualTo("A1");
            }
        }
    }

    /**
     * Every agent answers 503 without Retry-After (an outage): the first client gets an agent's 503,
     * the next ones, while the agents rest, the proxy's 503 {@code agents unavailable} with
     * Retry-After, not a 429 that reads as rate limiting.
     */
    @Test
    void whileEveryAgentRestsAfterA503ClientsGet503AgentsUnavailable() throws Exception {
        List<ScriptedAgent> down = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            down.add(ScriptedAgent.start((exchange, request) -> {
                byte[] body = "{\"error\":\"down\"}".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(503, body.length);
                exchange.getResponseBody().write(body);
            }));
        }
        try (DemoProxy proxy = Proxies.start(down.stream().map(ScriptedAgent::baseUrl).toList(), "rr")) {
            assertThat(requestR1(proxy).statusCode()).isEqualTo(503);

            // The agents rest 1 s: on a starved machine an agent's rest may end before the next request,
            // which then gets that agent's own 503 and rests it again; a few tries see every agent resting.
            HttpResponse<String> next;
            int tries = 0;
            do {
                next = requestR1(proxy);
                assertThat(next.statusCode()).as("never a 429 while agents are down").isEqualTo(503);
            } while (!"agents unavailable".equals(Http.json(next).path("error").asText()) && ++tries < 5);

            assertThat(Http.json(next).path("error").asText()).isEqualTo("agents unavailable");
            assertThat(next.headers().firstValue("Retry-After")).hasValue("1");
        } finally {
            down.forEach(ScriptedAgent::close);
        }
    }

    @Test
    void oneAgentDownIsAbsorbedByFailover() throws Exception {
        try (Agents agents = Agents.start(2, 0, 2)) {
            List<String> urls = List.of(agents.urls().get(0), deadUrls(1).get(0), agents.urls().get(1));
            try (DemoProxy proxy = Proxies.start(urls, "rr")) {
                for (int i = 0; i < 9; i++) {
                    HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r" + i + "?user_id=" + i);
                    assertThat(response.statusCode()).as("request %d", i).isEqualTo(200);
                    assertThat(Http.agentId(response)).isIn("A1", "A2");
                }
            }
        }
    }

    @Test
    void anAgentSlowerThanTheFirstByteTimeoutGets504AndTheCallGoesToNoOtherAgent() throws Exception {
        try (Agents fast = Agents.start(1, 0, 2);
                Agents slow = Agents.start(1, 1500, 1500);
                DemoProxy proxy = DemoProxy.start(slowThenFast(slow, fast))) {
            // rr starts at the slow agent: its answer timeout is not a reason to send the call again.
            HttpResponse<String> response = requestR1(proxy);

            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(Http.json(response).path("error").asText()).isEqualTo("gateway timeout");
            assertThat(Http.json(response).path("detail").asText()).contains("timed out");
            assertThat(fast.get(0).requestsServed()).isZero();
        }
    }

    /**
     * A GET may be sent again by the client; a POST that reached its agent is not to be: OpenAI's and
     * other generated SDKs retry a 502 or 504 unless the answer says {@code x-should-retry: false}
     * (a trial with openai-java's default retries saw the timed-out POST at two agents).
     */
    @Test
    void aTimedOutPostIsMarkedNotToBeRetriedByTheClientAGetOrAKeyedPostIsNot() throws Exception {
        // An agent that never answers: the kernel completes each connection into the backlog, nothing reads it.
        try (java.net.ServerSocket hung = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
                DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                        .agentUrls("http://127.0.0.1:" + hung.getLocalPort()).strategy("rr").firstByteTimeoutMs(300).build())) {
            HttpResponse<String> get = requestR1(proxy);
            assertThat(get.statusCode()).isEqualTo(504);
            assertThat(get.headers().firstValue("x-should-retry")).isEmpty();
            HttpResponse<String> post = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                    proxy.baseUrl() + "/process/r2?user_id=1")).POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")));
            assertThat(post.statusCode()).isEqualTo(504);
            assertThat(post.headers().firstValue("x-should-retry")).contains("false");
            HttpResponse<String> keyed = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                    proxy.baseUrl() + "/process/r3?user_id=1")).POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")),
                    "Idempotency-Key", "k-1");
            assertThat(keyed.statusCode()).isEqualTo(504);
            assertThat(keyed.headers().firstValue("x-should-retry")).as("safe to send again").isEmpty();
        }
    }

    @Test
    void anIdempotentCallFailsOverOnAnAnswerTimeoutWhenThePolicySaysSo() throws Exception {
        try (Agents fast = Agents.start(1, 0, 2);
                Agents slow = Agents.start(1, 1500, 1500);
                DemoProxy proxy = DemoProxy.start(slowThenFast(slow, fast), () -> {
                            var rr = Strategies.create("rr");
                            rr.setFailoverPolicy(rr.getFailoverPolicy().withFailOverOnAnswerTimeout(true));
                            return rr;
                        })) {
            HttpResponse<String> response = requestR1(proxy);

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(fast.get(0).requestsServed()).isEqualTo(1);
        }
    }

    /** The answer to r1 through a proxy with this strategy over one agent that answers something not HTTP. */
    private NotHttp r1FromAnAgentAnsweringNotHttp(String strategy) throws Exception {
        try (FaultyAgent garbage = FaultyAgent.replying("NOT HTTP AT ALL\r\n\r\n");
                DemoProxy proxy = Proxies.start(List.of(garbage.baseUrl()), strategy)) {
            return new NotHttp(garbage.baseUrl(), requestR1(proxy));
        }
    }

    /** The base URL of the agent that answered something not HTTP, and the client's answer. */
    private record NotHttp(String agentUrl, HttpResponse<String> response) {
    }

    @Test
    void anAgentAnsweringSomethingNotHttpIsAFailureNamingIt() throws Exception {
        NotHttp r1 = r1FromAnAgentAnsweringNotHttp("rr");

        // Was 502 on every request: an answer, so no failover and no ejection.
        assertUnavailable(r1.response()).isEqualTo(
                "the only agent tried failed: " + r1.agentUrl() + " (answered something that is not HTTP)");
        assertThat(Http.json(r1.response()).path("error").asText()).isEqualTo("no agent available");
    }

    /**
     * An agent that switches protocols unasked (the proxy sends no {@code Upgrade}) is a failure
     * naming it: it was passed on as a 101 with chunked framing and the agent's raw bytes.
     */
    @Test
    void anAgentSwitchingProtocolsIsAFailureNamingIt() throws Exception {
        try (FaultyAgent upgrading = FaultyAgent.replying(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nRAW FRAME BYTES");
                DemoProxy proxy = Proxies.start(List.of(upgrading.baseUrl()), "rr")) {
            assertUnavailable(requestR1(proxy)).isEqualTo("the only agent tried failed: " + upgrading.baseUrl()
                    + " (answered 101 Switching Protocols: upgrades are not proxied)");
        }
    }

    /** An answer whose head is over the agent connection's 8 KiB limit is named as such, not as "not HTTP" (nginx: "too big header"). */
    @Test
    void anAnswerHeadOverTheLimitIsAFailureNamingIt() throws Exception {
        try (FaultyAgent big = FaultyAgent.replying("HTTP/1.1 200 OK\r\nendpoint-load-metrics: TEXT named_metrics.x="
                + "1".repeat(9_000) + "\r\nContent-Length: 2\r\n\r\nok");
                DemoProxy proxy = Proxies.start(List.of(big.baseUrl()), "rr")) {
            assertUnavailable(requestR1(proxy)).isEqualTo("the only agent tried failed: " + big.baseUrl()
                    + " (answered a head over the 8 KiB limit)");
        }
    }

    @Test
    void getsToAnAgentThatIsShuttingDownGoElsewhere() throws Exception {
        try (Agents agents = Agents.start(2, 0, 2); DemoProxy proxy = Proxies.start(agents.urls(), "rr")) {
            // A1 drains: it finishes what it has and answers new requests 503 with Retry-After.
            agents.get(0).camelContext().getRouteController().suspendRoute("agent-A1");
            for (int i = 1; i <= 4; i++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r" + i + "?user_id=" + i);

                // Was a 503 to every other client: an error answer, passed on.
                assertThat(response.statusCode()).as("request %d", i).isEqualTo(200);
            }
            assertThat(agents.get(0).requestsServed()).isZero();
            assertThat(agents.get(1).requestsServed()).isEqualTo(4);
        }
    }

    @Test
    void camelsOwnRoundRobinNamesTheAgentThatAnsweredSomethingNotHttp() throws Exception {
        NotHttp r1 = r1FromAnAgentAnsweringNotHttp("camel-rr");

        // Was "agent ? answered ...": Camel's balancer does not say which child it chose.
        assertThat(r1.response().statusCode()).isEqualTo(502);
        assertThat(Http.json(r1.response()).path("detail").asText())
                .isEqualTo("agent " + r1.agentUrl() + " answered something that is not HTTP");
    }

    @Test
    void aGetToAnAgentAnsweringSomethingNotHttpFailsOverAndEjectsIt() throws Exception {
        try (FaultyAgent garbage = FaultyAgent.replying("NOT HTTP AT ALL\r\n\r\n");
                Agents good = Agents.start(1, 0, 2);
                DemoProxy proxy = Proxies.start(List.of(garbage.baseUrl(), good.urls().get(0)), "rr")) {
            // rr starts at the garbage agent: the first request fails over, the next skip it.
            for (int i = 1; i <= 3; i++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r" + i + "?user_id=1");

                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(Http.agentId(response)).isEqualTo("A1");
            }
            assertThat(proxy.balancer().getEjectedAgents()).containsExactly(garbage.baseUrl());
        }
    }

    @Test
    void anAgentClosingTheConnectionIsNamedWithoutJavaInternals() throws Exception {
        try (FaultyAgent closer = FaultyAgent.replying("");
                DemoProxy proxy = Proxies.start(List.of(closer.baseUrl()), "rr")) {
            HttpResponse<String> response = requestR1(proxy);

            // A connection closed before the answer is a connection failure: failover, then 503.
            assertUnavailable(response)
                    .isEqualTo("the only agent tried failed: " + closer.baseUrl() + " (closed the connection without answering)")
                    .doesNotContain("Exception").doesNotContain("Exchange[");
        }
    }

    @Test
    void namedAgentsAreNamedInThe503() throws Exception {
        List<String> dead = deadUrls(2);
        try (DemoProxy proxy = Proxies.start(List.of("D1=" + dead.get(0), "D2=" + dead.get(1)), "rr")) {
            HttpResponse<String> response = requestR1(proxy);

            assertUnavailable(response).matches(
                    "all 2 agents tried failed: D[12] \\((connection refused|could not connect)\\), "
                            + "D[12] \\((connection refused|could not connect)\\)");
        }
    }

    /** When a failover limit ended the tries, the 503 says which, and counts the agents tried without "all". */
    @Test
    void aFailoverLimitThatEndedTheTriesIsNamedInThe503() throws Exception {
        List<String> dead = deadUrls(3);
        ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).strategy("rr")
                .agentUrls(List.of("D1=" + dead.get(0), "D2=" + dead.get(1), "D3=" + dead.get(2))).build();
        try (DemoProxy proxy = DemoProxy.start(config, () -> {
            io.github.agentlb.camel.RoundRobinLB rr = new io.github.agentlb.camel.RoundRobinLB();
            rr.setMaximumFailoverAttempts(1);
            return rr;
        })) {
            HttpResponse<String> response = requestR1(proxy);

            assertUnavailable(response).matches("the 2 agents tried failed: D[123] \\((connection refused|could not connect)\\), "
                    + "D[123] \\((connection refused|could not connect)\\); no other agent was tried \\(maximumFailoverAttempts=1\\)");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/process/r1?user_id=%zz", "/process/r%zz", "/process/r1?user_id=50%",
        "/process/r1?user_id=a|b", "/process/r1?x=%&user_id=1", "/nope%"})
    void aMalformedTargetGives400JsonAndReachesNoAgent(String target) {
        long before = served();

        RawHttp.Answer answer = RawHttp.send(sharedProxy.baseUrl(), "GET", target);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
        assertThat(answer.json().path("error").asText()).isEqualTo("bad request");
        assertThat(answer.json().path("detail").asText()).startsWith("malformed request target: ").endsWith(target);
        assertThat(served()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"TRACE", "OPTIONS", "HEAD"})
    void traceOptionsAndHeadReachTheAgentWhichAnswers405Itself(String method) {
        RawHttp.Answer answer = RawHttp.send(sharedProxy.baseUrl(), method, "/process/r1?user_id=1");

        assertThat(answer.status()).isEqualTo(405);
        assertThat(answer.header("Allow")).isEqualTo("GET, POST");
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
    }

    @Test
    void connectOnProcessIsTheOneMethodTheProxyRefuses() {
        RawHttp.Answer answer = RawHttp.send(sharedProxy.baseUrl(), "CONNECT", "/process/r1?user_id=1");

        assertThat(answer.status()).isEqualTo(405);
        assertThat(answer.header("Allow")).isEqualTo(ProxyRoutes.FORWARDED_METHODS);
        assertThat(answer.json().path("error").asText()).isEqualTo("method not allowed");
    }

    @Test
    void theProxyAndTheAgentsShareTheErrorShape() {
        for (String base : List.of(sharedProxy.baseUrl(), shared.urls().get(0))) {
            for (String target : List.of("/nope", "/process/r%zz")) {
                RawHttp.Answer answer = RawHttp.send(base, "GET", target);
                assertThat(answer.json().size()).as("%s%s", base, target).isEqualTo(2);
                assertThat(answer.json().has("error") && answer.json().has("detail")).isTrue();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/foo", "/process", "/process/", "/process/a/b", "/health", "/processx/1"})
    void unknownPathsGive404Json(String path) {
        long before = served();

        HttpResponse<String> response = http.get(sharedProxy.baseUrl() + path);

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(Http.json(response).path("error").asText()).isEqualTo("not found");
        assertThat(served()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"PUT", "DELETE", "PATCH"})
    void otherMethodsReachTheAgentWhichAnswers405ItselfWithAllow(String method) {
        long before = served();

        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create(sharedProxy.baseUrl() + "/process/r1?user_id=1"))
                .method(method, HttpRequest.BodyPublishers.ofString("{}")));

        assertThat(response.statusCode()).isEqualTo(405);
        assertThat(response.headers().firstValue("Allow")).hasValue("GET, POST");
        assertThat(Http.json(response).path("error").asText()).isEqualTo("method not allowed");
        assertThat(served()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "user_id=", "user_id", "user_id=abc", "user_id=-5", "user_id=0",
        "user_id=99999999999999999999999999999999999999", "user_id=%E2%9C%93%20ok",
        "user_id=1&user_id=2", "other=1"})
    void anyUserIdAnswers200UnderConsistentHashing(String query) {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = http.get(sharedProxy.baseUrl() + "/process/r" + i
                    + (query.isEmpty() ? "" : "?" + query));
            assertThat(response.statusCode()).as("query '%s'", query).isEqualTo(200);
            assertThat(Http.agentId(response)).isIn("A1", "A2", "A3");
        }
    }

    @Test
    void requestsWithoutAUserIdAreSpreadRoundRobinUnderConsistentHashing() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            seen.add(Http.agentId(http.get(sharedProxy.baseUrl() + "/process/r" + i + "?user_id=")));
        }
        assertThat(seen).containsExactlyInAnyOrder("A1", "A2", "A3");
    }

    @Test
    void aUnicodeUserIdIsAKeyLikeAnyOther() {
        String user = URLEncoder.encode("Юзер ✓", StandardCharsets.UTF_8);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> response = http.get(sharedProxy.baseUrl() + "/process/r" + i + "?user_id=" + user);
            assertThat(Http.json(response).path("user_id").asText()).isEqualTo("Юзер ✓");
            seen.add(Http.agentId(response));
        }
        assertThat(seen).hasSize(1);
    }
}
