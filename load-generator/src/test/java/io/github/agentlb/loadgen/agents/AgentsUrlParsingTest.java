package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code --url} mode's reading of canned Server-Sent Events. */
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
}
