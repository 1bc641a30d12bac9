package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.health.OutlierEjection;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failure-aware settings every strategy shares, changed while the balancer runs, and the
 * clocks that busy agents rest by. Agents answer synchronously what the test gives each: a
 * status, a {@code Retry-After}, or a refusal.
 */
class FailureAwareSupportTest {

    private static final long SECOND = 1_000_000_000L;
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
    /** Agent to its answer: {status, Retry-After} or null for a refusal; 200 when absent. */
    private final Map<String, Object[]> answers = new ConcurrentHashMap<>();
    private final Map<String, ScriptedChild> children = new ConcurrentHashMap<>();
    private final List<String> outcomes = new ArrayList<>();

    private ScriptedChild agent(String name) {
        ScriptedChild child = ScriptedChild.answering(name, (attempt, now) -> {
            Object[] answer = answers.getOrDefault(name, new Object[] {200, null});
            if (answer == REFUSED) {
                throw new ConnectException("Connection refused");
            }
            attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, answer[0]);
            if (answer[1] != null) {
                attempt.getMessage().setHeader(AnswerRules.RETRY_AFTER, answer[1]);
            }
            attempt.getMessage().setBody(name);
        });
        children.put(name, child);
        return child;
    }

    private static final Object[] REFUSED = new Object[0];

    private FixedOrderLB started(FixedOrderLB balancer, String... agents) {
        balancer.addAttemptListener((strategy, agent, outcome, elapsed) -> outcomes.add(agent + " " + outcome));
        return ScriptedChild.startedAgents(balancer, CAMEL.get(), clock::get, this::agent, agents);
    }

    private static Exchange get(AgentLoadBalancerSupport balancer) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    private static String body(Exchange exchange) {
        return exchange.getMessage().getBody(String.class);
    }

    @Test
    void theAgentsAndTheEjectedOnesShowInTheirGetters() {
        FixedOrderLB balancer = started(new FixedOrderLB("A1", "A2"), "A1", "A2");
        answers.put("A1", REFUSED);
        assertThat(body(get(balancer))).isEqualTo("A2");
        assertThat(balancer.getAgentIds()).containsExactly("A1", "A2");
        assertThat(balancer.getEjectedAgents()).containsExactly("A1");
    }

    @Test
    void ejectionRulesSetWhileRunningKnowTheAgentsAlready() {
        FixedOrderLB balancer = started(new FixedOrderLB("A1", "A2"), "A1", "A2");
        balancer.setOutlierEjection(OutlierEjection.custom().consecutiveFailures(2).build());
        assertThat(balancer.hasAgentToTry()).isTrue();
        answers.put("A1", REFUSED);
        get(balancer);
        assertThat(balancer.getEjectedAgents()).isEmpty();
        get(balancer);
        assertThat(balancer.getEjectedAgents()).as("the second refusal in a row").containsExactly("A1");
    }

    @Test
    void consecutiveErrorAnswersSetBeforeTheStartApplyWhenItStarts() {
        FixedOrderLB balancer = new FixedOrderLB("A1", "A2");
        balancer.setConsecutiveErrorAnswers(2);
        assertThat(balancer.getConsecutiveErrorAnswers()).isEqualTo(2);
        started(balancer, "A1", "A2");
        assertThat(balancer.getOutlierEjection().consecutiveErrorAnswers()).isEqualTo(2);
        answers.put("A1", new Object[] {500, null});
        get(balancer);
        get(balancer);
        assertThat(balancer.getEjectedAgents()).containsExactly("A1");
        assertThat(body(get(balancer))).isEqualTo("A2");
    }

    @Test
    void errorStatusesSetWhileRunningClassifyTheNextAnswer() {
        FixedOrderLB balancer = started(new FixedOrderLB("A1"), "A1");
        answers.put("A1", new Object[] {501, null});
        get(balancer);
        balancer.setErrorStatuses("501, 502");
        assertThat(balancer.getErrorStatuses()).isEqualTo("501,502");
        get(balancer);
        answers.put("A1", new Object[] {500, null});
        get(balancer);
        assertThat(outcomes).containsExactly("A1 SUCCESS", "A1 ERROR_ANSWER", "A1 SUCCESS");
    }

    @Test
    void aBusy503CountsAsUnprocessedOnlyOnceSaid() {
        FixedOrderLB balancer = started(new FixedOrderLB("A1", "A2"), "A1", "A2");
        assertThat(balancer.isBusy503Unprocessed()).isFalse();
        balancer.setBusy503Unprocessed(true);
        assertThat(balancer.isBusy503Unprocessed()).isTrue();
        assertThat(balancer.getAnswerRules().busy503Unprocessed()).isTrue();
    }

    @Test
    void anotherClockForgetsTheEjectionsTimedByTheOldOne() {
        FixedOrderLB balancer = started(new FixedOrderLB("A1", "A2"), "A1", "A2");
        answers.put("A1", REFUSED);
        get(balancer);
        assertThat(balancer.getEjectedAgents()).containsExactly("A1");
        AtomicLong other = new AtomicLong(5 * SECOND);
        balancer.useNanoClock(other::get);
        assertThat(balancer.getEjectedAgents()).isEmpty();
        assertThat(balancer.hasAgentToTry()).isTrue();
    }

    @Test
    void aRetryAfterDateIsReadAgainstTheWallClock() {
        FixedOrderLB balancer = started(new FixedOrderLB("A1", "A2"), "A1", "A2");
        Instant now = Instant.parse("2026-12-01T10:00:00Z");
        balancer.useEpochClock(now::toEpochMilli);
        String inFiveSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(now.plusSeconds(5).atOffset(ZoneOffset.UTC));
        answers.put("A1", new Object[] {429, inFiveSeconds});
        assertThat(body(get(balancer))).isEqualTo("A2");
        answers.remove("A1");
        clock.addAndGet(5 * SECOND - 1);
        assertThat(body(get(balancer))).as("A1 rests 5 s").isEqualTo("A2");
        clock.addAndGet(1);
        assertThat(body(get(balancer))).isEqualTo("A1");
    }

    @Test
    void aShorterRestTakenLaterDoesNotEndALongerOne() {
        FixedOrderLB balancer = started(new FixedOrderLB("A1", "A2", "A3"), "A1", "A2", "A3");
        answers.put("A1", new Object[] {429, "5"});
        assertThat(body(get(balancer))).isEqualTo("A2");
        answers.put("A2", new Object[] {429, "1"});
        assertThat(body(get(balancer))).isEqualTo("A3");
        answers.remove("A2");
        clock.addAndGet(2 * SECOND);
        assertThat(body(get(balancer))).isEqualTo("A2");
        assertThat(children.get("A1").requests()).as("A1 rests 3 s more: not asked again").hasSize(1);
    }

    @Test
    void restsAreKeptWhenTheNanoClockReadsNegative() {
        clock.set(-100 * SECOND);
        FixedOrderLB balancer = started(new FixedOrderLB("A1", "A2"), "A1", "A2");
        answers.put("A1", new Object[] {429, "2"});
        assertThat(body(get(balancer))).isEqualTo("A2");
        answers.remove("A1");
        clock.addAndGet(SECOND);
        assertThat(body(get(balancer))).as("A1 rests a second more").isEqualTo("A2");
        assertThat(children.get("A1").requests()).hasSize(1);
        clock.addAndGet(SECOND);
        assertThat(body(get(balancer))).isEqualTo("A1");
    }
}
