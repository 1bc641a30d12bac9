package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The knobs that name a header as it is (the session and priority headers) take a header name only
 * (an RFC 9110 token): a name with a space or a separator could never match a request's header, so
 * it is refused when set, naming the knob. The key and tenant headers are read through Camel's
 * header expression, whose name may hold the simple language ({@code user-${header.tenant}}), but
 * not be an expression of its own.
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

    /**
     * The key header, like the tenant header, may be a name built with the simple language, but not
     * an expression of its own ({@code ${header.user}} would read the header named by the user's
     * value: every key missing, no affinity), nor a name that can match no header.
     */
    @Test
    void aKeyHeaderMustNameAHeader() {
        ConsistentHashLB lb = new ConsistentHashLB();
        assertThatThrownBy(() -> lb.setKeyHeader("${header.user}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keyHeader must name a header, not be an expression of its own (for a value computed from"
                        + " the request, its expression knob), was '${header.user}'");
        assertThatThrownBy(() -> lb.setKeyHeader("X User")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keyHeader must be a header name (RFC 9110 token), was 'X User'");
        assertThatThrownBy(() -> lb.setKeyHeader("x y-${header.t}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keyHeader must be a header name (RFC 9110 token), was 'x y-${header.t}'");
        lb.setKeyHeader("user-${header.tenant}");
        assertThat(lb.getKeyHeader()).isEqualTo("user-${header.tenant}");
    }
}
