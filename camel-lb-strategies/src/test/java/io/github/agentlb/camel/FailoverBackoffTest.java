package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.retry.RetryBackoff;
import io.github.agentlb.testing.FakeScheduler;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Backoff with full jitter between failover attempts, on a fake scheduler and clock: a failover
 * that spends the retry budget waits its seeded draw below a doubling ceiling, no thread held; a
 * failover after a refused connection waits nothing; a wait that would pass the failover deadline
 * ends the failovers there. The waits are the golden values of {@code RetryBackoffTest} (default
 * seed; draw k is the balancer's k-th wait).
 */
class FailoverBackoffTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    private static final long START = 1_000_000_000L;
    private final FakeScheduler fake = new FakeScheduler(START);
    private final List<Boolean> completions = new CopyOnWriteArrayList<>();

    private static ScriptedChild closing(String id) {
        return ScriptedChild.answering(id, (attempt, now) -> attempt.setException(new ClosedChannelException()));
    }

    private ScriptedChild naming(String id) {
        return ScriptedChild.answering(id, fake::nanoTime, (attempt, now) -> attempt.getMessage().setBody(id));
    }

    /** A started balancer over {@code children}, in their order, ejection off, backoff on, on the fake scheduler. */
    private FixedOrderLB balancer(ScriptedChild... children) {
        FixedOrderLB lb = new FixedOrderLB(Arrays.stream(children).map(ScriptedChild::getId).toArray(String[]::new));
        lb.setOutlierEjection(OutlierEjection.disabled());
        lb.setRetryBackoffEnabled(true);
        lb.useNanoClock(fake::nanoTime);
        lb.useQueueTimer(fake);
        return ScriptedChild.started(lb, CAMEL.get(), children);
    }

    private Exchange get(FixedOrderLB lb, boolean expectSync) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        assertThat(lb.process(exchange, completions::add)).as("completed synchronously").isEqualTo(expectSync);
        return exchange;
    }

    @Test
    void aFailoverAfterASendFailureWaitsItsDrawOnTheSchedulerWithNoThreadHeld() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a"), b);
        Exchange exchange = get(lb, false);
        assertThat(completions).as("waiting, nothing completed").isEmpty();
        assertThat(fake.pendingDelays()).containsExactly(Duration.ofNanos(19_541_187));
        assertThat(lb.retriesInFlight().retries()).as("the waiting retry counts in flight").isEqualTo(1);
        fake.advance(Duration.ofNanos(19_541_186));
        assertThat(b.requests()).isEmpty();
        fake.advance(Duration.ofNanos(1));
        assertThat(b.requests()).containsExactly(START + 19_541_187);
        assertThat(exchange.getMessage().getBody()).isEqualTo("b");
        assertThat(completions).containsExactly(false);
        assertThat(lb.retriesInFlight().retries()).isZero();
        assertThat(lb.retriesInFlight().requests()).isZero();
        assertThat(lb.getRetries()).isEqualTo(1);
    }

    @Test
    void theNthFailoverOfARequestWaitsBelowItsDoubledCeiling() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a1"), closing("a2"), closing("a3"), b);
        Exchange exchange = get(lb, false);
        List<Duration> waits = new ArrayList<>();
        while (fake.nextDelay().isPresent()) {
            Duration wait = fake.nextDelay().get();
            waits.add(wait);
            fake.advance(wait);
        }
        // Below 25, 50 and 100 ms: draws 0, 1, 2 of the default seed at n = 1, 2, 3.
        assertThat(waits).containsExactly(Duration.ofNanos(19_541_187), Duration.ofNanos(15_709_355),
                Duration.ofNanos(45_039_451));
        assertThat(b.requests()).containsExactly(START + 19_541_187 + 15_709_355 + 45_039_451);
        assertThat(exchange.getMessage().getBody()).isEqualTo("b");
        assertThat(completions).containsExactly(false);
    }

    @Test
    void aFailoverAfterARefusedConnectionDoesNotWait() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(ScriptedChild.answering("r", (attempt, now) -> attempt.setException(new ConnectException("refused"))), b);
        Exchange exchange = get(lb, true);
        assertThat(exchange.getMessage().getBody()).isEqualTo("b");
        assertThat(b.requests()).containsExactly(START);
        assertThat(fake.pendingCount()).isZero();
        assertThat(completions).containsExactly(true);
    }

    @Test
    void aWaitThatWouldPassTheFailoverDeadlineEndsTheFailoversThere() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a"), b);
        lb.setFailoverDeadline(Duration.ofMillis(10));
        Exchange exchange = get(lb, true);
        assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("(failoverDeadline=10 ms)");
        assertThat(fake.pendingCount()).isZero();
        assertThat(b.requests()).isEmpty();
        assertThat(lb.getRetries()).as("no retry started").isZero();
        assertThat(lb.retriesInFlight().requests()).isZero();

        lb.setFailoverDeadline(Duration.ofMillis(8));
        Exchange second = get(lb, false);
        assertThat(fake.pendingDelays()).as("draw 1 at n = 1: within 8 ms").containsExactly(Duration.ofNanos(7_854_677));
        fake.advance(Duration.ofMillis(8));
        assertThat(second.getMessage().getBody()).isEqualTo("b");
    }

    @Test
    void theWaitIsCheckedAgainstTheFailoversSoFarNotTheNextOnes() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a"), b);
        lb.setMaximumFailoverAttempts(1);
        Exchange exchange = get(lb, false);
        fake.advance(Duration.ofMillis(25));
        assertThat(exchange.getMessage().getBody()).as("the one failover allowed, after its wait").isEqualTo("b");

        lb.setMaximumFailoverAttempts(2);
        lb.setFailoverDeadline(Duration.ofMillis(5));
        Exchange second = get(lb, true);
        assertThat(second.getException()).as("draw 1, 7.9 ms, passes the deadline; the count allowed it")
                .hasMessageContaining("(failoverDeadline=5 ms)").hasMessageNotContaining("maximumFailoverAttempts");
    }

    @Test
    void aBusyAnswerWhoseFailoverWouldWaitPastTheDeadlineReachesTheClient() {
        ScriptedChild busy = ScriptedChild.answering("busy", (attempt, now) -> {
            attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
            attempt.getMessage().setHeader("Retry-After", "3");
            attempt.getMessage().setBody("slow down");
        });
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(busy, b);
        lb.setFailoverDeadline(Duration.ofMillis(10));
        Exchange exchange = get(lb, true);
        assertThat(exchange.getException()).isNull();
        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(exchange.getMessage().getBody()).isEqualTo("slow down");
        assertThat(b.requests()).isEmpty();
    }

    @Test
    void offByDefaultAFailoverIsSentAtOnce() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a"), b);
        lb.setRetryBackoffEnabled(false);
        assertThat(new FixedOrderLB("x").getRetryBackoff()).isEqualTo(RetryBackoff.DISABLED);
        assertThat(get(lb, true).getMessage().getBody()).isEqualTo("b");
        assertThat(fake.pendingCount()).isZero();
    }

    @Test
    void theKnobsAreCheckedNamingFieldAndValue() {
        FixedOrderLB lb = new FixedOrderLB("a");
        lb.setRetryBackoffBaseInterval("500ms");
        lb.setRetryBackoffMaxInterval("2s");
        lb.setRetryBackoffSeed(42);
        assertThat(lb.getRetryBackoff()).isEqualTo(new RetryBackoff(Duration.ofMillis(500), Duration.ofSeconds(2), 42, true));
        assertThatThrownBy(() -> lb.setRetryBackoffBaseInterval("abc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("retryBackoffBaseInterval must be");
        assertThatThrownBy(() -> lb.setRetryBackoffMaxInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBackoffMaxInterval must be > 0, was PT0S");
        FixedOrderLB started = balancer(naming("s"));
        assertThatThrownBy(() -> started.setRetryBackoffBaseInterval(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBackoffBaseInterval must be <= retryBackoffMaxInterval (PT0.25S), was PT1S");
        assertThat(started.getRetryBackoff()).isEqualTo(RetryBackoff.ENVOY);
    }

    @Test
    void aPostThatFailedAfterSendIsNeitherResentNorWaitedFor() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a"), b);
        Exchange post = new DefaultExchange(CAMEL.get());
        post.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        assertThat(lb.process(post, completions::add)).isTrue();
        assertThat(post.getException()).isInstanceOf(ClosedChannelException.class);
        assertThat(fake.pendingCount()).isZero();
        assertThat(b.requests()).isEmpty();
    }

    @Test
    void aSpentBudgetEndsTheFailoversWithoutWaiting() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a"), b);
        lb.setRetryBudgetMinRetries(0);
        lb.setRetryBudgetShare(0);
        Exchange exchange = get(lb, true);
        assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("retry budget spent");
        assertThat(fake.pendingCount()).isZero();
        assertThat(lb.getRetryBudgetExhausted()).isEqualTo(1);
    }

    @Test
    void aBalancerStoppedDuringTheWaitEndsTheExchangeThere() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a"), b);
        Exchange exchange = get(lb, false);
        lb.stop();
        fake.advance(Duration.ofMillis(25));
        assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("(the balancer stopped)");
        assertThat(b.requests()).isEmpty();
        assertThat(completions).containsExactly(false);
        assertThat(lb.retriesInFlight().retries()).isZero();
        assertThat(lb.retriesInFlight().requests()).isZero();
    }

    @Test
    void aSchedulerThatRefusesTheWaitSendsTheFailoverAtOnce() {
        ScriptedChild b = naming("b");
        FixedOrderLB lb = balancer(closing("a"), b);
        fake.shutdown();
        Exchange exchange = get(lb, false);
        assertThat(exchange.getMessage().getBody()).isEqualTo("b");
        assertThat(b.requests()).containsExactly(START);
        assertThat(completions).containsExactly(false);
    }
}
