package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.agent.llm.LlmModel;
import io.github.agentlb.agent.llm.LlmShape;
import io.github.agentlb.agent.llm.SessionIds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stub agent's LLM server model over HTTP: a conversation's second turn hits the prefix cache
 * and gets the shorter first-token delay the knobs give; a full queue answers 429; ORCA reports
 * only when asked; minted MCP sessions.
 */
@Tag("e2e")
@Timeout(30)
class LlmAgentTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SYSTEM = "You are a careful assistant who answers in one line. ".repeat(2);
    private StubAgent agent;

    private void start(ChatShape chat, LlmShape llm) throws Exception {
        agent = StubAgent.start(AgentConfig.custom().agentId("M1").host("127.0.0.1").port(0).seed(42)
                .chat(chat).llm(llm).build());
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
    }

    /** A chat body of alternating user and assistant turns after the system prompt. */
    private static String conversation(boolean stream, String... turns) {
        ObjectNode body = JSON.createObjectNode().put("model", "m").put("max_tokens", 2).put("stream", stream);
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", SYSTEM);
        for (int i = 0; i < turns.length; i++) {
            messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", turns[i]);
        }
        return body.toString();
    }

    private static String post(String body, String extraHeaders) {
        return "POST /v1/chat/completions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n" + extraHeaders + "\r\n" + body;
    }

    @Test
    void theSecondTurnHitsTheCacheAndItsFirstTokenComesSooner() throws Exception {
        // Block 16 chars: turn 1's canonical text is 145 chars = 9 blocks; turn 2's is 210 = 13 blocks,
        // of which turn 1's 9 are cached. First token = 10 ms + 3 ms per uncached block.
        start(new ChatShape(10, 1000, 32), LlmShape.custom().blockChars(16).cacheBlocks(100).uncachedBlockMs(3).build());

        String first = talk(post(conversation(false, "What is a prefix cache?"), "Connection: close\r\n"));
        assertThat(agent.llm().lastAdmission()).isEqualTo(new LlmModel.Admission(9, 0, 37_000_000L));
        String second = talk(post(conversation(false, "What is a prefix cache?", "A cache of prompt blocks.",
                "And why does it help?"), "Connection: close\r\nendpoint-load-metrics-format: TEXT\r\n"));

        assertThat(agent.llm().lastAdmission()).isEqualTo(new LlmModel.Admission(13, 9, 22_000_000L));
        assertThat(agent.llm().counters().cacheHitRate()).isEqualTo(9.0 / 22);
        assertThat(first).startsWith("HTTP/1.1 200 OK").contains("X-Agent-Utilization: ")
                .doesNotContain("endpoint-load-metrics");
        assertThat(second).startsWith("HTTP/1.1 200 OK").contains("X-Agent-Utilization: ")
                .contains("endpoint-load-metrics: TEXT named_metrics.kv_cache_usage_perc=0.13, "
                        + "named_metrics.num_requests_waiting=0.0, named_metrics.num_requests_running=1.0\r\n");
        // OpenAI's usage, 4 characters a token: 210 chars = 53 tokens, 9 cached blocks of 16 chars = 36.
        assertThat(JSON.readTree(second.substring(second.indexOf("\r\n\r\n") + 4)).path("usage").toString())
                .isEqualTo("{\"prompt_tokens\":53,\"completion_tokens\":2,\"total_tokens\":55,"
                        + "\"prompt_tokens_details\":{\"cached_tokens\":36}}");
    }

    @Test
    void aStreamThatAsksForUsageEndsWithAUsageChunk() throws Exception {
        start(new ChatShape(0, 1000, 32), LlmShape.custom().blockChars(16).cacheBlocks(100).build());
        String body = conversation(true, "What is a prefix cache?").replace("\"stream\":true",
                "\"stream\":true,\"stream_options\":{\"include_usage\":true}");

        String wire = talk(post(body, "Connection: close\r\n"));

        assertThat(wire).contains("\"choices\":[],\"usage\":{\"prompt_tokens\":37,\"completion_tokens\":2,"
                + "\"total_tokens\":39,\"prompt_tokens_details\":{\"cached_tokens\":0}}}").contains("data: [DONE]");
        assertThat(talk(post(conversation(true, "What is a prefix cache?"), "Connection: close\r\n")))
                .doesNotContain("usage");
    }

    @Test
    void aStreamedAnswerCarriesTheJsonReportInItsHead() throws Exception {
        start(new ChatShape(0, 1000, 32), LlmShape.custom().blockChars(16).cacheBlocks(100).build());

        String wire = talk(post(conversation(true, "What is a prefix cache?"), "endpoint-load-metrics-format: json\r\n")
                + "GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");

        assertThat(wire).startsWith("HTTP/1.1 200 OK").contains("content-type: text/event-stream")
                .contains("endpoint-load-metrics: JSON {\"named_metrics\":{\"kv_cache_usage_perc\":0.09,"
                        + "\"num_requests_waiting\":0.0,\"num_requests_running\":1.0}}\r\n")
                .contains("data: [DONE]");
    }

    @Test
    void aFullQueueAnswers429WithRetryAfterAndAJsonBody() throws Exception {
        start(new ChatShape(0, 20, 32), LlmShape.custom().maxRunning(1).maxQueue(0).build());
        try (Socket holder = holdTheSlot()) {
            String wire = talk(post(conversation(false, "hi"), "Connection: close\r\nendpoint-load-metrics-format: TEXT\r\n"));

            assertThat(wire).startsWith("HTTP/1.1 429 Too Many Requests").contains("Retry-After: 1\r\n")
                    .contains("content-type: application/json")
                    .contains("endpoint-load-metrics: TEXT named_metrics.kv_cache_usage_perc=0.0, "
                            + "named_metrics.num_requests_waiting=0.0, named_metrics.num_requests_running=1.0");
            assertThat(JSON.readTree(wire.substring(wire.indexOf("\r\n\r\n") + 4)).path("error").asText())
                    .isEqualTo("too many requests");
            assertThat(agent.llm().counters().refused()).isEqualTo(1);
        }
        awaitTrue(() -> agent.llm().running() == 0);
        assertThat(agent.chat().callsCancelled()).isEqualTo(1);
    }

    @Test
    void aQueuedRequestIsAnsweredWhenTheRunningOneLeaves() throws Exception {
        start(new ChatShape(0, 20, 32), LlmShape.custom().maxRunning(1).maxQueue(1).build());
        Socket holder = holdTheSlot();
        try (Socket queued = new Socket()) {
            queued.connect(new InetSocketAddress("127.0.0.1", agent.port()), 5_000);
            queued.setSoTimeout(10_000);
            queued.getOutputStream().write(post(conversation(false, "hi"), "Connection: close\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            awaitTrue(() -> agent.llm().waiting() == 1);

            holder.close();

            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            queued.getInputStream().transferTo(bytes);
            assertThat(bytes.toString(StandardCharsets.UTF_8)).startsWith("HTTP/1.1 200 OK").contains("tok0 tok1 ");
        }
        LlmModel.Counters counters = agent.llm().counters();
        assertThat(counters.maxWaiting()).isEqualTo(1);
        assertThat(counters.admitted()).isEqualTo(2);
    }

    @Test
    void mintedSessionsAreKnownAndUnknownOnesAre404() throws Exception {
        start(new ChatShape(0, 1000, 32), LlmShape.custom().mintSessions(true).build());
        String expected = new SessionIds(42).mint();

        String first = talk(post(conversation(false, "hi"), "Connection: close\r\n"));
        String again = talk(post(conversation(false, "hi"), "Connection: close\r\nMcp-Session-Id: " + expected + "\r\n"));
        String unknown = talk(post(conversation(false, "hi"), "Connection: close\r\nMcp-Session-Id: 0123abcd\r\n"));

        assertThat(first).startsWith("HTTP/1.1 200 OK").contains("Mcp-Session-Id: " + expected + "\r\n");
        assertThat(again).startsWith("HTTP/1.1 200 OK").doesNotContain("Mcp-Session-Id");
        assertThat(unknown).startsWith("HTTP/1.1 404 Not Found").contains("\"error\":\"not found\"")
                .contains("has no session 0123abcd");
    }

    @Test
    void withTheModelOffNoSessionIsMintedAndAnIdIsIgnored() throws Exception {
        start(new ChatShape(0, 1000, 32), LlmShape.DISABLED);

        String wire = talk(post(conversation(false, "hi"), "Connection: close\r\nMcp-Session-Id: 0123abcd\r\n"));

        assertThat(wire).startsWith("HTTP/1.1 200 OK").doesNotContain("Mcp-Session-Id").doesNotContain("endpoint-load");
        assertThat(agent.llm().counters().admitted()).isEqualTo(1);
    }

    /** A streamed request of 1000 tokens at 20/s: it holds a running slot until its socket closes. */
    private Socket holdTheSlot() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", agent.port()), 5_000);
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(post("{\"stream\":true,\"max_tokens\":1000,\"messages\":[]}", "")
                .getBytes(StandardCharsets.UTF_8));
        Wire.readUntil(socket.getInputStream(), "data: ");
        return socket;
    }

    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 200 && !condition.getAsBoolean(); i++) {
            Thread.sleep(25);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }

    private String talk(String request) {
        return Wire.talk(agent.port(), request);
    }

}
