package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.github.agentlb.testing.FakeScheduler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.builder.ExpressionBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The per-agent in-flight limit and the queue in front of full agents, on a fake clock and timer:
 * agents keep each request until the test ends it, so what is in flight is exact.
 */
class FlowControlTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** A request an agent holds: its agent, the attempt, the attempt's callback. */
    record Call(String agent, Exchange attempt, AsyncCallback callback) {
        void end() {
            callback.done(false);
        }
    }

    /** An exchange sent to the balancer and how it completed. */
    static final class Sent {
        final Exchange exchange;
        final AtomicInteger completions = new AtomicInteger();
        volatile Boolean sync;
        volatile boolean returned;

        Sent(Exchange exchange) {
            this.exchange = exchange;
        }

        boolean done() {
            return completions.get() > 0;
        }
    }

    private final FakeScheduler fake = new FakeScheduler(1_000_000_000L);
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private AgentLoadBalancerSupport balancer;

    @AfterEach
    void stop() {
        if (balancer != null) {
            balancer.stop();
        }
    }

    private <T extends AgentLoadBalancerSupport> T start(T lb, int maxInFlight, int queueSize) {
        lb.setMaxInFlightPerAgent(maxInFlight);
        lb.setQueueSize(queueSize);
        lb.setQueueTimeout(Duration.ofSeconds(10));
        lb.useQueueTimer(fake);
        balancer = ScriptedChild.startedAgents(lb, CAMEL.get(), fake::nanoTime,
                id -> ScriptedChild.scripted(id, (attempt, callback) -> {
                    calls.add(new Call(id, attempt, callback));
                    return false;
                }), "A1", "A2", "A3");
        return lb;
    }

    private Sent send(Map<String, Object> headers) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        headers.forEach(exchange.getIn()::setHeader);
        Sent sent = new Sent(exchange);
        boolean sync = balancer.process(exchange, doneSync -> {
            sent.completions.incrementAndGet();
            sent.sync = doneSync;
        });
        sent.returned = sync;
        return sent;
    }

    private Sent send() {
        return send(Map.of());
    }

    private Call endFirstCallOf(String agent) {
        Call call = calls.stream().filter(c -> c.agent().equals(agent)).findFirst().orElseThrow();
        calls.remove(call);
        call.end();
        return call;
    }

    /** Ends the oldest call {@code n} times; the tenant of the exchange each end released, in order. */
    private List<String> tenantsReleased(int n) {
        List<String> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Call ended = calls.get(0);
            calls.remove(ended);
            ended.end();
            order.add((String) calls.get(calls.size() - 1).attempt().getIn().getHeader("X-Tenant"));
        }
        return order;
    }

    private List<String> agentsCalled() {
        return calls.stream().map(Call::agent).toList();
    }

    @Test
    void anAgentAtItsLimitTakesNoRequestAndWithoutAQueueTheClientGets429() {
        start(new RoundRobinLB(), 1, 0);
        List<Sent> first = List.of(send(), send(), send());
        assertThat(agentsCalled()).containsExactlyInAnyOrder("A1", "A2", "A3");
        Sent fourth = send();
        assertThat(fourth.returned).isTrue();
        assertThat(fourth.sync).isTrue();
        assertThat(fourth.exchange.getException()).isInstanceOf(AgentsBusyException.class);
        assertThat(((AgentsBusyException) fourth.exchange.getException()).retryAfterSeconds()).isEqualTo(1);
        assertThat(fourth.exchange.getMessage().getHeader("Retry-After")).isEqualTo("1");
        assertThat(calls).hasSize(3);
        endFirstCallOf("A2");
        assertThat(first.get(1).done()).isTrue();
        send();
        assertThat(agentsCalled()).containsExactlyInAnyOrder("A1", "A3", "A2");
    }

    /**
     * A streaming child writes the answer's last bytes before its call ends: it tells the balancer
     * first ({@link AttemptHooks#answerEnds}), and the agent's place is free from then on, so a
     * client that sends again at once is not refused 429 at {@code maxInFlightPerAgent}; the call's
     * end later does not free it twice.
     */
    @Test
    void anAnswerWhoseLastBytesAreGoingToTheClientFreesItsPlaceBeforeTheCallEnds() {
        start(new RoundRobinLB(), 1, 0);
        send();
        send();
        Sent third = send();
        Call a3 = calls.get(2);
        AttemptHooks hooks = a3.attempt().getProperty(AttemptHooks.PROPERTY, AttemptHooks.class);
        assertThat(hooks.answerHead()).isTrue();
        hooks.answerEnds(); // the child is about to write the last bytes; its call has not ended yet
        hooks.answerEnds(); // told twice: counted once

        Sent again = send();
        assertThat(again.exchange.getException()).as("the client's next request finds A3's place free").isNull();
        assertThat(agentsCalled()).containsExactly("A1", "A2", "A3", "A3");
        a3.end();
        assertThat(third.done()).isTrue();
        Sent full = send();
        assertThat(full.exchange.getException()).as("A3's place freed once, not twice: every agent at its limit")
                .isInstanceOf(AgentsBusyException.class);
    }

    @Test
    void aQueuedExchangeHoldsNoThreadAndGoesToTheAgentThatFrees() {
        start(new RoundRobinLB(), 1, 5);
        send();
        send();
        send();
        Sent waiting = send();
        assertThat(waiting.returned).isFalse();
        assertThat(waiting.done()).isFalse();
        assertThat(waiting.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).isInstanceOf(QueuedExchange.class);
        assertThat(balancer.queueFigures().waiting()).isEqualTo(Map.of(0, 1));
        fake.advance(Duration.ofMillis(250));
        endFirstCallOf("A3");
        assertThat(agentsCalled()).containsExactlyInAnyOrder("A1", "A2", "A3");
        assertThat(waiting.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).isNull();
        endFirstCallOf("A3");
        assertThat(waiting.completions.get()).isEqualTo(1);
        assertThat(waiting.sync).isFalse();
        assertThat(waiting.exchange.getException()).isNull();
        QueueFigures figures = balancer.queueFigures();
        assertThat(figures.released()).isEqualTo(1);
        assertThat(figures.maxWaitNanos()).isEqualTo(Duration.ofMillis(250).toNanos());
        assertThat(figures.size()).isZero();
        assertThat(figures.admitted()).isEqualTo(2);
    }

    @Test
    void aFullQueueRefusesWith429AndTheQueueNeverExceedsItsBound() {
        start(new RoundRobinLB(), 1, 2);
        for (int i = 0; i < 5; i++) {
            send();
        }
        Sent refused = send();
        assertThat(refused.returned).isTrue();
        assertThat(refused.exchange.getException()).isInstanceOf(AgentsBusyException.class)
                .hasMessageContaining("queue is full (2)");
        assertThat(refused.exchange.getMessage().getHeader("Retry-After")).isEqualTo("1");
        assertThat(refused.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).isNull();
        assertThat(balancer.queueFigures().size()).isEqualTo(2);
        assertThat(balancer.queueFigures().rejectedFull()).isEqualTo(1);
        assertThat(calls).hasSize(3);
    }

    /**
     * A full queue is not the heavy tenant's to keep: a newcomer of a tenant with fewer waiting
     * takes the place of the newest exchange of the tenant with the most (answered 429 at once, as
     * if it had found the queue full), so a light tenant is not refused because a heavy one filled
     * the queue. Between tenants about even (a difference of at most one), the newcomer is refused.
     */
    @Test
    void aFullQueueMakesRoomForALightTenantByRefusingTheHeaviestTenantsNewest() {
        start(new RoundRobinLB(), 1, 3);
        send();
        send();
        send();
        List<Sent> heavy = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            heavy.add(send(Map.of("X-Tenant", "heavy", "n", i)));
        }
        Sent light = send(Map.of("X-Tenant", "light"));
        assertThat(light.done()).as("light waits").isFalse();
        assertThat(heavy.get(2).completions.get()).as("heavy's newest refused in its place").isEqualTo(1);
        assertThat(heavy.get(2).exchange.getException()).isInstanceOf(AgentsBusyException.class)
                .hasMessageContaining("queue is full (3)");
        assertThat(heavy.get(2).exchange.getMessage().getHeader("Retry-After")).isEqualTo("1");
        assertThat(heavy.get(0).done() || heavy.get(1).done()).isFalse();
        assertThat(balancer.queueFigures().size()).isEqualTo(3);
        assertThat(balancer.queueFigures().rejectedFull()).isEqualTo(1);

        Sent secondLight = send(Map.of("X-Tenant", "light"));
        assertThat(secondLight.exchange.getException()).as("heavy 2, light 1: about even, the newcomer is refused")
                .isInstanceOf(AgentsBusyException.class);
        assertThat(heavy.get(1).done()).isFalse();
        assertThat(calls).hasSize(3);
    }

    @Test
    void anExchangeWaitingPastTheQueueTimeoutFailsWithQueueTimeoutAndReachesNoAgent() {
        start(new RoundRobinLB(), 1, 5);
        send();
        send();
        send();
        Sent early = send();
        fake.advance(Duration.ofSeconds(4));
        Sent late = send();
        fake.advance(Duration.ofMillis(5_999));
        assertThat(early.done()).isFalse();
        fake.advance(Duration.ofMillis(1));
        assertThat(early.completions.get()).isEqualTo(1);
        assertThat(early.sync).isFalse();
        assertThat(early.exchange.getException()).isInstanceOf(QueueTimeoutException.class)
                .isInstanceOf(NoAgentAvailableException.class);
        assertThat(((QueueTimeoutException) early.exchange.getException()).waitedMillis()).isEqualTo(10_000);
        assertThat(late.done()).isFalse();
        fake.advance(Duration.ofSeconds(4));
        assertThat(late.exchange.getException()).isInstanceOf(QueueTimeoutException.class);
        assertThat(balancer.queueFigures().expired()).isEqualTo(2);
        endFirstCallOf("A1");
        assertThat(calls).hasSize(2);
        assertThat(fake.pendingCount()).isZero();
    }

    @Test
    void aClientThatLeavesIsGoneAtOnceAndNoAgentEverGetsItsRequest() {
        start(new RoundRobinLB(), 1, 5);
        send();
        send();
        send();
        Sent leaving = send();
        Sent staying = send();
        QueuedExchange queued = (QueuedExchange) leaving.exchange.getProperty(AgentLb.QUEUED_PROPERTY);
        assertThat(queued.leave()).isTrue();
        assertThat(queued.leave()).isFalse();
        assertThat(leaving.completions.get()).isEqualTo(1);
        assertThat(leaving.exchange.getException()).isInstanceOf(CamelExchangeException.class)
                .hasMessageContaining("client left");
        assertThat(balancer.queueFigures().left()).isEqualTo(1);
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        endFirstCallOf("A1");
        endFirstCallOf("A2");
        assertThat(calls).hasSize(2);
        assertThat(calls.stream().map(Call::attempt).map(Exchange::getExchangeId))
                .doesNotContain(leaving.exchange.getExchangeId());
        assertThat(staying.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).isNull();
        assertThat(leaving.completions.get()).isEqualTo(1);
    }

    @Test
    void aHighBandRequestWaitsBehindNoLowBandRequest() {
        start(new RoundRobinLB(), 1, 10);
        send();
        send();
        send();
        List<Sent> low = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            low.add(send(Map.of("X-Priority", "0", "X-Tenant", "batch")));
        }
        Sent high = send(Map.of("X-Priority", "5", "X-Tenant", "chat"));
        endFirstCallOf("A1");
        assertThat(calls.get(calls.size() - 1).attempt().getIn().getHeader("X-Priority")).isEqualTo("5");
        assertThat(high.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).isNull();
        assertThat(low).allMatch(s -> s.exchange.getProperty(AgentLb.QUEUED_PROPERTY) != null);
        assertThat(balancer.queueFigures().waiting()).isEqualTo(Map.of(5, 0, 0, 4));
    }

    @Test
    void withinABandTheTenantLeastServedInTokensGoesFirst() {
        start(new RoundRobinLB(), 1, 20);
        send();
        send();
        send();
        for (int i = 0; i < 3; i++) {
            send(Map.of("X-Tenant", "heavy", Exchange.CONTENT_LENGTH, "4000"));
        }
        for (int i = 0; i < 3; i++) {
            send(Map.of("X-Tenant", "light", Exchange.CONTENT_LENGTH, "400"));
        }
        List<String> order = tenantsReleased(6);
        // Both start at 0: heavy came first (1000 tokens); light (100 each) then stays below it.
        assertThat(order).containsExactly("heavy", "light", "light", "light", "heavy", "heavy");
    }

    @Test
    void anAnswersUsageChargesItsOutputTokensToItsTenant() {
        start(new RoundRobinLB(), 1, 20);
        send();
        send();
        send();
        for (String tenant : List.of("a", "b", "a", "b")) {
            send(Map.of("X-Tenant", tenant, Exchange.CONTENT_LENGTH, "400"));
        }
        endFirstCallOf("A1");
        endFirstCallOf("A2");
        assertThat(calls.stream().map(c -> c.attempt().getIn().getHeader("X-Tenant")).toList())
                .as("a then b, 100 tokens each").containsExactly(null, "a", "b");
        Call a = calls.get(1);
        calls.remove(a);
        a.attempt().getMessage().setBody("{\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":1000}}");
        a.end();
        assertThat(calls.get(calls.size() - 1).attempt().getIn().getHeader("X-Tenant"))
                .as("a served 1100 tokens, b 100: b's second goes before a's").isEqualTo("b");
    }

    @Test
    void aReleasedKeyedRequestGoesToItsKeysAgentWhenThatAgentFrees() {
        ConsistentHashLB ch = start(new ConsistentHashLB(), 1, 5);
        Sent first = send(Map.of("user_id", "42"));
        String home = calls.get(0).agent();
        for (int i = 0; calls.size() < 3; i++) {
            send(Map.of("user_id", "other" + i));
        }
        Sent again = send(Map.of("user_id", "42"));
        assertThat(again.done()).isFalse();
        endFirstCallOf(home);
        assertThat(first.done()).isTrue();
        assertThat(calls.get(calls.size() - 1).agent()).isEqualTo(home);
        assertThat(calls.get(calls.size() - 1).attempt().getIn().getHeader("user_id")).isEqualTo("42");
        assertThat(ch.queueFigures().released()).isEqualTo(1);
    }

    @Test
    void waitingExchangesHoldNoThreadFrom10To1000Queued() {
        start(new RoundRobinLB(), 1, 2000);
        send();
        send();
        send();
        for (int i = 0; i < 10; i++) {
            send();
        }
        int threadsAt10 = ManagementFactory.getThreadMXBean().getThreadCount();
        for (int i = 0; i < 990; i++) {
            send();
        }
        int threadsAt1000 = ManagementFactory.getThreadMXBean().getThreadCount();
        assertThat(balancer.queueFigures().size()).isEqualTo(1000);
        System.out.printf("Live threads: %d with 10 exchanges queued, %d with 1000%n", threadsAt10, threadsAt1000);
        assertThat(threadsAt1000 - threadsAt10).isLessThanOrEqualTo(2);
        for (int i = 0; i < 1003; i++) {
            calls.get(0).end();
            calls.remove(0);
        }
        assertThat(calls).isEmpty();
        assertThat(balancer.queueFigures().released()).isEqualTo(1000);
    }

    @Test
    void theQueueNeedsTheLimitAndItsKnobsAreCheckedWhenTheRouteStarts() {
        RoundRobinLB lb = new RoundRobinLB();
        lb.setQueueSize(10);
        assertThat(lb.getQueueSize()).isEqualTo(10);
        assertThatThrownBy(lb::checkSettings).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queueSize=10").hasMessageContaining("maxInFlightPerAgent");
        lb.setMaxInFlightPerAgent(4);
        lb.checkSettings();
        assertThat(lb.getFlowControl().queued()).isTrue();
        assertThatThrownBy(() -> lb.setMaxInFlightPerAgent(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxInFlightPerAgent");
        assertThatThrownBy(() -> lb.setQueueTimeout("abc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queueTimeout");
        assertThatThrownBy(() -> lb.setQueueTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queueTimeout");
        assertThatThrownBy(() -> lb.setTenantHeader(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenantHeader");
    }

    @Test
    void theTenantLimitNeedsTheQueueAndIsCheckedWhenTheRouteStarts() {
        RoundRobinLB lb = new RoundRobinLB();
        lb.setMaxInFlightPerAgent(4);
        lb.setMaxInFlightPerTenant(3);
        assertThat(lb.getMaxInFlightPerTenant()).isEqualTo(3);
        assertThatThrownBy(lb::checkSettings).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxInFlightPerTenant=3").hasMessageContaining("queueSize");
        lb.setQueueSize(10);
        lb.checkSettings();
        assertThat(lb.getFlowControl().tenantLimited()).isTrue();
        assertThatThrownBy(() -> lb.setMaxInFlightPerTenant(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxInFlightPerTenant").hasMessageContaining("-1");
        assertThat(FlowControl.DISABLED.tenantLimited()).isFalse();
    }

    @Test
    void theBandIsTheIntegerPriorityHeaderElse0AndTheTenantDefaultsToTheSharedOne() {
        FlowControl flow = FlowControl.DISABLED;
        Exchange exchange = new DefaultExchange(CAMEL.get());
        assertThat(flow.bandOf(exchange)).isZero();
        assertThat(flow.tenantOf(exchange)).isEmpty();
        exchange.getIn().setHeader("X-Priority", " 7 ");
        exchange.getIn().setHeader("X-Tenant", "acme");
        assertThat(flow.bandOf(exchange)).isEqualTo(7);
        assertThat(flow.tenantOf(exchange)).isEqualTo("acme");
        exchange.getIn().setHeader("X-Priority", "high");
        assertThat(flow.bandOf(exchange)).isZero();
        exchange.getIn().setBody("x".repeat(401));
        assertThat(FlowControl.promptTokens(exchange)).isEqualTo(101);
        exchange.getIn().setHeader(Exchange.CONTENT_LENGTH, "8000");
        assertThat(FlowControl.promptTokens(exchange)).isEqualTo(2000);
    }

    @Test
    void eachKnobReadsBackAsSetAndTheLimitAloneMakesAgentsLimited() {
        RoundRobinLB lb = new RoundRobinLB();
        assertThat(lb.getFlowControl().limited()).as("no limit by default").isFalse();
        lb.setMaxInFlightPerAgent(3);
        assertThat(lb.getMaxInFlightPerAgent()).isEqualTo(3);
        assertThat(lb.getFlowControl().limited()).isTrue();
        lb.setQueueTimeout("250ms");
        assertThat(lb.getQueueTimeout()).isEqualTo(Duration.ofMillis(250));
        lb.setPriorityHeader("X-Band");
        assertThat(lb.getPriorityHeader()).isEqualTo("X-Band");

        FlowControl whole = FlowControl.DISABLED.withMaxInFlightPerAgent(2).withQueueSize(5);
        lb.setFlowControl(whole);

        assertThat(lb.getFlowControl()).isEqualTo(whole);
        assertThat(whole.checkRelation()).isSameAs(whole);
        assertThatThrownBy(() -> lb.setFlowControl(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aNumericPriorityHeaderIsTheBandAndAContentLengthOfZeroMeansAnEmptyPrompt() {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader("X-Priority", 3);
        assertThat(FlowControl.DISABLED.bandOf(exchange)).isEqualTo(3);

        exchange.getIn().setBody("x".repeat(400));
        exchange.getIn().setHeader(Exchange.CONTENT_LENGTH, 0);
        assertThat(FlowControl.promptTokens(exchange)).as("the header, not the body's 100").isZero();
    }

    /** Bands come from clients' headers: the per-band series are bounded, the rest counted in band "all" only. */
    @Test
    void atMost16BandsGetAGaugeOfTheirOwn() {
        start(new RoundRobinLB(), 1, 100);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        send();
        send();
        send();
        for (int band = 1; band <= 40; band++) {
            send(Map.of("X-Priority", Integer.toString(band * 1000)));
            registry.get(LoadBalancerMetrics.QUEUE_WAITING).tag("band", "all").gauge().value(); // a scrape
        }
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_WAITING).tag("band", "all").gauge().value()).isEqualTo(40);
        assertThat(registry.find(LoadBalancerMetrics.QUEUE_WAITING).gauges()).hasSize(1 + LoadBalancerMetrics.MAX_BAND_GAUGES);
        assertThat(LoadBalancerMetrics.MAX_BAND_GAUGES).isEqualTo(16);
    }

    @Test
    void metricsShowTheQueueByBandAndWhyExchangesLeftIt() {
        start(new RoundRobinLB(), 1, 2);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        send();
        send();
        send();
        send(Map.of("X-Priority", "3"));
        Sent leaving = send();
        send();
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_WAITING).tag("band", "all").gauge().value()).isEqualTo(2);
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_WAITING).tag("band", "3").gauge().value()).isEqualTo(1);
        ((QueuedExchange) leaving.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).leave();
        fake.advance(Duration.ofSeconds(2));
        endFirstCallOf("A1");
        fake.advance(Duration.ofSeconds(10));
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_REJECTED).tag("reason", "full").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_REJECTED).tag("reason", "left").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_REJECTED).tag("reason", "expired").functionCounter().count()).isZero();
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_RELEASED).functionCounter().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_WAIT).functionCounter().count()).isEqualTo(2.0);
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_WAIT_MAX).gauge().value()).isEqualTo(2.0);
        assertThat(registry.get(LoadBalancerMetrics.QUEUE_WAITING).tag("band", "3").gauge().value()).isZero();
    }

    /**
     * A request without a body (a GET, an MCP call by header) has no prompt to count, yet it holds
     * an agent's place: it is charged the mean prompt estimate of the requests with one that waited
     * (1 token before any did), never nothing. Else a tenant of GETs is always the least served and
     * goes ahead of every tenant that sends prompts, however many it sends.
     */
    @Test
    void aRequestWithoutABodyIsChargedTheMeanPromptNotNothing() {
        start(new RoundRobinLB(), 1, 20);
        send();
        send();
        send();
        send(Map.of("X-Tenant", "light", Exchange.CONTENT_LENGTH, "400"));
        for (int i = 0; i < 4; i++) {
            send(Map.of("X-Tenant", "gets"));
        }
        send(Map.of("X-Tenant", "light", Exchange.CONTENT_LENGTH, "400"));
        List<String> order = tenantsReleased(6);
        // 100 tokens each, GETs too: light's second goes after two GETs, not after all four.
        assertThat(order).containsExactly("light", "gets", "gets", "light", "gets", "gets");
    }

    /** With no request with a body waiting yet, a request without one costs 1 token: tenants of GETs take turns. */
    @Test
    void tenantsOfRequestsWithoutABodyTakeTurns() {
        start(new RoundRobinLB(), 1, 20);
        send();
        send();
        send();
        for (int i = 0; i < 3; i++) {
            send(Map.of("X-Tenant", "a"));
        }
        for (int i = 0; i < 3; i++) {
            send(Map.of("X-Tenant", "b"));
        }
        List<String> order = tenantsReleased(6);
        assertThat(order).containsExactly("a", "b", "a", "b", "a", "b");
    }

    @Test
    void theTenantMayBeAnyExpressionSuchAsOneOverTheApiKey() {
        RoundRobinLB lb = new RoundRobinLB();
        lb.setTenant(ExpressionBuilder.simpleExpression("key-${header.X-Api-Key}"), "apiKey");
        start(lb, 1, 10);
        send();
        send();
        send();
        send(Map.of("X-Api-Key", "b", Exchange.CONTENT_LENGTH, "40"));
        send(Map.of("X-Api-Key", "b", Exchange.CONTENT_LENGTH, "40"));
        send(Map.of("X-Api-Key", "a", Exchange.CONTENT_LENGTH, "4"));
        assertThat(lb.getTenantHeader()).isEqualTo("apiKey");
        endFirstCallOf("A1");
        endFirstCallOf("A2");
        // b1 first (came first, both at 0), then a (0 < b's 10), then b2.
        assertThat(calls.subList(1, 3).stream().map(c -> c.attempt().getIn().getHeader("X-Api-Key")))
                .containsExactly("b", "a");
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
    }

    /**
     * A tenant expression that fails on a request (a user's bean, a missing value it does not
     * expect) fails that exchange with its exception, at once: never an exchange left without an
     * answer, as Camel's reactive executor would leave one whose processor threw.
     */
    @Test
    void aTenantExpressionThatThrowsFailsTheExchangeNotLeavesItWaiting() {
        RoundRobinLB lb = new RoundRobinLB();
        lb.setTenant(new org.apache.camel.support.ExpressionAdapter() {
            @Override
            public Object evaluate(Exchange exchange) {
                throw new IllegalStateException("no tenant in this request");
            }
        }, "failing");
        lb.setMaxInFlightPerTenant(1);
        start(lb, 1, 10);
        Sent sent = send();
        assertThat(sent.completions.get()).as("answered once, at once").isEqualTo(1);
        assertThat(sent.exchange.getException()).isInstanceOf(IllegalStateException.class).hasMessage("no tenant in this request");
        assertThat(calls).isEmpty();
    }

    /** Not only a RuntimeException: a checked exception thrown sneakily (as Kotlin may) or an Error fails the exchange too. */
    @Test
    void aTenantExpressionThatThrowsACheckedExceptionOrAnErrorFailsTheExchangeToo() {
        for (Throwable thrown : List.of(new java.io.IOException("tenant store down"), new AssertionError("no tenant"))) {
            RoundRobinLB lb = new RoundRobinLB();
            lb.setTenant(new org.apache.camel.support.ExpressionAdapter() {
                @Override
                public Object evaluate(Exchange exchange) {
                    return FlowControlTest.<RuntimeException>sneaky(thrown);
                }
            }, "failing");
            start(lb, 1, 10);
            send();
            send();
            send();
            Sent sent = send(); // every agent full: it would wait, so its tenant is read
            assertThat(sent.completions.get()).as(thrown.toString()).isEqualTo(1);
            Exception failure = sent.exchange.getException(); // Camel wraps an Error
            assertThat(failure == thrown || failure.getCause() == thrown).as(String.valueOf(failure)).isTrue();
            balancer.stop();
            balancer = null;
            calls.clear();
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> Object sneaky(Throwable t) throws E {
        throw (E) t;
    }

    /**
     * A tenant header is read as it is: it must be a header name that can match, and the simple
     * language is refused (it would name the header by the value read); an expression is {@code setTenant}'s.
     */
    @Test
    void aTenantHeaderThatCanMatchNoHeaderIsRefused() {
        RoundRobinLB lb = new RoundRobinLB();
        assertThatThrownBy(() -> lb.setTenantHeader("X Tenant")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tenantHeader must be a header name (RFC 9110 token), was 'X Tenant'");
        assertThatThrownBy(() -> lb.setTenantHeader("X-Tenant:")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tenantHeader must be a header name (RFC 9110 token), was 'X-Tenant:'");
        assertThatThrownBy(() -> lb.setTenantHeader("${header.X-Tenant}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tenantHeader must name a header, not be an expression of its own (for a value computed from"
                        + " the request, its expression knob), was '${header.X-Tenant}'");
        lb.setTenantHeader("org-${header.X-Env}");
        assertThat(lb.getTenantHeader()).isEqualTo("org-${header.X-Env}");
        lb.setTenantHeader("X-Org");
        assertThat(lb.getTenantHeader()).isEqualTo("X-Org");
    }

    @Test
    void stoppingTheBalancerFailsTheExchangesStillWaiting() {
        start(new RoundRobinLB(), 1, 5);
        send();
        send();
        send();
        Sent waiting = send();
        balancer.stop();
        balancer = null;
        assertThat(waiting.completions.get()).isEqualTo(1);
        assertThat(waiting.exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("stopped");
    }

    @Test
    void afterARestartAnExchangeWithRoomGoesStraightThroughNotThroughTheQueue() {
        start(new RoundRobinLB(), 1, 5);
        send();
        send();
        send();
        send();
        balancer.stop();
        balancer.start();
        balancer.addAgent("A4", ScriptedChild.scripted("A4", (attempt, callback) -> {
            calls.add(new Call("A4", attempt, callback));
            return false;
        }), 1);
        long released = balancer.queueFigures().released();

        Sent next = send();

        assertThat(agentsCalled()).as("the three calls of before the stop, then the new agent's")
                .containsExactly("A1", "A2", "A3", "A4");
        assertThat(next.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).isNull();
        assertThat(balancer.queueFigures().released()).as("never queued").isEqualTo(released);
    }
}
