package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The outcomes a streaming child reports: a cancelled call (the client left), a failure after the
 * answer's first byte reached the client, an answer timeout. What each does to failover and
 * outlier ejection, with in-memory agents.
 */
class StreamedAttemptOutcomesTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    private final Map<String, Exception> failures = new HashMap<>();
    private final List<String> tried = new ArrayList<>();
    private FixedOrderLB balancer;

    private ScriptedChild agent(String id) {
        return ScriptedChild.answering(id, (attempt, now) -> {
            tried.add(id);
            attempt.setException(failures.get(id));
        });
    }


    @BeforeEach
    void startBalancer() {
        balancer = ScriptedChild.started(new FixedOrderLB("a", "b", "c"), CAMEL.get(), agent("a"), agent("b"), agent("c"));
    }

    private Exchange send(String method) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, method);
        AtomicInteger callbacks = new AtomicInteger();
        balancer.process(exchange, sync -> callbacks.incrementAndGet());
        assertThat(callbacks.get()).isEqualTo(1);
        return exchange;
    }

    /** A child's exception that says its outcome, as camel-lb-http's do. */
    private static final class Classified extends IOException implements ClassifiedFailure {
        private final AttemptOutcome outcome;

        Classified(AttemptOutcome outcome, Throwable cause) {
            super(outcome.name(), cause);
            this.outcome = outcome;
        }

        @Override
        public AttemptOutcome outcome() {
            return outcome;
        }
    }

    private static Classified cancelled() {
        return new Classified(AttemptOutcome.CANCELLED, null);
    }

    private static Classified answerTimedOut() {
        return new Classified(AttemptOutcome.ANSWER_TIMED_OUT, null);
    }

    @Test
    void theClassifierTakesTheOutcomeAnExceptionSaysWhateverItsCauseAndWhereverItSits() {
        assertThat(FailureClassifier.classify(cancelled())).isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(FailureClassifier.classify(new Classified(AttemptOutcome.FAILED_AFTER_FIRST_BYTE, new ClosedChannelException())))
                .isEqualTo(AttemptOutcome.FAILED_AFTER_FIRST_BYTE);
        assertThat(FailureClassifier.classify(new Classified(AttemptOutcome.CANCELLED, new ConnectException("refused"))))
                .as("over a before-send cause").isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(FailureClassifier.classify(new IOException("wrapped", answerTimedOut())))
                .isEqualTo(AttemptOutcome.ANSWER_TIMED_OUT);
        assertThat(AttemptOutcome.CANCELLED.isFailure()).isFalse();
        assertThat(AttemptOutcome.FAILED_AFTER_FIRST_BYTE.isFailure()).isTrue();
        assertThat(AttemptOutcome.ANSWER_TIMED_OUT.isFailure()).isTrue();
    }

    @Test
    void theDefaultPolicyNeverFailsOverOnAnAnswerTimeoutAPartialAnswerOrACancelledCall() {
        FailoverPolicy policy = FailoverPolicy.DEFAULT;
        assertThat(policy.failOverOnAnswerTimeout()).isFalse();
        for (String method : List.of("GET", "POST")) {
            assertThat(policy.mayFailOver(AttemptOutcome.ANSWER_TIMED_OUT, method)).isFalse();
            assertThat(policy.mayFailOver(AttemptOutcome.FAILED_AFTER_FIRST_BYTE, method)).isFalse();
            assertThat(policy.mayFailOver(AttemptOutcome.CANCELLED, method)).isFalse();
        }
        FailoverPolicy onTimeout = policy.withFailOverOnAnswerTimeout(true);
        assertThat(onTimeout.mayFailOver(AttemptOutcome.ANSWER_TIMED_OUT, "GET")).isTrue();
        assertThat(onTimeout.mayFailOver(AttemptOutcome.ANSWER_TIMED_OUT, "POST")).isFalse();
        assertThat(onTimeout.withDeadline(Duration.ofSeconds(1)).failOverOnAnswerTimeout()).isTrue();
        assertThat(new FailoverPolicy(-1, Duration.ZERO, Set.of("GET"))).isEqualTo(
                new FailoverPolicy(-1, Duration.ZERO, Set.of("GET"), false));
    }

    @Test
    void aCancelledCallEndsTheExchangeOnceAndNeverEjects() {
        failures.put("a", cancelled());
        for (int i = 0; i < 5; i++) {
            Exchange exchange = send("POST");
            assertThat(exchange.getException()).isInstanceOf(Classified.class);
        }
        assertThat(tried).containsOnly("a").hasSize(5);
        assertThat(balancer.getEjectedAgents()).isEmpty();
    }

    @Test
    void aTimedOutIdempotentCallRunsOnceByDefaultAndEjects() {
        failures.put("a", answerTimedOut());
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isSameAs(failures.get("a"));
        assertThat(tried).containsExactly("a");
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
    }

    @Test
    void aTimedOutIdempotentCallFailsOverWhenThePolicySaysSo() {
        balancer.setFailoverPolicy(balancer.getFailoverPolicy().withFailOverOnAnswerTimeout(true));
        failures.put("a", answerTimedOut());
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isNull();
        assertThat(tried).containsExactly("a", "b");
    }

    @Test
    void aFailureAfterTheFirstByteIsNeverRetriedButCounts() {
        failures.put("a", new Classified(AttemptOutcome.FAILED_AFTER_FIRST_BYTE, new ConnectException("x")));
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isSameAs(failures.get("a"));
        assertThat(tried).containsExactly("a");
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
    }
}
