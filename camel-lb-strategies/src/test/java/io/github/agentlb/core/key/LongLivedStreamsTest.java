package io.github.agentlb.core.key;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which requests open a long-lived stream: MCP's legacy session GET and a trusted subscriptions/listen. */
class LongLivedStreamsTest {

    @ParameterizedTest(name = "{0} session={1} method={2} version={3}: {4}")
    @CsvSource(nullValues = "-", value = {
            "GET,  s-1, -,                    -,          true",
            "GET,  s-1, -,                    2025-11-25, true",
            "GET,  -,   -,                    -,          false",
            "POST, s-1, -,                    2025-11-25, false",
            "POST, -,   subscriptions/listen, 2026-07-28, true",
            "POST, -,   subscriptions/listen, 2027-01-01, true",
            "POST, -,   subscriptions/listen, 2025-11-25, false",
            "POST, -,   subscriptions/listen, -,          false",
            "POST, -,   subscriptions/listen, draft,      false",
            "POST, -,   tools/call,           2026-07-28, false",
            "-,    -,   subscriptions/listen, 2026-07-28, true"})
    void opens(String httpMethod, String sessionId, String mcpMethod, String version, boolean opens) {
        assertThat(LongLivedStreams.opens(httpMethod, sessionId, mcpMethod, version)).isEqualTo(opens);
    }
}
