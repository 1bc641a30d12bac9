package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How an agent's answer is read: its status, busy or error, and how long a busy agent rests. */
class AnswerRulesTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static final AnswerRules RULES = AnswerRules.DEFAULT;
    private static final long NOW = 1_800_000_000_000L;

    private static Message answer(Object status) {
        Message message = new DefaultExchange(CAMEL.get()).getMessage();
        if (status != null) {
            message.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        }
        return message;
    }

    @Test
    void theStatusIsANumberOrItsTextAndZeroWhenThereIsNone() {
        assertThat(AnswerRules.statusOf(answer(429))).isEqualTo(429);
        assertThat(AnswerRules.statusOf(answer(" 503 "))).isEqualTo(503);
        assertThat(AnswerRules.statusOf(answer("busy"))).isZero();
        assertThat(AnswerRules.statusOf(answer(null))).isZero();
    }

    @Test
    void a429IsBusyAndA503OnlyWithRetryAfter() {
        assertThat(RULES.isBusy(429, null)).isTrue();
        assertThat(RULES.isBusy(503, "1")).isTrue();
        assertThat(RULES.isBusy(503, null)).isFalse();
        assertThat(RULES.isBusy(500, "1")).isFalse();
        assertThat(RULES.isBusy(200, null)).isFalse();
    }

    @Test
    void aBusy503GoesElsewhereOnlyForAnIdempotentRequestUnlessUnprocessed() {
        FailoverPolicy policy = FailoverPolicy.DEFAULT;
        assertThat(RULES.busyMayFailOver(429, "POST", policy)).isTrue();
        assertThat(RULES.busyMayFailOver(503, "POST", policy)).isFalse();
        assertThat(RULES.busyMayFailOver(503, "GET", policy)).isTrue();
        assertThat(RULES.withBusy503Unprocessed(true).busyMayFailOver(503, "POST", policy)).isTrue();
    }

    @Test
    void errorStatusesRunFrom500To599() {
        AnswerRules edges = RULES.withErrorStatuses(Set.of(500, 599));
        assertThat(edges.classify(599, null)).isEqualTo(AttemptOutcome.ERROR_ANSWER);
        assertThat(edges.classify(502, null)).isEqualTo(AttemptOutcome.SUCCESS);
        assertThatThrownBy(() -> RULES.withErrorStatuses(Set.of(499)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("errorStatuses must be statuses from 500 to 599, was [499]");
        assertThatThrownBy(() -> RULES.withErrorStatuses(Set.of(600)))
                .hasMessage("errorStatuses must be statuses from 500 to 599, was [600]");
    }

    @Test
    void theLongestRestMayEqualTheDefaultRestButNotBeShorter() {
        AnswerRules fixed = RULES.withMaxRest(Duration.ofSeconds(1));
        assertThat(fixed.restOf("30", NOW)).isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> RULES.withMaxRest(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxRest must be >= defaultRest (PT1S), was PT0.999S");
        assertThatThrownBy(() -> RULES.withDefaultRest(Duration.ZERO)).hasMessage("defaultRest must be > 0, was PT0S");
    }

    @Test
    void aRetryAfterOfZeroSecondsRestsTheDefaultRest() {
        assertThat(RULES.restOf("0", NOW)).isEqualTo(Duration.ofSeconds(1));
        assertThat(RULES.withDefaultRest(Duration.ofMillis(250)).restOf("0", NOW)).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void delaySecondsAreCappedAtALongestRestThatIsNotWholeSeconds() {
        AnswerRules rules = RULES.withMaxRest(Duration.ofMillis(1500));
        assertThat(rules.restOf("1", NOW)).isEqualTo(Duration.ofSeconds(1));
        assertThat(rules.restOf("2", NOW)).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void theRulesPrintTheirStatusesInOrder() {
        assertThat(RULES.withErrorStatuses(Set.of(504, 500))).hasToString(
                "AnswerRules[errorStatuses=500,504, defaultRest=PT1S, maxRest=PT1M, busy503Unprocessed=false]");
    }
}
