package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The knobs that name a header as it is (the session and priority headers) take a header name only
 * (an RFC 9110 token): a name with a space or a separator could never match a request's header, so
 * it is refused when set, naming the knob (the tenant header too: {@code FlowControlTest}). The key
 * headers are read through Camel's header expression, whose name may hold the simple language
 * ({@code user-${header.tenant}}).
 */
class HeaderNameKnobsTest {

    @Test
    void aHeaderNameThatCanMatchNoHeaderIsRefusedWhenSet() {
        ConsistentHashLB lb = new ConsistentHashLB();
        assertThatThrownBy(() -> lb.setPriorityHeader("X-Priority:")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("priorityHeader must be a header name (RFC 9110 token), was 'X-Priority:'");
        assertThatThrownBy(() -> lb.setSessionHeader("Mcp Session Id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sessionHeader must be a header name (RFC 9110 token), was 'Mcp Session Id'");
        lb.setPriorityHeader("X-Priority");
        lb.setSessionHeader("Mcp-Session-Id");
        assertThat(lb.getPriorityHeader()).isEqualTo("X-Priority");
        assertThat(lb.getSessionHeader()).isEqualTo("Mcp-Session-Id");
    }
}
