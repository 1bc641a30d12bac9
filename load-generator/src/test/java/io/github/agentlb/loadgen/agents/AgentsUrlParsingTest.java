package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code --url} mode's reading of canned Server-Sent Events and its figures from the answers. */
class AgentsUrlParsingTest {

    /** A stream as the stub agent (and OpenAI) sends it with {@code stream_options.include_usage}. */
    private static final String STREAM = """
            data: {"id":"chatcmpl-A3-12","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"tok0"}}],"usage":null}

            data: {"id":"chatcmpl-A3-12","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" tok1"},"finish_reason":"length"}],"usage":null}

            data: {"id":"chatcmpl-A3-12","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1040,"completion_tokens":2,"total_tokens":1042,"prompt_tokens_details":{"cached_tokens":960}}}

            data: [DONE]

            """;

    @Test
    void aCannedStreamGivesItsAgentItsUsageAndItsEnd() {
        ChatStreamClient.SseLines lines = new ChatStreamClient(Duration.ofSeconds(1), () -> 5L).new SseLines(0);
        STREAM.lines().forEach(lines::onNext);
        lines.onComplete();

        ChatStreamClient.Answer answer = lines.answer(200, "sid", null);

        assertEquals("A3", answer.agentId());
        assertEquals(new ChatStreamClient.Usage(1040, 960), answer.usage());
        assertEquals(5L, answer.firstTokenNanos());
        assertTrue(answer.ok());
    }

    @Test
    void aStreamWithoutUsageHasNone() {
        ChatStreamClient.SseLines lines = new ChatStreamClient(Duration.ofSeconds(1)).new SseLines(0);
        STREAM.lines().filter(l -> !l.contains("\"usage\":{")).forEach(lines::onNext);

        assertNull(lines.answer(200, null, null).usage());
        assertEquals("A3", lines.answer(200, null, null).agentId());
    }

    @Test
    void usageOfAChunk() {
        assertEquals(new ChatStreamClient.Usage(53, 36), ChatStreamClient.usageOf(
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":53,\"prompt_tokens_details\":{\"cached_tokens\":36}}}"));
        assertEquals(new ChatStreamClient.Usage(53, 0),
                ChatStreamClient.usageOf("{\"choices\":[],\"usage\":{\"prompt_tokens\":53}}"), "no details: 0 cached");
        assertNull(ChatStreamClient.usageOf("{\"choices\":[{}],\"usage\":null}"));
        assertNull(ChatStreamClient.usageOf("{\"usage\":{\"completion_tokens\":2}}"));
        assertNull(ChatStreamClient.usageOf("not json"));
        assertEquals("A12", ChatStreamClient.agentOf("{\"id\":\"chatcmpl-A12-0\"}"));
        assertEquals("agent-b", ChatStreamClient.agentOf("{\"id\":\"chatcmpl-agent-b-7\"}"));
    }

    @Test
    void theRequestsAskForUsage() throws Exception {
        String original = Conversations.of(3, 2, 1, 1).requestBody(2, 1);
        String body = AgentsUrlRun.withUsage(original);

        var json = new ObjectMapper().readTree(body);
        assertTrue(json.path("stream_options").path("include_usage").asBoolean());
        assertTrue(json.path("stream").asBoolean());
        assertEquals(new ObjectMapper().readTree(original).path("messages"), json.path("messages"));
    }

    @Test
    void figuresFromTheAnswers() {
        List<Turn> turns = new ArrayList<>();
        // Conversation 0 (plain): two turns on A1, usage 100/0 then 200/150.
        turns.add(new Turn(0, 0, false, 0, ok("A1", 10, new ChatStreamClient.Usage(100, 0))));
        turns.add(new Turn(0, 1, false, 0, ok("A2", 20, new ChatStreamClient.Usage(200, 150))));
        // Conversation 2 (MCP): first on A2, then A2 (sticky), then a 404 from another agent.
        turns.add(new Turn(2, 0, true, 0, ok("A2", 30, new ChatStreamClient.Usage(100, 50))));
        turns.add(new Turn(2, 1, true, 0, ok("A2", 40, null)));
        turns.add(new Turn(2, 2, true, 0, new ChatStreamClient.Answer(404, -1, 1_000_000, null, null, "status 404")));

        AgentsUrlResult r = AgentsUrlResult.of("nginx", "http://127.0.0.1:1", turns, 1_000_000_000L);

        assertEquals(5, r.requests());
        assertEquals(1, r.errors());
        assertEquals(1L, r.errorStatuses().get(404));
        assertEquals(400, r.promptTokens());
        assertEquals(200, r.cachedTokens());
        assertEquals(3, r.withUsage());
        assertEquals(0.5, r.hitRate(), 1e-9);
        assertEquals(2, r.mcpLaterTurns());
        assertEquals(1, r.stickyTurns());
        assertEquals(0.5, r.stickiness(), 1e-9);
        assertEquals(1L, r.answered().get("A1"));
        assertEquals(3L, r.answered().get("A2"));
        assertEquals(20.0, r.ttftP50Ms(), 0.1);
        assertEquals("1 (404 x 1)", AgentsUrlRun.errors(r));
        assertTrue(AgentsUrlRun.row(r).startsWith("| nginx | 5 | 1 (404 x 1) | 20.0 |"), AgentsUrlRun.row(r));
    }

    private static ChatStreamClient.Answer ok(String agent, long ttftMs, ChatStreamClient.Usage usage) {
        return new ChatStreamClient.Answer(200, ttftMs * 1_000_000, (ttftMs + 20) * 1_000_000, agent, null, null,
                usage);
    }
}
