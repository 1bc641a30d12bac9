package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.retry.RetryBudget;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The retry budget on the request path: agent {@code a} closes every connection without an answer, {@code b}
 * answers (held while a test wants retries in flight); a failover starts only while the retries
 * in flight stay within the budget, else the request ends with a JSON-able 503 cause.
 */
class RetryBudgetBalancerTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    private ScriptedChild b;
    private FixedOrderLB balancer;

    @BeforeEach
    void startBalancer() {
        b = ScriptedChild.naming("b");
        balancer = ScriptedChild.started(new FixedOrderLB("a", "b"), CAMEL.get(),
                ScriptedChild.answering("a", (attempt, now) -> attempt.setException(new ClosedChannelException())), b);
        balancer.setOutlierEjection(io.github.agentlb.core.health.OutlierEjection.disabled());
    }

    private Exchange send() {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    @Test
    void byDefaultThreeRetriesMayBeInFlightAtOnceAndTheFourthIsRefused() {
        assertThat(balancer.getRetryBudget()).isEqualTo(RetryBudget.DEFAULT);
        b.hold();
        List<Exchange> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(send());
        }
        assertThat(b.heldAnswers()).isEqualTo(3);
        Exchange fourth = send();
        assertThat(fourth.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("retry budget spent: 3 retries in flight");
        assertThat(balancer.getRetries()).isEqualTo(3);
        assertThat(balancer.getRetryBudgetExhausted()).isEqualTo(1);
        assertThat(balancer.getRetries()).isEqualTo(3);
        assertThat(balancer.getRetryBudgetExhausted()).isEqualTo(1);
        b.release();
        assertThat(held).allSatisfy(e -> assertThat(e.getMessage().getBody()).isEqualTo("b"));
        assertThat(balancer.retriesInFlight().retries()).isZero();
        assertThat(balancer.retriesInFlight().requests()).isZero();
    }

    @Test
    void aRefusedConnectionSpendsNoBudgetTheAgentNeverSawTheRequest() {
        ScriptedChild c = ScriptedChild.naming("c");
        FixedOrderLB refusing = ScriptedChild.started(new FixedOrderLB("r", "c"), CAMEL.get(),
                ScriptedChild.answering("r", (attempt, now) -> attempt.setException(new java.net.ConnectException("refused"))), c);
        refusing.setOutlierEjection(io.github.agentlb.core.health.OutlierEjection.disabled());
        refusing.setRetryBudgetMinRetries(0);
        c.hold();
        for (int i = 0; i < 5; i++) {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            refusing.process(exchange, sync -> { });
        }
        assertThat(c.heldAnswers()).isEqualTo(5);
        assertThat(refusing.getRetries()).isEqualTo(5);
        assertThat(refusing.getRetryBudgetExhausted()).isZero();
        c.release();
        refusing.stop();
    }

    /** A retry counts once it is sent: when its request's agents have all been tried, the failover that finds none is no retry. */
    @Test
    void aFailoverThatFindsNoAgentLeftIsNoRetry() {
        ScriptedChild.Answer closing = (attempt, now) -> attempt.setException(new ClosedChannelException());
        FixedOrderLB failing = ScriptedChild.started(new FixedOrderLB("x", "y", "z"), CAMEL.get(),
                ScriptedChild.answering("x", closing), ScriptedChild.answering("y", closing), ScriptedChild.answering("z", closing));
        failing.setOutlierEjection(io.github.agentlb.core.health.OutlierEjection.disabled());
        try {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
            failing.process(exchange, sync -> { });

            assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class);
            assertThat(failing.getRetries()).as("x, then y and z: two failovers").isEqualTo(2);
            assertThat(failing.retriesInFlight().retries()).isZero();
        } finally {
            failing.stop();
        }
    }

    @Test
    void theShareOfRequestsInFlightRaisesTheBudgetAndOffMeansUnlimited() {
        balancer.setRetryBudgetMinRetries(0);
        assertThat(send().getException()).as("no request in flight, no minimum").isInstanceOf(NoAgentAvailableException.class);
        balancer.setRetryBudgetShare(1.0);
        assertThat(send().getMessage().getBody()).as("1 retry for 1 request").isEqualTo("b");
        balancer.setRetryBudgetShare(0.0);
        balancer.setRetryBudgetEnabled(false);
        b.hold();
        for (int i = 0; i < 10; i++) {
            send();
        }
        assertThat(b.heldAnswers()).isEqualTo(10);
        b.release();
    }
}
