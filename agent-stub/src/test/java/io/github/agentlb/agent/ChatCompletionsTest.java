package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stub agent as an LLM-shaped reference: chat completions, JSON or streamed, and callers that leave. */
@Tag("e2e")
@Timeout(30)
class ChatCompletionsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private StubAgent agent;

    private void start(ChatShape shape) throws Exception {
        agent = StubAgent.start(AgentConfig.custom().agentId("L1").host("127.0.0.1").port(0).chat(shape).build());
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
    }

    private static String post(String body, String extraHeaders) {
        return "POST /v1/chat/completions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n" + extraHeaders + "\r\n" + body;
    }

    @Test
    void aJsonAnswerComesWholeAfterItsTokens() throws Exception {
        start(new ChatShape(0, 1000, 32));

        String wire = talk(post("{\"model\":\"m1\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                "Connection: close\r\n"));

        assertThat(wire).startsWith("HTTP/1.1 200 OK").contains("content-type: application/json")
                .contains("X-Agent-Utilization: ");
        JsonNode answer = JSON.readTree(wire.substring(wire.indexOf("\r\n\r\n") + 4));
        assertThat(answer.path("object").asText()).isEqualTo("chat.completion");
        assertThat(answer.path("model").asText()).isEqualTo("m1");
        assertThat(answer.path("choices").get(0).path("message").path("content").asText()).isEqualTo("tok0 tok1 tok2 ");
        assertThat(agent.chat().callsCompleted()).isEqualTo(1);
    }

    /** OpenAI's newer name of the limit, what openai-java's {@code maxCompletionTokens()} sends (a trial's finding). */
    @Test
    void maxCompletionTokensLimitsTheAnswerAsMaxTokensDoes() throws Exception {
        start(new ChatShape(0, 1000, 32));

        String wire = talk(post("{\"model\":\"m1\",\"max_completion_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                "Connection: close\r\n"));

        JsonNode answer = JSON.readTree(wire.substring(wire.indexOf("\r\n\r\n") + 4));
        assertThat(answer.path("choices").get(0).path("message").path("content").asText()).isEqualTo("tok0 tok1 ");
    }

    @Test
    void aStreamedAnswerIsOneEventPerTokenThenDoneAndTheConnectionStaysUsable() throws Exception {
        start(new ChatShape(0, 1000, 32));

        String wire = talk(post("{\"stream\":true,\"max_tokens\":3,\"messages\":[]}", "")
                + "GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");

        assertThat(wire).startsWith("HTTP/1.1 200 OK").contains("content-type: text/event-stream")
                .contains("transfer-encoding: chunked");
        List<String> events = wire.lines().filter(l -> l.startsWith("data: ")).toList();
        assertThat(events).hasSize(4);
        assertThat(JSON.readTree(events.get(0).substring(6)).path("choices").get(0).path("delta").path("content").asText())
                .isEqualTo("tok0 ");
        assertThat(JSON.readTree(events.get(2).substring(6)).path("choices").get(0).path("finish_reason").asText())
                .isEqualTo("stop");
        assertThat(events.get(3)).isEqualTo("data: [DONE]");
        assertThat(wire).contains("0\r\n\r\nHTTP/1.1 200 OK").endsWith("{\"status\":\"UP\",\"agent_id\":\"L1\"}");
    }

    @Test
    void aStreamedAnswerToConnectionCloseEndsWithTheClose() throws Exception {
        start(new ChatShape(0, 1000, 32));

        String wire = talk(post("{\"stream\":true,\"max_tokens\":2,\"messages\":[]}", "Connection: close\r\n"));

        assertThat(wire).startsWith("HTTP/1.1 200 OK").contains("connection: close").endsWith("0\r\n\r\n");
    }

    @Test
    void aCallerThatLeavesEndsTheAnswer() throws Exception {
        start(new ChatShape(0, 20, 32));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", agent.port()), 5_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(post("{\"stream\":true,\"max_tokens\":1000,\"messages\":[]}", "")
                    .getBytes(StandardCharsets.UTF_8));
            Wire.readUntil(socket.getInputStream(), "data: ");
        }
        for (int i = 0; i < 100 && agent.chat().callsCancelled() == 0; i++) {
            Thread.sleep(50);
        }
        assertThat(agent.chat().callsCancelled()).isEqualTo(1);
        assertThat(agent.chat().callsCompleted()).isZero();
    }

    @Test
    void aBodyThatIsNotAChatRequestIs400AndAnotherMethod405() throws Exception {
        start(ChatShape.DEFAULTS);

        assertThat(talk(post("{not json", "Connection: close\r\n"))).startsWith("HTTP/1.1 400 Bad Request")
                .contains("\"error\":\"bad request\"");
        assertThat(talk("GET /v1/chat/completions HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 405").contains("Allow: POST");
    }

    @Test
    void badKnobsNameTheFieldAndTheValue() {
        assertThatThrownBy(() -> new ChatShape(-1, 1, 1)).hasMessage("firstTokenMs must be in 0..3600000, was -1");
        assertThatThrownBy(() -> new ChatShape(0, 0, 1)).hasMessage("tokensPerSecond must be > 0 and <= 100000, was 0.0");
        assertThatThrownBy(() -> new ChatShape(0, 1, 0)).hasMessage("answerTokens must be in 1..100000, was 0");
        AgentSettings settings = new AgentSettings();
        settings.setTokensPerSecond(-2);
        assertThatThrownBy(settings::toConfig).hasMessageStartingWith("TOKENS_PER_SECOND: tokensPerSecond must be");
    }

    private String talk(String request) {
        return Wire.talk(agent.port(), request);
    }

}
