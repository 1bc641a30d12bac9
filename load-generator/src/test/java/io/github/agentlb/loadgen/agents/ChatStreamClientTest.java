package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.ChatShape;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.agent.llm.LlmShape;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("e2e")
class ChatStreamClientTest {

    private static final String BODY = new Conversations(3, 2, 1, 1).requestBody(0, 1);

    @Test
    void anAnswerIsASuccessFromItsAgentOrATimeoutOrAnErrorWithItsStatus() {
        RequestOutcome ok = new ChatStreamClient.Answer(200, 5_000, 9_000, "A2", null, null, null).outcome("r1", 3, 5_000);
        assertEquals(RequestOutcome.success("r1", 3, "A2", 200, 5_000), ok);
        assertEquals("?", new ChatStreamClient.Answer(200, 5, 9, null, null, null, null).outcome("r1", 3, 9).agentId());
        assertEquals(RequestOutcome.timeout("r2", 4, 7_000),
                new ChatStreamClient.Answer(0, -1, 7_000, null, null, "timeout after 7 ms", null).outcome("r2", 4, -1));
        assertEquals(RequestOutcome.error("r3", 5, 503, 0),
                new ChatStreamClient.Answer(503, -1, -2, null, null, "status 503", null).outcome("r3", 5, -1));
    }

    @Test
    void agentIdComesFromTheChunkId() {
        assertEquals("A2", ChatStreamClient.agentOf("{\"id\":\"chatcmpl-A2-17\",\"object\":\"chat.completion.chunk\"}"));
        assertNull(ChatStreamClient.agentOf("{\"id\":\"x\"}"));
        assertNull(ChatStreamClient.agentOf("not json"));
    }

    @Test
    void readsAStreamedAnswerToItsEndWithItsAgentAndSession() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A3").port(0).seed(5)
                .chat(new ChatShape(1, 2_000, 4)).llm(LlmShape.custom().mintSessions(true).build()).build())) {
            ChatStreamClient client = new ChatStreamClient(Duration.ofSeconds(10));
            URI uri = URI.create(agent.baseUrl() + "/v1/chat/completions");

            ChatStreamClient.Answer answer = client.send(uri, BODY, Map.of());

            assertTrue(answer.ok(), answer.error());
            assertEquals(200, answer.status());
            assertEquals("A3", answer.agentId());
            assertNotNull(answer.sessionId());
            assertTrue(answer.firstTokenNanos() >= 0 && answer.firstTokenNanos() <= answer.totalNanos(), answer.toString());
            assertTrue(client.send(uri, BODY, Map.of(ChatStreamClient.SESSION_HEADER, answer.sessionId())).ok());
            ChatStreamClient.Answer unknown = client.send(uri, BODY, Map.of(ChatStreamClient.SESSION_HEADER, "0123"));
            assertEquals(404, unknown.status());
            assertEquals("status 404", unknown.error());
        }
    }

    @Test
    void anAnswerLaterThanTheTimeoutIsATimeout() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A1").port(0)
                .chat(new ChatShape(30_000, 50, 4)).build())) {
            ChatStreamClient.Answer answer = new ChatStreamClient(Duration.ofMillis(300))
                    .send(URI.create(agent.baseUrl() + "/v1/chat/completions"), BODY, Map.of());

            assertTrue(answer.timedOut(), answer.toString());
            assertEquals(-1, answer.firstTokenNanos());
        }
    }
}
