package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Long-lived streams (MCP's legacy session {@code GET}, a 2026-07-28 {@code subscriptions/listen})
 * are counted apart from the requests in flight: an agent holding open streams does not look
 * loaded to {@code lr}, and the counts return to 0 when the streams end.
 */
class LongLivedStreamsApartTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static void send(AgentLoadBalancerSupport balancer, String method, String... headers) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, method);
        for (int i = 0; i < headers.length; i += 2) {
            exchange.getIn().setHeader(headers[i], headers[i + 1]);
        }
        balancer.process(exchange, sync -> { });
    }

    /** {@code balancer} started over {@code child} as agent {@code A}. */
    private static <T extends AgentLoadBalancerSupport> T started(T balancer, ScriptedChild child) {
        balancer.setCamelContext(CAMEL.get());
        balancer.addAgent("A", child, 1.0);
        balancer.start();
        return balancer;
    }

    @Test
    void openStreamsAreNoLoadForLeastRequestAndEndAsTheyClose() {
        ScriptedChild a = ScriptedChild.ok("A");
        ScriptedChild b = ScriptedChild.ok("B");
        a.hold();
        b.hold();
        LeastRequestLB balancer = started(new LeastRequestLB(), a);
        for (int i = 0; i < 4; i++) {
            send(balancer, "GET", "Mcp-Session-Id", "s-" + i, "Accept", "text/event-stream");
        }
        assertThat(balancer.balancerState().streams("A")).isEqualTo(4);
        assertThat(balancer.balancerState().inFlight("A")).isZero();

        balancer.addAgent("B", b, 1.0);
        for (int i = 0; i < 4; i++) {
            send(balancer, "POST", "Mcp-Session-Id", "s-" + i);
        }
        // Counted as load, A's 4 streams would have sent all 4 requests to B.
        assertThat(a.requests()).hasSize(4 + 2);
        assertThat(b.requests()).hasSize(2);
        assertThat(balancer.balancerState().inFlight("A")).isEqualTo(2);
        assertThat(balancer.balancerState().inFlight("B")).isEqualTo(2);

        send(balancer, "POST", "Mcp-Method", "subscriptions/listen", "MCP-Protocol-Version", "2026-07-28");
        send(balancer, "POST", "Mcp-Method", "subscriptions/listen", "MCP-Protocol-Version", "2025-11-25");
        BalancerState state = balancer.balancerState();
        assertThat(state.streams("A") + state.streams("B")).isEqualTo(5);
        assertThat(state.inFlight("A") + state.inFlight("B")).isEqualTo(5);

        a.release();
        b.release();
        state = balancer.balancerState();
        assertThat(new int[] {state.inFlight("A"), state.inFlight("B"), state.streams("A"), state.streams("B")})
                .containsOnly(0);
        balancer.stop();
    }

    /**
     * A GET that asks for an event stream without a session header (MCP 2024-11-05's HTTP+SSE
     * transport opens its session so, {@code GET /sse}; a browser's EventSource) is a stream too;
     * a GET for anything else is a request in flight.
     */
    @Test
    void aGetThatAsksForAnEventStreamIsAStreamWithoutASession() {
        ScriptedChild a = ScriptedChild.ok("A");
        a.hold();
        LeastRequestLB balancer = started(new LeastRequestLB(), a);
        send(balancer, "GET", "Accept", "text/event-stream");
        send(balancer, "GET", "Accept", "application/json");
        Exchange repeated = new DefaultExchange(CAMEL.get()); // camel-netty-http maps a repeated header to a list
        repeated.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        repeated.getIn().setHeader("Accept", java.util.List.of("application/json", "text/event-stream"));
        balancer.process(repeated, sync -> { });
        assertThat(balancer.balancerState().streams("A")).isEqualTo(2);
        assertThat(balancer.balancerState().inFlight("A")).isEqualTo(1);
        // ?accept=text/event-stream, which camel-netty-http's consumer also makes a header: the agent is asked for no stream.
        send(balancer, "GET", "Accept", "text/event-stream", Exchange.HTTP_RAW_QUERY, "accept=text/event-stream");
        send(balancer, "GET", "Mcp-Session-Id", "s-9", Exchange.HTTP_RAW_QUERY, "x=1&Mcp-Session-Id=s-9");
        assertThat(balancer.balancerState().streams("A")).isEqualTo(2);
        assertThat(balancer.balancerState().inFlight("A")).isEqualTo(3);
        a.release();
        balancer.stop();
    }

    @Test
    void aDrainDoesNotWaitForOpenStreams() {
        ScriptedChild a = ScriptedChild.ok("A");
        ScriptedChild b = ScriptedChild.ok("B");
        a.hold();
        RoundRobinLB balancer = started(new RoundRobinLB(), a);
        send(balancer, "GET", "Mcp-Session-Id", "s-1");
        send(balancer, "GET", "Mcp-Session-Id", "s-2");
        balancer.addAgent("B", b, 1.0);
        assertThat(balancer.balancerState().streams("A")).isEqualTo(2);

        CompletableFuture<Void> drained = balancer.drainAgent("A");

        assertThat(drained).isDone();
        assertThat(balancer.balancerState().members()).containsExactly("B");
        assertThat(a.heldAnswers()).isEqualTo(2); // the streams run on until they end
        a.release();
        balancer.stop();
    }
}
