package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.http.RawHttp;
import io.github.agentlb.camel.http.ScriptedAgent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the proxy checks before it routes, on a raw socket: dot-segments, {@code Host}, a body's
 * framing and size, a request that arrives too slowly.
 */
@Tag("e2e")
@Timeout(60)
class ProxyRequestEdgesTest {

    private ScriptedAgent agent;
    private DemoProxy proxy;

    @BeforeEach
    void start() throws Exception {
        agent = ScriptedAgent.echo();
        proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(agent.baseUrl())
                .strategy("rr").maxBodyBytes(1024).clientTimeoutMs(300).build());
    }

    @AfterEach
    void stop() throws Exception {
        Resources.close(proxy, agent);
    }

    /** RFC 3986 §5.2.4: none of these is a {@code /process/{id}} target once dot-segments are removed. */
    @ParameterizedTest
    @ValueSource(strings = {"/process/..?user_id=1", "/process/%2e%2e?user_id=1", "/process/%2E.?user_id=1",
            "/process/.?user_id=1", "/process/x/..?user_id=1"})
    void dotSegmentsAreRemovedBeforeRouting(String target) {
        RawHttp.Answer answer = RawHttp.send(proxy.baseUrl(), "GET", target);

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.json().path("error").asText()).isEqualTo("not found");
        assertThat(agent.calls()).isZero();
    }

    @Test
    void theAgentGetsThePathWithoutDotSegments() throws Exception {
        RawHttp.Answer answer = RawHttp.send(proxy.baseUrl(), "GET", "/process/a/../b/./%2e%2e/r1?user_id=1");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(agent.next().target()).isEqualTo("/process/r1?user_id=1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a:xx", "a:1:2", "[::1", "a]:1", "[::1]x"})
    void aHostThatIsNotHostColonPortIsRefused(String host) {
        String wire = RawHttp.talk(proxy.baseUrl(), "GET /process/r1?user_id=1 HTTP/1.1\r\nHost: " + host
                + "\r\nConnection: close\r\n\r\n");

        assertThat(wire).startsWith("HTTP/1.1 400 Bad Request").contains("malformed Host header");
        assertThat(agent.calls()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "a:80", "a:", "[::1]", "[::1]:8000", "127.0.0.1:1"})
    void aHostThatIsHostColonPortIsServed(String host) {
        String wire = RawHttp.talk(proxy.baseUrl(), "GET /process/r1?user_id=1 HTTP/1.1\r\nHost: " + host
                + "\r\nConnection: close\r\n\r\n");

        assertThat(wire).startsWith("HTTP/1.1 200 OK");
    }

    /** RFC 9112 §6.1: both framings is the shape of request smuggling: answered, then the connection closed. */
    @Test
    void transferEncodingWithContentLengthIsAnsweredThenTheConnectionClosed() {
        String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                + "GET /process/r2?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n");

        assertThat(wire).startsWith("HTTP/1.1 400 Bad Request").contains("connection: close")
                .contains("Transfer-Encoding together with Content-Length");
        assertThat(wire.split("HTTP/1.1 ")).hasSize(2);
        assertThat(agent.calls()).isZero();
    }

    /**
     * RFC 9112 §6.3: a request whose Transfer-Encoding is not {@code chunked} alone has no length the
     * proxy can trust (read as empty, its body would be the next request: a smuggled one). Answered
     * 400, then the connection closed; the agent gets neither request.
     */
    @ParameterizedTest
    @ValueSource(strings = {"gzip", "identity", "xchunked", "chunked, identity", "gzip, chunked", "chunked\r\nTransfer-Encoding: chunked"})
    void aTransferEncodingOtherThanChunkedAloneIsAnsweredThenTheConnectionClosed(String coding) {
        String smuggled = "GET /process/SMUGGLED?user_id=evil HTTP/1.1\r\nHost: x\r\n\r\n";
        String body = coding.startsWith("chunked") ? Integer.toHexString(smuggled.length()) + "\r\n" + smuggled + "\r\n0\r\n\r\n"
                : smuggled;
        String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/outer?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                + "Transfer-Encoding: " + coding + "\r\n\r\n" + body);

        assertThat(wire).as(coding).startsWith("HTTP/1.1 400 Bad Request").contains("connection: close")
                .contains("Transfer-Encoding");
        assertThat(wire.split("HTTP/1.1 ")).as(coding).hasSize(2);
        assertThat(agent.calls()).as(coding).isZero();
    }

    @Test
    void aBodyOverTheLimitGets413Json() {
        String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2000\r\n\r\n" + "x".repeat(2000));

        assertThat(wire).startsWith("HTTP/1.1 413 Request Entity Too Large").contains("content-type: application/json")
                .endsWith("{\"error\":\"content too large\",\"detail\":\"the request body is over 1024 bytes\"}");
        assertThat(agent.calls()).isZero();
    }

    /** curl asks {@code Expect: 100-continue} for a body over 1 MiB: the refusal is the same JSON, then the connection closed. */
    @Test
    void aBodyOverTheLimitThatExpects100ContinueGets413JsonNotAnEmptyOne() {
        String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2000\r\nExpect: 100-continue\r\n\r\n");

        assertThat(wire).startsWith("HTTP/1.1 413 Request Entity Too Large").contains("content-type: application/json")
                .contains("connection: close")
                .endsWith("{\"error\":\"content too large\",\"detail\":\"the request body is over 1024 bytes\"}");
        assertThat(agent.calls()).isZero();
    }

    /** RFC 9110 §10.1.1: an expectation other than 100-continue is refused 417, in the same JSON, then the connection closed. */
    @Test
    void anUnknownExpectationGets417Json() {
        String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2\r\nExpect: 200-ok\r\n\r\n{}");

        assertThat(wire).startsWith("HTTP/1.1 417 Expectation Failed").contains("content-type: application/json")
                .contains("connection: close")
                .endsWith("{\"error\":\"expectation failed\",\"detail\":\"only Expect: 100-continue is supported\"}");
        assertThat(agent.calls()).isZero();
    }

    @Test
    void aChunkedBodyOverTheLimitGets413Json() {
        String chunk = "x".repeat(800);
        String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n320\r\n" + chunk + "\r\n320\r\n" + chunk + "\r\n0\r\n\r\n");

        assertThat(wire).startsWith("HTTP/1.1 413").contains("\"error\":\"content too large\"");
        assertThat(agent.calls()).isZero();
    }

    /** nginx's client_header_timeout: a head that breaks off half-way gets 408 JSON and the connection closed. */
    @Test
    void aHalfSentHeadGets408() {
        String wire = RawHttp.talk(proxy.baseUrl(), "GET /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\n");

        assertThat(wire).startsWith("HTTP/1.1 408 Request Timeout").contains("connection: close")
                .contains("{\"error\":\"request timeout\"");
        assertThat(agent.calls()).isZero();
    }

    @Test
    void aBodyThatBreaksOffHalfWayGets408() {
        String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                + "Content-Length: 100\r\n\r\n{\"half\":");

        assertThat(wire).startsWith("HTTP/1.1 408 Request Timeout");
        assertThat(agent.calls()).isZero();
    }
}
