package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a streaming child asks at an answer's head ({@link AttemptHooks#isBusy}): a 503 without
 * {@code Retry-After} is held back only for a request that may go to another agent, by the one
 * rule of {@link FailoverPolicy#repeatable}; a 429 always.
 */
class AttemptHooksBusyTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    /**
     * What {@code question} answers at each attempt of these requests ({method, Idempotency-Key or
     * null}) through a started rr balancer over two scripted agents.
     */
    private List<String> asked(java.util.function.Function<AttemptHooks, String> question, String[]... requests) {
        return asked(new RoundRobinLB(), question, requests);
    }

    private List<String> asked(RoundRobinLB balancer, java.util.function.Function<AttemptHooks, String> question, String[]... requests) {
        List<String> asked = new ArrayList<>();
        RoundRobinLB rr = ScriptedChild.startedAgents(balancer, CAMEL.get(), clock::get,
                id -> ScriptedChild.scripted(id, (attempt, callback) -> {
                    asked.add(question.apply(attempt.getProperty(AttemptHooks.PROPERTY, AttemptHooks.NONE, AttemptHooks.class)));
                    attempt.getMessage().setBody(id);
                    callback.done(true);
                    return true;
                }), "A1", "A2");
        for (String[] request : requests) {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeader(Exchange.HTTP_METHOD, request[0]);
            if (request[1] != null) {
                exchange.getIn().setHeader(AgentLb.IDEMPOTENCY_KEY_HEADER, request[1]);
            }
            rr.process(exchange, sync -> { });
        }
        return asked;
    }

    @Test
    void a503WithoutRetryAfterIsHeldBackOnlyForARequestThatMayBeSentTwice() {
        List<String> asked = asked(hooks -> hooks.isBusy(503, null) + " " + hooks.isBusy(429, "1") + " " + hooks.isBusy(200, null),
                new String[] {"GET", null}, new String[] {"POST", null}, new String[] {"POST", "k-1"}, new String[] {"POST", " "});
        assertThat(asked).containsExactly("true true false", "false true false", "true true false", "false true false");
    }

    /**
     * An answer passed on as it came that rests its agent and names no {@code Retry-After} (a 429, a
     * 503 that rests it) gets the agent's rest, whole seconds rounded up; one that names its own, or
     * rests nothing, keeps what it has.
     */
    @Test
    void anAnswerThatRestsItsAgentWithoutRetryAfterGetsTheRest() {
        List<String> asked = asked(hooks -> hooks.clientRetryAfter(503, null) + " " + hooks.clientRetryAfter(429, null) + " "
                + hooks.clientRetryAfter(429, "7") + " " + hooks.clientRetryAfter(500, null) + " " + hooks.clientRetryAfter(200, null),
                new String[] {"POST", null});
        assertThat(asked).containsExactly("1 1 null null null");
        assertThat(AttemptHooks.NONE.clientRetryAfter(503, null)).isNull();
        RoundRobinLB longer = new RoundRobinLB();
        longer.setDefaultRest(java.time.Duration.ofMillis(2001));
        assertThat(asked(longer, hooks -> hooks.clientRetryAfter(429, null), new String[] {"POST", null})).containsExactly("3");
    }

    /**
     * The other questions a streaming child asks its attempt: whether the request may be sent twice
     * (the stale-connection resend) by the balancer's one rule, whatever RFC 9110 says, and whether
     * an unsettled answer may pass on (always, with no hedged request running).
     */
    @Test
    void anAttemptAnswersRepeatableByTheFailoverRuleAndPassesOnWithoutAHedge() {
        List<String> asked = asked(hooks -> hooks.repeatable(false) + " " + hooks.repeatable(true) + " " + hooks.passesOnUnsettled(),
                new String[] {"GET", null}, new String[] {"POST", null}, new String[] {"POST", "k-1"});
        assertThat(asked).containsExactly("true true true", "false false true", "true true true");
    }
}
