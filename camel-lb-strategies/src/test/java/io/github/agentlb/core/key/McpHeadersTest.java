package io.github.agentlb.core.key;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import org.junit.jupiter.api.Test;

/** {@link McpHeaders} against the examples of the MCP specification, revision 2026-07-28. */
class McpHeadersTest {

    @Test
    void theSpecificationsEncodingExamplesDecodeToTheirOriginalValues() {
        // "Value Encoding", encoding examples table, streamable-http.mdx (2026-07-28).
        assertThat(McpHeaders.decode("us-west1")).isEqualTo("us-west1");
        assertThat(McpHeaders.decode("=?base64?SGVsbG8sIOS4lueVjA==?=")).isEqualTo("Hello, 世界");
        assertThat(McpHeaders.decode("=?base64?IHBhZGRlZCA=?=")).isEqualTo(" padded ");
        assertThat(McpHeaders.decode("=?base64?bGluZTEKbGluZTI=?=")).isEqualTo("line1\nline2");
        assertThat(McpHeaders.decode("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")).isEqualTo("=?base64?literal?=");
    }

    @Test
    void paddingIsOptionalAndBadEncodingsGiveNoValue() {
        assertThat(McpHeaders.decode("=?base64?SGVsbG8sIOS4lueVjA?=")).isEqualTo("Hello, 世界");
        assertThat(McpHeaders.decode("=?base64??=")).isNull();                 // the empty value
        assertThat(McpHeaders.decode("=?base64?not base64!?=")).isNull();
        assertThat(McpHeaders.decode("=?base64?/w==?=")).isNull();             // 0xFF: not UTF-8
        assertThat(McpHeaders.decode("=?BASE64?aGk=?=")).isEqualTo("=?BASE64?aGk=?="); // markers are case-sensitive
        assertThat(McpHeaders.decode("=?base64?")).isEqualTo("=?base64?");     // no end marker: plain
        assertThat(McpHeaders.decode("=?base64?=")).isEqualTo("=?base64?=");   // markers overlap: plain
    }

    @Test
    void plainValuesMustBeVisibleAsciiSpaceOrTab() {
        assertThat(McpHeaders.decode("file:///projects/myapp/config.json")).isEqualTo("file:///projects/myapp/config.json");
        assertThat(McpHeaders.decode("a b\tc")).isEqualTo("a b\tc");
        assertThat(McpHeaders.decode("Hello, 世界")).isNull();
        assertThat(McpHeaders.decode("line1\nline2")).isNull();
        assertThat(McpHeaders.decode("")).isNull();
        assertThat(McpHeaders.decode(null)).isNull();
    }

    @Test
    void onlyRevisionsFromTheFirstValidatedOneAreTrustedComparedAsDates() {
        assertThat(McpHeaders.mirrorsTrusted("2026-07-28")).isTrue();
        assertThat(McpHeaders.mirrorsTrusted(" 2026-07-28 ")).isTrue();
        assertThat(McpHeaders.mirrorsTrusted("2026-07-29")).isTrue();
        assertThat(McpHeaders.mirrorsTrusted("2027-01-05")).isTrue();
        assertThat(McpHeaders.mirrorsTrusted("2026-07-27")).isFalse();
        assertThat(McpHeaders.mirrorsTrusted("2025-11-25")).isFalse();
        assertThat(McpHeaders.mirrorsTrusted("2025-03-26")).isFalse();
        assertThat(McpHeaders.mirrorsTrusted(null)).isFalse();
        assertThat(McpHeaders.mirrorsTrusted("")).isFalse();
        assertThat(McpHeaders.mirrorsTrusted("draft")).isFalse();
        assertThat(McpHeaders.mirrorsTrusted("2026-7-28")).isFalse();
        assertThat(McpHeaders.mirrorsTrusted("2026-02-30")).isFalse();
        assertThat(McpHeaders.mirrorsTrusted("2026-07-28T00:00")).isFalse();
        assertThat(McpHeaders.mirrorsTrusted("２０２６-07-28")).isFalse();   // full-width digits
        assertThat(McpHeaders.mirrorsTrusted("+2026-07-28")).isFalse();
        assertThat(McpHeaders.dateOf("2026-07-28")).isEqualTo(LocalDate.of(2026, 7, 28));
    }

    @Test
    void aParamHeaderIsNamedAfterItsXMcpHeader() {
        assertThat(McpHeaders.paramHeader("Region")).isEqualTo("Mcp-Param-Region");
    }
}
