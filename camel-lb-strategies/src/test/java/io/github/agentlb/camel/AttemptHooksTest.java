package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.orca.LoadReports;
import io.github.agentlb.core.session.LearnedSessions;
import io.github.agentlb.core.session.SessionIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hooks a streaming child finds on each attempt: what it asks at the answer's head is
 * answered from the balancer's state and learned sessions, for the agent of that attempt, without
 * a call to the balancer.
 */
class AttemptHooksTest {

    private static final String SECRET = "replicas share this secret";
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** The hooks each attempt carried, in order, and what they said when the attempt ran. */
    private final List<AttemptHooks> seen = new ArrayList<>();
    private final List<String> sealed = new ArrayList<>();

    private ScriptedChild agent(String id, Exception failure) {
        return ScriptedChild.answering(id, (attempt, now) -> {
            AttemptHooks hooks = attempt.getProperty(AttemptHooks.PROPERTY, AttemptHooks.class);
            seen.add(hooks);
            sealed.add(hooks.clientValue("mcp-session-id", id + "-s1"));
            if (failure != null) {
                throw failure;
            }
        });
    }

    private Exchange post(AgentLoadBalancerSupport balancer) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    @Test
    void eachAttemptCarriesHooksThatSealItsOwnAgentIntoSessionIds() {
        FixedOrderLB balancer = new FixedOrderLB("a", "b");
        balancer.setLearnedSessions(LearnedSessions.custom().secret(SECRET).build());
        ScriptedChild.started(balancer, CAMEL.get(), agent("a", new java.net.ConnectException("refused")), agent("b", null));

        Exchange exchange = post(balancer);

        assertThat(exchange.getException()).isNull();
        assertThat(seen).hasSize(2).doesNotContainNull();
        SessionIds ids = LearnedSessions.custom().secret(SECRET).build().ids();
        assertThat(ids.decode(sealed.get(0))).isEqualTo(new SessionIds.Sealed("a", "a-s1"));
        assertThat(ids.decode(sealed.get(1))).isEqualTo(new SessionIds.Sealed("b", "b-s1"));
        AttemptHooks hooks = seen.get(1);
        assertThat(hooks.clientValue("Content-Type", "text/event-stream")).isEqualTo("text/event-stream");
        assertThat(hooks.requestHeaders()).containsExactly(LoadReports.FORMAT_HEADER, "Mcp-Session-Id");
        assertThat(exchange.getProperty(AttemptHooks.PROPERTY)).as("not left on the exchange").isNull();
        assertThat(hooks.isBusy(429, null)).as("the balancer's answer rules").isTrue();
        assertThat(hooks.isBusy(200, null)).isFalse();
        assertThat(hooks.answerHead()).as("no hedging: the head may always go out").isTrue();
        assertThat(hooks.whenHedgeLost(() -> { })).isSameAs(AttemptHooks.NOTHING);
        assertThat(hooks.whenAgentDown(() -> { })).as("a deregistration").isNotNull();
    }

    @Test
    void withoutABalancerTheHooksHoldNothingBackRewriteNothingAndRegisterNothing() {
        AttemptHooks none = AttemptHooks.NONE;
        byte[] body = {1, 2};

        assertThat(none.rewritesJsonAnswer()).isFalse();
        assertThat(none.clientAnswer(body)).isSameAs(body);
        assertThat(none.requestBody()).isNull();
        assertThat(none.answerHead()).isTrue();
        assertThat(none.whenAgentDown(() -> { })).isSameAs(AttemptHooks.NOTHING);
        assertThat(none.whenHedgeLost(() -> { })).isSameAs(AttemptHooks.NOTHING);
    }

    @Test
    void withoutLearnedSessionsNoIdIsSealedAndOnlyTheReportAskIsTheBalancers() {
        FixedOrderLB balancer = ScriptedChild.started(new FixedOrderLB("a"), CAMEL.get(), agent("a", null));

        post(balancer);

        assertThat(sealed).containsExactly("a-s1");
        assertThat(seen.get(0).requestHeaders()).containsExactly(LoadReports.FORMAT_HEADER);
    }

    @Test
    void busyIsTheBalancersAnswerRulesAndTheDefaultsWithoutBalancer() {
        FixedOrderLB balancer = ScriptedChild.started(new FixedOrderLB("a"), CAMEL.get(), agent("a", null));
        post(balancer);
        AttemptHooks hooks = seen.get(0);

        for (AttemptHooks each : List.of(hooks, AttemptHooks.NONE)) {
            assertThat(each.isBusy(429, null)).isTrue();
            assertThat(each.isBusy(503, "3")).isTrue();
            assertThat(each.isBusy(503, null)).isFalse();
            assertThat(each.isBusy(200, "3")).isFalse();
        }
        assertThat(AttemptHooks.NONE.requestHeaders()).containsExactly(LoadReports.FORMAT_HEADER);
        assertThat(AttemptHooks.NONE.clientValue("Mcp-Session-Id", "7f3a")).isEqualTo("7f3a");
    }

    @Test
    void loadReportsAreTheXAgentHeadersAndOrcasInAnyCase() {
        for (String report : Set.of("X-Agent-Utilization", "x-agent-cpu", LoadReports.HEADER, "Endpoint-Load-Metrics")) {
            assertThat(AttemptHooks.NONE.isLoadReport(report)).as(report).isTrue();
        }
        for (String other : Set.of("X-Agent", "Content-Type", "X-Agentx-Cpu", LoadReports.FORMAT_HEADER)) {
            assertThat(AttemptHooks.NONE.isLoadReport(other)).as(other).isFalse();
        }
    }
}
