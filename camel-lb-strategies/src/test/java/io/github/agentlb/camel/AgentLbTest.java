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
}
