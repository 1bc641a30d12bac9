package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Whose {@code Accept} is an MCP client's for an event stream ({@link LegacyMcpStreams#acceptsEventStreams}):
 * a {@code POST}'s names {@code text/event-stream} as a media range of its own, not refused with
 * {@code q=0}; a {@code GET}'s may also be none, {@code text/*} or {@code *}{@code /*}.
 */
class McpAcceptTest {

    private static boolean post(String... accept) {
        return LegacyMcpStreams.acceptsEventStreams(List.of(accept), false);
    }

    private static boolean get(String... accept) {
        return LegacyMcpStreams.acceptsEventStreams(List.of(accept), true);
    }

    @Test
    void aPostNamesTheEventStreamAsARangeOfItsOwn() {
        assertThat(post("application/json, text/event-stream")).isTrue();
        assertThat(post("TEXT/Event-Stream")).isTrue();
        assertThat(post("application/json", "text/event-stream;q=0.5")).isTrue();
        assertThat(post(" text/event-stream ; charset=utf-8")).isTrue();
    }

    @Test
    void aPostThatRefusesOrOnlyMentionsTheEventStreamDoesNotName() {
        assertThat(post()).isFalse();
        assertThat(post("*/*")).isFalse();
        assertThat(post("text/*")).isFalse();
        assertThat(post("application/json")).isFalse();
        assertThat(post("text/event-stream;q=0")).isFalse();
        assertThat(post("text/event-stream; q=0.000")).isFalse();
        assertThat(post("text/event-streamx")).isFalse();
        assertThat(post("text/plain; a=\"text/event-stream\"")).isFalse();
    }

    @Test
    void aGetMayAlsoSendNoneOrAnyType() {
        assertThat(get()).isTrue();
        assertThat(get("*/*")).isTrue();
        assertThat(get("text/*")).isTrue();
        assertThat(get("application/json")).isFalse();
        assertThat(get("*/*;q=0")).isFalse();
    }
}
