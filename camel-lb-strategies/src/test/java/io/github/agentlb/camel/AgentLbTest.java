package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AgentLbTest {

    /**
     * A key is one header whose value, without white space (no-break spaces too) and the quotes of
     * a structured-field string, is not empty: agents that read the first of two headers and those
     * that read the last would not agree on which key a repeat carries.
     */
    @Test
    void anIdempotencyKeyIsOneHeaderWithSomethingInIt() {
        assertThat(AgentLb.isIdempotencyKey("k-1")).isTrue();
        assertThat(AgentLb.isIdempotencyKey("\"8e03978e-40d5\"")).isTrue();
        assertThat(AgentLb.isIdempotencyKey(List.of("k-1"))).isTrue();
        assertThat(AgentLb.isIdempotencyKey(null)).isFalse();
        assertThat(AgentLb.isIdempotencyKey("")).isFalse();
        assertThat(AgentLb.isIdempotencyKey(" \t")).isFalse();
        assertThat(AgentLb.isIdempotencyKey("\u00a0")).as("a no-break space").isFalse();
        assertThat(AgentLb.isIdempotencyKey("\"\"")).as("an empty structured-field string").isFalse();
        assertThat(AgentLb.isIdempotencyKey(" \" \" ")).isFalse();
        assertThat(AgentLb.isIdempotencyKey(List.of())).isFalse();
        assertThat(AgentLb.isIdempotencyKey(List.of("", ""))).as("two empty headers").isFalse();
        assertThat(AgentLb.isIdempotencyKey(List.of("a", "b"))).as("two keys: which one?").isFalse();
        assertThat(AgentLb.isIdempotencyKey(List.of("a", "a"))).as("two headers, even alike").isFalse();
    }

    /**
     * HTTP servers hand a header's bytes over one char each (ISO-8859-1): a space a client wrote in
     * UTF-8 arrives as two chars, and is white space all the same; a key whose bytes are other
     * UTF-8 or none is a key.
     */
    @Test
    void aKeyOfSpacesWrittenInUtf8IsNoKey() {
        assertThat(AgentLb.isIdempotencyKey("\u00c2\u00a0")).as("U+00A0 in UTF-8").isFalse();
        assertThat(AgentLb.isIdempotencyKey("\u00e3\u0080\u0080")).as("U+3000 in UTF-8").isFalse();
        assertThat(AgentLb.isIdempotencyKey(" \u00e2\u0080\u0083\t\u00c2\u00a0")).as("U+2003 and U+00A0, spaced").isFalse();
        assertThat(AgentLb.isIdempotencyKey("\"\u00c2\u00a0\"")).as("quoted").isFalse();
        assertThat(AgentLb.isIdempotencyKey("\u00c3\u00a9")).as("é in UTF-8").isTrue();
        assertThat(AgentLb.isIdempotencyKey("\u00c2")).as("a byte that is no UTF-8 alone").isTrue();
        assertThat(AgentLb.isIdempotencyKey("k\u00c2\u00a0")).isTrue();
        // Unicode's other white space and the zero-width ones: U+0085 (as UTF-8 and as its one byte), U+FEFF, U+200B.
        assertThat(AgentLb.isIdempotencyKey("\u00c2\u0085")).as("U+0085 in UTF-8").isFalse();
        assertThat(AgentLb.isIdempotencyKey("\u0085")).as("its one byte").isFalse();
        assertThat(AgentLb.isIdempotencyKey("\u00ef\u00bb\u00bf")).as("U+FEFF in UTF-8").isFalse();
        assertThat(AgentLb.isIdempotencyKey("\u00e2\u0080\u008b")).as("U+200B in UTF-8").isFalse();
    }
}
