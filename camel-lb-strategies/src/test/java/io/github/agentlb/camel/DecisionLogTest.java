package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.time.Duration;
import java.util.Set;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The exact decision and health log lines, and how client text is made loggable. */
class DecisionLogTest {

    private static final CamelContext CONTEXT = new DefaultCamelContext();
    private static final AgentFailure REFUSED = AgentFailure.of("A1", new ConnectException("Connection refused"));

    @AfterAll
    static void closeContext() throws Exception {
        CONTEXT.close();
    }

    private static Exchange exchange(Object requestId) {
        Exchange exchange = new DefaultExchange(CONTEXT);
        exchange.setExchangeId("ex-1");
        if (requestId != null) {
            exchange.getIn().setHeader(AgentLb.REQUEST_ID_HEADER, requestId);
        }
        return exchange;
    }

    @Test
    void controlCharactersAndEveryKindOfSpaceAreEscaped() {
        assertThat(DecisionLog.loggable("a b\nc\r\td")).isEqualTo("a\\u0020b\\u000ac\\u000d\\u0009d");
        assertThat(DecisionLog.loggable("\u0000\u007f\u00a0\u2028x")).isEqualTo("\\u0000\\u007f\\u00a0\\u2028x");
        assertThat(DecisionLog.loggable("user-42_é")).isEqualTo("user-42_é");
        assertThat(DecisionLog.loggable("")).isEmpty();
    }

    @Test
    void textIsCutAtTwoHundredCharacters() {
        String limit = "x".repeat(DecisionLog.MAX_LOGGED_CHARS);
        assertThat(DecisionLog.loggable(limit)).isEqualTo(limit);
        assertThat(DecisionLog.loggable(limit + "y")).isEqualTo(limit + "...");
        // 33 escapes are 198 characters, the 34th passes the limit and ends the text.
        assertThat(DecisionLog.loggable("\n".repeat(34))).isEqualTo("\\u000a".repeat(34));
        assertThat(DecisionLog.loggable("\n".repeat(35))).isEqualTo("\\u000a".repeat(34) + "...");
    }

    @Test
    void theRequestIdIsTheLoggableHeaderElseTheExchangeId() {
        assertThat(DecisionLog.requestId(exchange("r 1"))).isEqualTo("r\\u00201");
        assertThat(DecisionLog.requestId(exchange(42))).isEqualTo("42");
        assertThat(DecisionLog.requestId(exchange(null))).isEqualTo("ex-1");
    }

    @Test
    void decisionLinesShowTrialDetailAndEjectedAgentsOnlyWhenThere() {
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            assertThat(DecisionLog.enabled()).isTrue();
            DecisionLog.decision(exchange("r1"), "ch", "A2", false, "user_id=42", Set.of());
            DecisionLog.decision(exchange("r2"), "rr", "A1", true, "", Set.of("A1"));
            DecisionLog.failover(exchange("r3"), "rr", "A3", REFUSED, false);
            DecisionLog.failover(exchange("r4"), "rr", "A3", REFUSED, true);
            assertThat(log.lines()).containsExactly(
                    "INFO request=r1 strategy=ch agent=A2 user_id=42",
                    "INFO request=r2 strategy=rr agent=A1 (trial) ejected=[A1]",
                    "INFO request=r3 strategy=rr failover to agent=A3 after A1 (connection refused)",
                    "INFO request=r4 strategy=rr failover to agent=A3 (trial) after A1 (connection refused)");
        }
        assertThat(DecisionLog.enabled()).as("the test configuration logs WARN and up").isFalse();
    }

    /**
     * A request that gets no agent has its one decision line too: {@code agent=none} and why (every
     * agent tried failed, or every agent resting), as the exception's message says it.
     */
    @Test
    void aRequestThatGetsNoAgentHasItsDecisionLine() throws Exception {
        try (CamelContext camel = new DefaultCamelContext(); CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            camel.start();
            RoundRobinLB failing = ScriptedChild.started(new RoundRobinLB(), camel, ScriptedChild.answering("A1",
                    (attempt, now) -> {
                        throw new ConnectException("Connection refused");
                    }));
            Exchange down = exchange(camel, "r1");
            failing.process(down, sync -> { });
            RoundRobinLB busy = ScriptedChild.started(new RoundRobinLB(), camel, ScriptedChild.answering("A1",
                    (attempt, now) -> {
                        attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
                        attempt.getMessage().setHeader("Retry-After", "30");
                    }));
            busy.process(exchange(camel, "r2"), sync -> { });
            Exchange resting = exchange(camel, "r3");
            busy.process(resting, sync -> { });

            assertThat(down.getException()).isInstanceOf(NoAgentAvailableException.class);
            assertThat(resting.getException()).isInstanceOf(AgentsBusyException.class);
            assertThat(log.lines()).containsExactly(
                    "INFO request=r1 strategy=rr agent=A1",
                    "INFO request=r1 strategy=rr agent=none: No agent available: 1 of 1 agents tried, each failed: A1 (connection refused)",
                    "INFO request=r2 strategy=rr agent=A1",
                    "INFO request=r3 strategy=rr agent=none: Agent A1, the only one left for this request, is busy: retry after 30 s");
        }
    }

    private static Exchange exchange(CamelContext camel, String requestId) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getIn().setHeader(AgentLb.REQUEST_ID_HEADER, requestId);
        return exchange;
    }

    @Test
    void healthLinesNameTheAgentTheTimeAndTheReason() {
        try (CapturedLog log = new CapturedLog("io.github.agentlb.health")) {
            DecisionLog.ejected("pid", REFUSED, Duration.ofSeconds(10));
            DecisionLog.readmitted("pid", "A1");
            assertThat(log.lines()).containsExactly(
                    "INFO strategy=pid agent=A1 ejected for 10000 ms after connection refused",
                    "INFO strategy=pid agent=A1 re-admitted");
        }
    }
}
