package io.github.agentlb.core.key;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which requests open a long-lived stream: MCP's legacy session GET, a GET that asks for an event
 * stream (MCP 2024-11-05's HTTP+SSE transport, a browser's EventSource) and a trusted subscriptions/listen.
 */
class LongLivedStreamsTest {

    @ParameterizedTest(name = "{0} session={1} method={2} version={3} accept={4}: {5}")
    @CsvSource(nullValues = "-", value = {
            "GET,  s-1, -,                    -, -,          true",
            "GET,  s-1, -,                    2025-11-25, -, true",
            "GET,  -,   -,                    -, -,          false",
            "POST, s-1, -,                    2025-11-25, -, false",
            "POST, -,   subscriptions/listen, 2026-07-28, -, true",
            "POST, -,   subscriptions/listen, 2027-01-01, -, true",
            "POST, -,   subscriptions/listen, 2025-11-25, -, false",
            "POST, -,   subscriptions/listen, -, -,          false",
            "POST, -,   subscriptions/listen, draft, -,      false",
            "POST, -,   tools/call,           2026-07-28, -, false",
            "-,    -,   subscriptions/listen, 2026-07-28, -, true",
            "GET,  -,   -,                    -,          text/event-stream, true",
            "GET,  -,   -,                    -,          'application/json, text/event-stream', true",
            "GET,  -,   -,                    -,          TEXT/EVENT-STREAM, true",
            "GET,  -,   -,                    -,          application/json, false",
            "GET,  -,   -,                    -,          */*, false",
            "POST, -,   -,                    -,          text/event-stream, false"})
    void opens(String httpMethod, String sessionId, String mcpMethod, String version, String accept, boolean opens) {
        assertThat(LongLivedStreams.opens(httpMethod, sessionId, mcpMethod, version, accept)).isEqualTo(opens);
    }
}
