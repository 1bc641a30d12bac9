package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Requests {@link java.net.http.HttpClient} will not send, written on a socket as a client would:
 * malformed targets get a JSON 400 (netty-http's header mapping used to close the connection
 * without a word), TRACE and OPTIONS the route's JSON 405.
 */
@Tag("e2e")
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentMalformedRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    @AutoClose
    private StubAgent agent;

    @BeforeAll
    void start() throws Exception {
        agent = StubAgent.start(AgentConfig.custom().agentId("A1").host("127.0.0.1").port(0).delayMs(0, 0).build());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/process/r1?user_id=%zz", "/process/r%zz", "/process/r1?user_id=50%",
        "/process/r1?user_id=a|b", "/health%"})
    void aMalformedTargetIsA400WithAJsonError(String target) throws Exception {
        String answer = send("GET " + target);

        assertThat(statusLine(answer)).isEqualTo("HTTP/1.1 400 Bad Request");
        JsonNode body = body(answer);
        assertThat(body.get("error").asText()).isEqualTo("bad request");
        assertThat(body.get("detail").asText()).startsWith("malformed request target: ").contains(target);
        assertThat(body.size()).isEqualTo(2);
        assertThat(agent.requestsServed()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"TRACE", "OPTIONS"})
    void traceAndOptionsAre405LikeOtherMethods(String method) throws Exception {
        String answer = send(method + " /process/r1");

        assertThat(statusLine(answer)).isEqualTo("HTTP/1.1 405 Method Not Allowed");
        assertThat(answer.toLowerCase()).contains("\r\nallow: get, post\r\n");
        assertThat(body(answer).get("detail").asText()).isEqualTo(method + " is not allowed, use GET, POST");
    }

    @Test
    void anEscapedSlashIsDecodedBeforeRoutingSoTheSegmentsDoNotMatch() throws Exception {
        String answer = send("GET /process/a%2Fb?user_id=1");

        assertThat(statusLine(answer)).isEqualTo("HTTP/1.1 404 Not Found");
        assertThat(body(answer).get("detail").asText()).isEqualTo("no route for /process/a/b");
    }

    /** Writes "{requestLine} HTTP/1.1" with Host and Connection: close; reads until the agent closes. */
    private String send(String requestLine) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", agent.port()), 5_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write((requestLine + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            in.transferTo(bytes);
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    private static String statusLine(String answer) {
        assertThat(answer).as("an answer before the connection closed").isNotEmpty();
        return answer.substring(0, answer.indexOf("\r\n"));
    }

    private static JsonNode body(String answer) throws IOException {
        return JSON.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
    }
}
