package io.github.agentlb.demo;

import static io.github.agentlb.agent.HttpAnswers.CLOSE;
import static io.github.agentlb.agent.HttpAnswers.JSON;
import static io.github.agentlb.agent.HttpAnswers.KEEP_ALIVE;
import static io.github.agentlb.agent.HttpAnswers.answer;
import static io.github.agentlb.agent.HttpAnswers.badRequest;
import static io.github.agentlb.agent.HttpAnswers.headersOnly;
import static io.github.agentlb.agent.HttpAnswers.notFound;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.http.RawHttp;
import java.net.URI;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The proxy as a strict HTTP/1.1 reverse proxy (RFC 9110, RFC 9112), byte by byte on a socket:
 * one test per rule, each with the exact bytes the client gets and, when an agent is involved,
 * what the agent saw. Each conversation ends with a request carrying {@code Connection: close},
 * so that the proxy closing the connection marks the end of its answers.
 */
@Tag("e2e")
@Timeout(60)
class ProxyConformanceTest {

    private static final String SPY_BODY = "{\"agent_id\":\"SPY\"}";

    private SpyAgent spy;
    private DemoProxy proxy;
    private String host;

    @BeforeEach
    void start() throws Exception {
        spy = SpyAgent.start();
        proxy = Proxies.start(List.of(spy.baseUrl()), "rr");
        host = "Host: " + URI.create(proxy.baseUrl()).getAuthority() + "\r\n";
    }

    @AfterEach
    void stop() throws Exception {
        Resources.close(proxy, spy);
    }

    private String get(String target, String extraHeaders) {
        return "GET " + target + " HTTP/1.1\r\n" + host + extraHeaders + "\r\n";
    }

    /** RFC 9110 §9.3.2: the answer to HEAD has the headers GET's would have and no body. */
    @Test
    void headIsAnsweredWithHeadersOnlySoTheNextAnswerStartsRightAfter() throws Exception {
        String wire = RawHttp.talk(proxy.baseUrl(), "HEAD /process/r1?user_id=42 HTTP/1.1\r\n" + host + "\r\n"
                + get("/nope", "Connection: close\r\n"));

        assertThat(wire).isEqualTo(headersOnly(answer("HTTP/1.1 200 OK", SPY_BODY, JSON, KEEP_ALIVE))
                + notFound("/nope", CLOSE));
        assertThat(spy.next().method()).isEqualTo("HEAD");
    }

    /** RFC 9112 §9.3.2: pipelined requests are answered in the order they came. */
    @Test
    void aPipelinedLocalAnswerWaitsForTheProxiedOneBeforeIt() throws Exception {
        String wire = RawHttp.talk(proxy.baseUrl(), get("/process/p1?user_id=1", "") + get("/nope", "Connection: close\r\n"));

        assertThat(wire).isEqualTo(answer("HTTP/1.1 200 OK", SPY_BODY, JSON, KEEP_ALIVE) + notFound("/nope", CLOSE));
        assertThat(spy.next().target()).isEqualTo("/process/p1?user_id=1");
    }

    @Test
    void twoPipelinedProxiedRequestsKeepTheirOrderWhenTheFirstAgentAnswerIsSlower() {
        spy.echoing().answering(200, "text/plain", null).slow("/process/slow?user_id=1", 300);

        String wire = RawHttp.talk(proxy.baseUrl(),
                get("/process/slow?user_id=1", "") + get("/process/fast?user_id=2", "Connection: close\r\n"));

        assertThat(wire).isEqualTo(answer("HTTP/1.1 200 OK", "/process/slow?user_id=1", "content-type: text/plain", KEEP_ALIVE)
                + answer("HTTP/1.1 200 OK", "/process/fast?user_id=2", "content-type: text/plain", CLOSE));
    }

    /**
     * Targets the proxy refuses itself, reaching no agent: raw UTF-8 (RFC 9112 §3.2: a
     * request-target is ASCII) and a character RFC 3986 does not allow.
     */
    static Stream<Arguments> refusedTargets() {
        return Stream.of(
                Arguments.of("/process/caf\u00C3\u00A9?user_id=1",
                        "malformed request target: non-ASCII byte 0xC3 at index 12 of "
                                + "/process/caf\\\\xC3\\\\xA9?user_id=1"),
                Arguments.of("/process/r1?user_id=1#frag",
                        "malformed request target: illegal character in query at index 21 of "
                                + "/process/r1?user_id=1#frag"));
    }

    @ParameterizedTest
    @MethodSource("refusedTargets")
    void aTargetOutsideRfc3986IsRefusedByTheProxyAndReachesNoAgent(String target, String problem) {
        String wire = RawHttp.talk(proxy.baseUrl(), get(target, "Connection: close\r\n"));

        assertThat(wire).isEqualTo(badRequest(problem, CLOSE));
        assertThat(spy.pending()).isZero();
    }

