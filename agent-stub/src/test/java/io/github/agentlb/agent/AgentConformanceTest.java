package io.github.agentlb.agent;

import static io.github.agentlb.agent.HttpAnswers.CLOSE;
import static io.github.agentlb.agent.HttpAnswers.JSON;
import static io.github.agentlb.agent.HttpAnswers.KEEP_ALIVE;
import static io.github.agentlb.agent.HttpAnswers.answer;
import static io.github.agentlb.agent.HttpAnswers.badRequest;
import static io.github.agentlb.agent.HttpAnswers.headersOnly;
import static io.github.agentlb.agent.HttpAnswers.notFound;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The stub agent as a strict HTTP/1.1 server (RFC 9110, RFC 9112), byte by byte on a socket: one
 * test per rule with the exact bytes the client gets. The load headers and the timestamp of a
 * 200 answer vary with time, so they are compared as {@code X-Agent-Cpu: *} and
 * {@code "timestamp":*}. Each conversation ends with {@code Connection: close}, so that the
 * agent closing the connection marks the end of its answers.
 */
@Tag("e2e")
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AgentConformanceTest {

    private static final String[] LOAD = {"X-Agent-Cpu: *", "X-Agent-Memory: *", "X-Agent-Utilization: *"};
    private static final String HOST = "Host: 127.0.0.1\r\n";

    @AutoClose
    private StubAgent agent;

    @BeforeEach
    void start() throws Exception {
        // A fixed 50 ms service delay: a local answer (404) is always ready before a /process one.
        agent = StubAgent.start(AgentConfig.custom().agentId("A1").host("127.0.0.1").port(0).delayMs(50, 50).build());
    }

    /** RFC 9110 §9.3.2: the answer to HEAD has GET's headers and no body. */
    @Test
    void headIsAnsweredWithHeadersOnlySoTheNextAnswerStartsRightAfter() {
        String wire = talk("HEAD /process/r1?user_id=42 HTTP/1.1\r\n" + HOST + "\r\n" + get("/nope", "Connection: close\r\n"));

        String methodNotAllowed = answer("HTTP/1.1 405 Method Not Allowed",
                "{\"error\":\"method not allowed\",\"detail\":\"HEAD is not allowed, use GET, POST\"}",
                "Allow: GET, POST", LOAD[0], LOAD[1], LOAD[2], JSON, KEEP_ALIVE);
        assertThat(methodNotAllowed).contains("content-length: 76\r\n");
        assertThat(normalized(wire)).isEqualTo(headersOnly(methodNotAllowed) + notFound("/nope", CLOSE));
    }

    /** RFC 9112 §9.3.2: pipelined requests are answered in the order they came. */
    @Test
    void aPipelinedQuickAnswerWaitsForTheSlowerOneBeforeIt() {
        String wire = talk(get("/process/p1?user_id=1", "") + get("/nope", "Connection: close\r\n"));

        assertThat(normalized(wire)).isEqualTo(processed("p1", "\"1\"", KEEP_ALIVE) + notFound("/nope", CLOSE));
    }

    /** RFC 9112 §3.2: a request-target is ASCII; anything else is a 400, not a mangled id. */
    @Test
    void rawUtf8InTheTargetIsABadRequest() {
        String wire = talk(get("/process/caf\u00C3\u00A9?user_id=1", "Connection: close\r\n"));

        assertThat(wire).isEqualTo(badRequest("malformed request target: non-ASCII byte 0xC3 at index 12 of "
                + "/process/caf\\\\xC3\\\\xA9?user_id=1", CLOSE));
        assertThat(agent.requestsServed()).isZero();
    }

    /**
     * Targets served as any other: {@code ~} is unreserved and means itself (RFC 3986 §2.3); an
     * absolute-form target (RFC 9112 §3.2.2) is served by its path.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "/process/a~b?user_id=x~1                | a~b | \"x~1\"",
            "http://example.org/process/r1?user_id=3 | r1  | \"3\"",
    })
    void aTildeOrAnAbsoluteFormIsAnOrdinaryTarget(String target, String requestId, String userIdJson) {
        String wire = talk(get(target, "Connection: close\r\n"));

        assertThat(normalized(wire)).isEqualTo(processed(requestId, userIdJson, CLOSE));
    }

    @Test
    void characterRfc3986DoesNotAllowIsABadRequest() {
        String wire = talk(get("/process/r1?user_id=1#frag", "Connection: close\r\n"));

        assertThat(wire).isEqualTo(badRequest("malformed request target: illegal character in query at index 21 of "
                + "/process/r1?user_id=1#frag", CLOSE));
    }

    /** RFC 9112 §3.2: more than one Host line, or a Host that is not {@code host[:port]}: 400. */
    @Test
    void twoHostLinesOrAMalformedHostAreABadRequest() {
        String wire = talk(get("/process/r1?user_id=1", "Host: other\r\n")
                + "GET /process/r2?user_id=1 HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n");

        assertThat(wire).isEqualTo(badRequest("more than one Host header", KEEP_ALIVE)
                + badRequest("malformed Host header: illegal character at index 1 of a\\\\x20b", CLOSE));
        assertThat(agent.requestsServed()).isZero();
    }

    /** RFC 3986 §5.2.4, the proxy's rule: {@code /process/..} and its encodings are not a request id. */
    @Test
    void dotSegmentsAreRemovedBeforeRouting() {
        for (String target : new String[] {"/process/..?user_id=1", "/process/%2e%2e?user_id=1", "/process/.?user_id=1"}) {
            String wire = talk(get(target, "Connection: close\r\n"));
            assertThat(wire).as(target).startsWith("HTTP/1.1 404 Not Found");
        }
        assertThat(talk(get("/process/x/../r1?user_id=1", "Connection: close\r\n"))).startsWith("HTTP/1.1 200 OK");
        assertThat(agent.requestsServed()).isEqualTo(1);
    }

    /** RFC 9112 §3.2: {@code Host} is {@code uri-host [":" port]}. */
    @Test
    void aHostWithABadPortOrBracketsIsABadRequest() {
        for (String host : new String[] {"a:xx", "a:1:2", "[::1"}) {
            String wire = talk("GET /process/r1?user_id=1 HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
            assertThat(wire).as(host).startsWith("HTTP/1.1 400 Bad Request").contains("malformed Host header");
        }
        assertThat(agent.requestsServed()).isZero();
    }

    /** RFC 9112 §6.1: Transfer-Encoding with Content-Length: answered, then the connection closed. */
    @Test
    void transferEncodingWithContentLengthClosesTheConnection() {
        String wire = talk("POST /process/r1?user_id=1 HTTP/1.1\r\n" + HOST
                + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get("/nope", ""));

        assertThat(wire).startsWith("HTTP/1.1 400 Bad Request").contains(CLOSE).doesNotContain("404");
    }

    /** An HTTP/1.0 client without keep-alive gets its answer, then the connection is closed. */
    @Test
    void anHttp10ClientGetsTheAnswerThenTheConnectionClosed() {
        String wire = talk("GET /process/r1?user_id=1 HTTP/1.0\r\n" + HOST + "\r\n");

        assertThat(normalized(wire)).isEqualTo(processed("r1", "\"1\"", CLOSE));
    }

    /** {@code Connection: close}: the answer, then the connection closed; requests after it are not answered. */
    @Test
    void connectionCloseEndsTheConnectionAfterTheAnswer() {
        String wire = talk(get("/nope", "Connection: close\r\n") + get("/nope2", ""));

        assertThat(wire).isEqualTo(notFound("/nope", CLOSE));
    }

    /**
     * RFC 9110 §15.6.6: another major version gets 505, then the connection closes (what follows
     * it cannot be read as HTTP/1.1); RFC 9112 §2.3: the protocol name is "HTTP".
     */
    @Test
    void anotherMajorVersionIs505AndAnotherProtocolIs400ThenTheConnectionCloses() {
        for (String version : new String[] {"HTTP/2.0", "HTTP/0.9", "HTTP/3.1"}) {
            String wire = talk("GET /process/r1?user_id=1 " + version + "\r\n" + HOST + "\r\n" + get("/nope", ""));

            assertThat(wire).as(version).isEqualTo(answer("HTTP/1.1 505 HTTP Version Not Supported",
                    "{\"error\":\"http version not supported\",\"detail\":\"" + version
                            + " is not supported, use HTTP/1.1\"}", JSON, CLOSE));
        }
        String wire = talk("GET /process/r1?user_id=1 XTTP/1.1\r\n" + HOST + "\r\n" + get("/nope", ""));

        assertThat(wire).isEqualTo(badRequest("malformed request: invalid version format: XTTP/1.1", CLOSE));
        assertThat(agent.requestsServed()).isZero();
    }

    /**
     * RFC 9112 §3 and RFC 6585 §5: a request line or headers longer than the server parses get 414
     * and 431; a request that is not HTTP/1.1 at all gets 400; each as JSON, then the connection closes.
     */
    @Test
    void undecodableRequestsGetAJsonErrorThenTheConnectionCloses() {
        String longTarget = "/process/r1?user_id=" + "1".repeat(5000);
        assertThat(talk(get(longTarget, "") + get("/nope", ""))).isEqualTo(answer("HTTP/1.1 414 Request-URI Too Long",
                "{\"error\":\"uri too long\",\"detail\":\"the request line is too long\"}", JSON, CLOSE));
        assertThat(talk(get("/nope", "X-Big: " + "b".repeat(9000) + "\r\n") + get("/nope", "")))
                .isEqualTo(answer("HTTP/1.1 431 Request Header Fields Too Large",
                        "{\"error\":\"request header fields too large\",\"detail\":\"the request headers are too long\"}",
                        JSON, CLOSE));
        assertThat(talk("GET /nope HTTP/1.1\r\n" + HOST + "No colon here\r\n\r\n" + get("/nope", "")))
                .startsWith("HTTP/1.1 400 Bad Request\r\n")
                .contains("{\"error\":\"bad request\",\"detail\":\"malformed request: ")
                .contains(CLOSE);
        assertThat(agent.requestsServed()).isZero();
    }

    /**
     * RFC 9112 §3.2: HTTP/1.1 without Host is a 400 (JSON, then the connection closes); HTTP/1.0
     * may have no Host and is served.
     */
    @Test
    void http11WithoutHostIsABadRequestHttp10WithoutHostIsServed() {
        assertThat(talk("GET /process/r1?user_id=1 HTTP/1.1\r\n\r\n" + get("/nope", "")))
                .isEqualTo(badRequest("missing Host header", CLOSE));
        assertThat(normalized(talk("GET /process/r2?user_id=2 HTTP/1.0\r\n\r\n")))
                .isEqualTo(processed("r2", "\"2\"", CLOSE));
    }

    /** RFC 9110 §9.1 and §15.6.2: an unknown method (names are case-sensitive) is 501, as JSON. */
    @Test
    void anUnknownMethodIsNotImplemented() {
        for (String method : new String[] {"FOO", "get"}) {
            String wire = talk(method + " /process/r1?user_id=1 HTTP/1.1\r\n" + HOST + "\r\n" + get("/nope", ""));

            assertThat(wire).as(method).isEqualTo(answer("HTTP/1.1 501 Not Implemented",
                    "{\"error\":\"not implemented\",\"detail\":\"method " + method + " is not implemented\"}",
                    JSON, CLOSE));
        }
        assertThat(agent.requestsServed()).isZero();
    }

    /** RFC 9110 §2.5: a higher minor version of HTTP/1 is served, with an HTTP/1.1 answer. */
    @Test
    void aHigherMinorVersionIsServed() {
        String wire = talk("GET /process/r1?user_id=1 HTTP/1.2\r\n" + HOST + "Connection: close\r\n\r\n");

        assertThat(normalized(wire)).isEqualTo(processed("r1", "\"1\"", CLOSE));
    }

    private static String get(String target, String extraHeaders) {
        return "GET " + target + " HTTP/1.1\r\n" + HOST + extraHeaders + "\r\n";
    }

    private static String processed(String requestId, String userIdJson, String connection) {
        return answer("HTTP/1.1 200 OK", "{\"agent_id\":\"A1\",\"request_id\":\"" + requestId + "\",\"user_id\":"
                + userIdJson + ",\"timestamp\":*}", LOAD[0], LOAD[1], LOAD[2], JSON, connection)
                .replaceFirst("content-length: \\d+", "content-length: *");
    }

    /** The wire with load figures, timestamps and the lengths of 200 answers as "*". */
    private static String normalized(String wire) {
        return wire.replaceAll("(X-Agent-\\w+): [0-9.]+", "$1: *")
                .replaceAll("\"timestamp\":[0-9.]+", "\"timestamp\":*")
                .replaceAll("HTTP/1.1 200 OK\r\ncontent-length: \\d+", "HTTP/1.1 200 OK\r\ncontent-length: *");
    }

    /** Writes {@code request} one byte per char and reads until the agent closes, one char per byte. */
    private String talk(String request) {
        return Wire.talk(agent.port(), request, StandardCharsets.ISO_8859_1);
    }
}
