package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Passive timeouts: an attempt whose answer did not begin within its first-byte timeout counts as a
 * failure of its agent, so consecutive timeouts eject it as refused connections do, and a client
 * that leaves afterwards (a cancelled call) neither erases the count nor re-admits the agent.
 */
class PassiveTimeoutEjectionTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    /** What agent {@code a} does with its next calls, in order; an empty script answers. */
    private final Deque<AttemptOutcome> script = new ArrayDeque<>();
    private final List<String> tried = new ArrayList<>();
    private FixedOrderLB balancer;

    @BeforeEach
    void startBalancer() {
        balancer = ScriptedChild.started(new FixedOrderLB("a", "b"), CAMEL.get(), ScriptedChild.answering("a", (attempt, now) -> {
            tried.add("a");
            AttemptOutcome outcome = script.poll();
            if (outcome != null) {
                attempt.setException(new Classified(outcome));
            }
        }), ScriptedChild.naming("b"));
        balancer.setConsecutiveFailures(2);
    }

    private Exchange send(String method) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, method);
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    /** A child's exception that says its outcome, as camel-lb-http's do. */
    private static final class Classified extends IOException implements ClassifiedFailure {
        private final AttemptOutcome outcome;

        Classified(AttemptOutcome outcome) {
            super(outcome.name());
            this.outcome = outcome;
        }

        @Override
        public AttemptOutcome outcome() {
            return outcome;
        }
    }

    @Test
    void consecutiveAnswerTimeoutsEjectTheAgentAsConnectionFailuresDo() {
        script.add(AttemptOutcome.ANSWER_TIMED_OUT);
        assertThat(send("POST").getException()).isInstanceOf(Classified.class);
        assertThat(balancer.getEjectedAgents()).as("one timeout of two").isEmpty();
        script.add(AttemptOutcome.ANSWER_TIMED_OUT);
        send("GET");
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
        assertThat(send("GET").getMessage().getBody()).isEqualTo("b");
        assertThat(tried).containsExactly("a", "a");
    }

    @Test
    void aClientThatLeavesAfterATimeoutErasesNeitherTheTimeoutNorTheEjection() {
        script.add(AttemptOutcome.ANSWER_TIMED_OUT);
        script.add(AttemptOutcome.CANCELLED);
        script.add(AttemptOutcome.CANCELLED);
        script.add(AttemptOutcome.ANSWER_TIMED_OUT);
        send("POST");
        send("POST");
        send("POST");
        assertThat(balancer.getEjectedAgents()).as("cancelled calls in between").isEmpty();
        send("POST");
        assertThat(balancer.getEjectedAgents()).as("the second timeout still follows the first").containsExactly("a");
        assertThat(tried).containsExactly("a", "a", "a", "a");
    }

    @Test
    void anAnswerBetweenTwoTimeoutsStartsTheCountAgain() {
        script.add(AttemptOutcome.ANSWER_TIMED_OUT);
        send("POST");
        send("POST"); // answered
        script.add(AttemptOutcome.ANSWER_TIMED_OUT);
        send("POST");
        assertThat(balancer.getEjectedAgents()).isEmpty();
    }
}