    /**
     * RFC 9110 §15.6.6: another major version of HTTP gets 505 from the proxy itself, and a request
     * line too long to parse 414 (RFC 9112 §3); the connection closes after either; no agent is asked.
     */
    @Test
    void anotherMajorVersionAnUnknownMethodOrAnOverlongLineIsRefusedByTheProxyAndReachesNoAgent() {
        String wire = RawHttp.talk(proxy.baseUrl(), "GET /process/r1?user_id=1 HTTP/2.0\r\n" + host + "\r\n"
                + get("/nope", ""));
        assertThat(wire).isEqualTo(answer("HTTP/1.1 505 HTTP Version Not Supported",
                "{\"error\":\"http version not supported\",\"detail\":\"HTTP/2.0 is not supported, use HTTP/1.1\"}",
                JSON, CLOSE));

        wire = RawHttp.talk(proxy.baseUrl(), "FOO /process/r1?user_id=1 HTTP/1.1\r\n" + host + "\r\n");
        assertThat(wire).isEqualTo(answer("HTTP/1.1 501 Not Implemented",
                "{\"error\":\"not implemented\",\"detail\":\"method FOO is not implemented\"}", JSON, CLOSE));

        wire = RawHttp.talk(proxy.baseUrl(), get("/process/r1?user_id=" + "7".repeat(5000), "") + get("/nope", ""));
        assertThat(wire).isEqualTo(answer("HTTP/1.1 414 Request-URI Too Long",
                "{\"error\":\"uri too long\",\"detail\":\"the request line is too long\"}", JSON, CLOSE));
        assertThat(spy.pending()).isZero();
    }

    /** RFC 3986 §2.3: {@code ~} is unreserved; it reaches the agent as sent, not as {@code %7E}. */
    @Test
    void aTildeReachesTheAgentUnescaped() throws Exception {
        RawHttp.talk(proxy.baseUrl(), get("/process/a~b?user_id=x~1", "Connection: close\r\n"));

        assertThat(spy.next().target()).isEqualTo("/process/a~b?user_id=x~1");
    }

    @Test
    void everyCharacterATargetMayHoldReachesTheAgentByteForByte() throws Exception {
        String target = "/process/aZ09-._~!$&'()*+,;=:@%7e%2F%41?user_id=1&q=/?:@-._~!$'()*+,;=%20%E2%82%AC&&=";

        String wire = RawHttp.talk(proxy.baseUrl(), get(target, "Connection: close\r\n"));

        assertThat(wire).isEqualTo(answer("HTTP/1.1 200 OK", SPY_BODY, JSON, CLOSE));
        assertThat(spy.next().target()).isEqualTo(target);
    }

    /** RFC 9112 §3.2.2: absolute form is accepted; the agent gets the origin form. */
    @Test
    void anAbsoluteFormTargetReachesTheAgentInOriginForm() throws Exception {
        RawHttp.talk(proxy.baseUrl(), get("http://example.org/process/r1?user_id=3", "Connection: close\r\n"));

        assertThat(spy.next().target()).isEqualTo("/process/r1?user_id=3");
    }

    /** RFC 9112 §3.2: more than one Host line, or a Host that is not {@code host[:port]}: 400. */
    @Test
    void twoHostLinesOrAMalformedHostAreRefusedByTheProxy() {
        String wire = RawHttp.talk(proxy.baseUrl(), get("/process/r1?user_id=1", "Host: other\r\n")
                + "GET /process/r2?user_id=1 HTTP/1.1\r\nHost: a/b\r\nConnection: close\r\n\r\n");

        assertThat(wire).isEqualTo(badRequest("more than one Host header", KEEP_ALIVE)
                + badRequest("malformed Host header: illegal character at index 1 of a/b", CLOSE));
        assertThat(spy.pending()).isZero();
    }

    /**
     * RFC 9110 §7.6.1: hop-by-hop headers (and those named in Connection) are not forwarded;
     * §7.6.3: the agent request carries Via; X-Forwarded-For is the client's address only.
     */
    @Test
    void hopByHopHeadersStayHereAndTheAgentGetsViaAndXForwardedFor() throws Exception {
        RawHttp.talk(proxy.baseUrl(), get("/process/r1?user_id=1", "Connection: close, X-Hop\r\nX-Hop: 1\r\n"
                + "Keep-Alive: timeout=5\r\nTE: trailers\r\nTrailer: X-T\r\nUpgrade: h2c\r\n"
                + "Proxy-Authorization: Basic eDp5\r\nProxy-Connection: keep-alive\r\nX-Forwarded-For: 6.6.6.6\r\n"));

        SpyAgent.Seen seen = spy.next();
        // content-length: 0 is added by the spy's own HttpObjectAggregator to a request without content.
        assertThat(seen.headers()).containsOnlyKeys("Via", "X-Forwarded-For", "host", "connection", "content-length");
        assertThat(seen.header("Via")).containsExactly("1.1 agentlb");
        assertThat(seen.header("X-Forwarded-For")).containsExactly("127.0.0.1");
        assertThat(seen.header("Host")).containsExactly(URI.create(spy.baseUrl()).getAuthority());
        assertThat(seen.header("Connection")).containsExactly("keep-alive");
    }

    /** An HTTP/1.0 client without keep-alive gets its answer and then the connection is closed. */
    @Test
    void anHttp10ClientGetsTheAnswerThenTheConnectionClosed() throws Exception {
        String wire = RawHttp.talk(proxy.baseUrl(), "GET /process/r1?user_id=1 HTTP/1.0\r\n" + host + "\r\n");

        assertThat(wire).isEqualTo(answer("HTTP/1.1 200 OK", SPY_BODY, JSON, CLOSE));
        assertThat(spy.next().header("Via")).containsExactly("1.0 agentlb");
    }

    /** {@code Connection: close}: the answer, then the connection closed; requests after it are not answered. */
    @Test
    void connectionCloseEndsTheConnectionAfterTheAnswer() {
        String wire = RawHttp.talk(proxy.baseUrl(), get("/nope", "Connection: close\r\n") + get("/nope2", ""));

        assertThat(wire).isEqualTo(notFound("/nope", CLOSE));
    }
}
