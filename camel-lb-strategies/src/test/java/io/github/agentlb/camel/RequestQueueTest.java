package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.FlowControlTest.Call;
import io.github.agentlb.camel.FlowControlTest.Sent;
import io.github.agentlb.core.queue.UsageTokens;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.testing.FakeScheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue's edges that {@link FlowControlTest} leaves out: agents that answer on the caller's
 * thread, a capacity that grows while exchanges wait, expiry found by an arrival rather than the
 * timer, and the gate's count after each way out of the queue; calls and sent exchanges as there.
 * The balancer's clock and the queue's timer are separate fakes, so an arrival can find a
 * deadline passed before the timer runs.
 */
class RequestQueueTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private final FakeScheduler timer = new FakeScheduler(1_000_000_000L);
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    /** Whether the agents answer at once, on the caller's thread, rather than hold the request. */
    private volatile boolean answerAtOnce;
    /** The agents that answer at once with 429 and {@code Retry-After: 5}. */
    private volatile Set<String> busy = Set.of();
    /** The agent whose connection is refused, if any. */
    private volatile String refusing;
    /** More agents whose connections are refused, and how many were. */
    private volatile Set<String> failing = Set.of();
    private final java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
    private RoundRobinLB balancer;
    private final java.util.concurrent.atomic.AtomicInteger busyAnswers = new java.util.concurrent.atomic.AtomicInteger();

    @AfterEach
    void stop() {
        if (balancer != null) {
            balancer.stop();
        }
    }

    private void start(int maxInFlight, int queueSize) {
        start(maxInFlight, queueSize, 0);
    }

    private void start(int maxInFlight, int queueSize, int maxInFlightPerTenant) {
        start(maxInFlight, queueSize, maxInFlightPerTenant, "A1", "A2", "A3");
    }

    private void start(int maxInFlight, int queueSize, int maxInFlightPerTenant, String... agents) {
        balancer = new RoundRobinLB();
        balancer.setMaxInFlightPerAgent(maxInFlight);
        balancer.setQueueSize(queueSize);
        balancer.setMaxInFlightPerTenant(maxInFlightPerTenant);
        balancer.setQueueTimeout(Duration.ofSeconds(10));
        balancer.useQueueTimer(timer);
        ScriptedChild.startedAgents(balancer, CAMEL.get(), clock::get, this::agent, agents);
    }

    private ScriptedChild agent(String id) {
        return ScriptedChild.scripted(id, (attempt, callback) -> {
                    if (busy.contains(id)) {
                        busyAnswers.incrementAndGet();
                        attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
                        attempt.getMessage().setHeader("Retry-After", "5");
                        callback.done(true);
                        return true;
                    }
                    if (id.equals(refusing) || failing.contains(id)) {
                        refused.incrementAndGet();
                        attempt.setException(new java.net.ConnectException("Connection refused"));
                        callback.done(true);
                        return true;
                    }
                    if (answerAtOnce) {
                        attempt.getMessage().setBody(id);
                        callback.done(true);
                        return true;
                    }
                    calls.add(new Call(id, attempt, callback));
                    return false;
                });
    }

    private Sent send(Map<String, Object> headers) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        headers.forEach(exchange.getIn()::setHeader);
        Sent sent = new Sent(exchange);
        sent.returned = balancer.process(exchange, doneSync -> {
            sent.completions.incrementAndGet();
            sent.sync = doneSync;
        });
        return sent;
    }

    private Sent send() {
        return send(Map.of());
    }

    private void fillTheAgents() {
        for (int i = 0; i < 3; i++) {
            assertThat(send().returned).isFalse();
        }
        assertThat(calls).hasSize(3);
    }

    private void endFirstCall() {
        calls.remove(0).end();
    }

    /**
     * Long-lived streams are no load: with every agent at its limit and an exchange waiting, a
     * legacy MCP session stream ({@code GET} with {@code Mcp-Session-Id}) and a 2026-07-28
     * {@code subscriptions/listen} go to an agent at once, past the gate and the limit, and take no
     * place: the next answer's place goes to the exchange that waited.
     */
    @Test
    void longLivedStreamsPassTheQueueAndTheLimitAndTakeNoPlace() {
        start(1, 5);
        fillTheAgents();
        Sent waiting = send();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        Sent legacy = send(Map.of(Exchange.HTTP_METHOD, "GET", "Mcp-Session-Id", "s-1"));
        Sent listen = send(Map.of("Mcp-Method", "subscriptions/listen", "MCP-Protocol-Version", "2026-07-28"));
        assertThat(calls).hasSize(5);
        assertThat(calls.subList(3, 5)).extracting(c -> c.attempt().getIn().getHeader(Exchange.HTTP_METHOD))
                .containsExactly("GET", "POST");
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        assertThat(balancer.queueFigures().admitted()).isEqualTo(3);
        endFirstCall();
        assertThat(balancer.queueFigures().size()).isZero();
        assertThat(calls).hasSize(5);
        assertThat(legacy.done() || listen.done() || waiting.done()).isFalse();
    }

    /**
     * With room at the gate and nobody waiting, an exchange goes straight to an agent: the agent's
     * synchronous answer is the balancer's, and nothing is counted as released from the queue.
     */
    private void theNextExchangeGoesStraightThrough() {
        long released = balancer.queueFigures().released();
        answerAtOnce = true;
        Sent next = send();
        answerAtOnce = false;
        assertThat(next.returned).isTrue();
        assertThat(next.sync).isTrue();
        assertThat(next.completions.get()).isEqualTo(1);
        assertThat(next.exchange.getException()).isNull();
        assertThat(balancer.queueFigures().released()).isEqualTo(released);
    }

    @Test
    void anAgentThatAnswersAtOnceMakesTheBalancerAnswerSynchronously() {
        start(1, 5);
        answerAtOnce = true;
        Sent sent = send();
        assertThat(sent.returned).isTrue();
        assertThat(sent.sync).isTrue();
        assertThat(sent.completions.get()).isEqualTo(1);
        assertThat(sent.exchange.getMessage().getBody()).isEqualTo("A1");
        assertThat(balancer.queueFigures().admitted()).isZero();
    }

    @Test
    void aReleasedExchangeIsToldAsynchronouslyEvenWhenItsAgentAnswersAtOnce() {
        start(1, 5);
        fillTheAgents();
        Sent waiting = send();
        assertThat(waiting.returned).isFalse();
        answerAtOnce = true;
        endFirstCall();
        assertThat(waiting.completions.get()).isEqualTo(1);
        assertThat(waiting.sync).isFalse();
        assertThat(waiting.exchange.getMessage().getBody()).isEqualTo("A1");
        assertThat(balancer.queueFigures().released()).isEqualTo(1);
        assertThat(balancer.queueFigures().admitted()).isEqualTo(2);
    }

    /**
     * An agent that rests after a busy answer takes no request, so the gate's room is that of the
     * others: with A3 resting and A1, A2 at their limit, the next exchanges wait in the queue (they
     * were let through and answered 429 at once), and go to A1 as it frees.
     */
    @Test
    void aRestingAgentsPlacesAreNotRoomAtTheGate() {
        start(1, 5);
        busy = Set.of("A3");
        answerAtOnce = true;
        for (int i = 0; i < 3; i++) {
            send();
        }
        answerAtOnce = false;
        busy = Set.of();
        assertThat(send().returned).isFalse();
        assertThat(send().returned).isFalse();
        assertThat(calls).extracting(Call::agent).containsExactlyInAnyOrder("A1", "A2");
        Sent waiting = send();
        Sent last = send();
        assertThat(waiting.returned).isFalse();
        assertThat(waiting.completions.get()).as("waits rather than 429").isZero();
        assertThat(last.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(2);
        String freed = calls.get(0).agent();
        endFirstCall();
        assertThat(calls).hasSize(2);
        assertThat(calls.get(1).agent()).isEqualTo(freed);
        assertThat(calls.get(1).attempt().getExchangeId()).isEqualTo(waiting.exchange.getExchangeId());
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
    }

    /**
     * An exchange let through whose agent answers 429 while the others are at their limit waits in
     * the queue again rather than take the 429: its place goes back to the gate, and it goes to the
     * next agent that frees (A3 rests), with the deadline of its first arrival.
     */
    @Test
    void aBusyAnswerAfterTheGateSendsTheExchangeBackToWait() {
        start(1, 5);
        send(Map.of("n", 1));
        send(Map.of("n", 2));
        busy = Set.of("A3");
        Sent third = send(Map.of("n", 3));
        busy = Set.of();
        assertThat(third.returned).isFalse();
        assertThat(third.completions.get()).as("waits rather than 429").isZero();
        assertThat(third.exchange.getException()).isNull();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        assertThat(balancer.queueFigures().admitted()).isEqualTo(2);
        String freed = calls.get(0).agent();
        endFirstCall();
        assertThat(calls).hasSize(2);
        assertThat(calls.get(1).agent()).isEqualTo(freed);
        assertThat(calls.get(1).attempt().getIn().getHeader("n")).isEqualTo(3);
        assertThat(calls.get(1).attempt().getIn().getHeader(Exchange.HTTP_RESPONSE_CODE)).isNull();
        endFirstCall();
        endFirstCall();
        assertThat(third.completions.get()).isEqualTo(1);
        assertThat(third.sync).isFalse();
        assertThat(third.exchange.getException()).isNull();
        assertThat(third.exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isNull();
        assertThat(balancer.queueFigures().admitted()).isZero();
        assertThat(balancer.queueFigures().released()).isEqualTo(1);
    }

    /** Sent back to wait, an exchange keeps the deadline of its first arrival (the queue timeout is 10 s). */
    @Test
    void anExchangeSentBackToWaitExpiresAtItsFirstDeadline() {
        start(1, 5);
        send();
        send();
        Sent third = send();
        assertThat(calls).hasSize(3);
        clock.addAndGet(Duration.ofSeconds(6).toNanos());
        timer.advance(Duration.ofSeconds(6));
        answerBusy(calls.remove(2));
        assertThat(third.completions.get()).as("waits rather than 429").isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        clock.addAndGet(Duration.ofSeconds(4).toNanos());
        timer.advance(Duration.ofSeconds(4));
        assertThat(third.completions.get()).isEqualTo(1);
        assertThat(third.exchange.getException()).isInstanceOf(QueueTimeoutException.class);
        assertThat(balancer.queueFigures().expired()).isEqualTo(1);
        assertThat(balancer.queueFigures().admitted()).isEqualTo(2);
    }

    /**
     * When an agent's rest ends, the gate lets two waiting exchanges through at once; the first
     * meets a busy answer again (the agent rests again) and the second then finds no agent with
     * room without an answer of its own: both wait again rather than take a 429.
     */
    @Test
    void anExchangeLetThroughThatFindsNoAgentWithRoomWaitsAgain() {
        start(2, 10);
        busy = Set.of("A3");
        send(Map.of("n", 1));
        send(Map.of("n", 2));
        send(Map.of("n", 3)); // A3 429: A3 rests 5 s, the exchange goes to A1
        send(Map.of("n", 4));
        assertThat(calls).hasSize(4);
        Sent fifth = send(Map.of("n", 5));
        Sent sixth = send(Map.of("n", 6));
        assertThat(balancer.queueFigures().size()).isEqualTo(2);
        clock.addAndGet(Duration.ofSeconds(6).toNanos()); // A3's rest over: two more places at the gate
        Sent seventh = send(Map.of("n", 7));
        for (Sent waiting : List.of(fifth, sixth, seventh)) {
            assertThat(waiting.completions.get()).as("waits rather than 429").isZero();
        }
        assertThat(balancer.queueFigures().size()).isEqualTo(3);
        assertThat(balancer.queueFigures().admitted()).isEqualTo(4);
        busy = Set.of();
        while (!calls.isEmpty()) {
            endFirstCall();
        }
        for (Sent waiting : List.of(fifth, sixth, seventh)) {
            assertThat(waiting.completions.get()).isEqualTo(1);
            assertThat(waiting.exchange.getException()).isNull();
            assertThat(waiting.exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isNull();
        }
    }

    /** Past its deadline, an exchange whose agent answers busy takes the busy answer. */
    @Test
    void aBusyAnswerPastTheDeadlineIsTheClientsAnswer() {
        start(1, 5);
        send();
        send();
        Sent third = send();
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        answerBusy(calls.remove(2));
        assertThat(third.completions.get()).isEqualTo(1);
        assertThat(third.exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(balancer.queueFigures().size()).isZero();
        assertThat(balancer.queueFigures().admitted()).isEqualTo(2);
    }

    /** When every agent answered busy (all rest), the exchange takes the busy answer rather than wait. */
    @Test
    void whenEveryAgentAnsweredBusyTheExchangeTakesThe429() {
        start(1, 5);
        busy = Set.of("A1", "A2", "A3");
        Sent first = send();
        assertThat(first.returned).isTrue();
        assertThat(first.completions.get()).isEqualTo(1);
        assertThat(first.exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(balancer.queueFigures().size()).isZero();
        assertThat(balancer.queueFigures().admitted()).isZero();
    }

    /** A full queue leaves the busy answer to the client. */
    @Test
    void withTheQueueFullTheBusyAnswerIsTheClients() {
        start(1, 1);
        send();
        send();
        Sent third = send();
        Sent fourth = send();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        answerBusy(calls.remove(2));
        assertThat(third.completions.get()).isEqualTo(1);
        assertThat(third.exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(fourth.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
    }

    /**
     * A client's own {@code x-should-retry} and {@code Retry-After} (response headers sent in a
     * request) never come back with the queue's answers: full (429, the balancer's
     * {@code Retry-After: 1}), timed out (503) and stopped.
     */
    @Test
    void theQueuesAnswersCarryNoResponseHeadersOfTheClients() throws Exception {
        start(1, 1);
        Map<String, Object> echoes = Map.of("x-should-retry", "true", "Retry-After", "999");
        send();
        send();
        send();
        Sent waiting = send(echoes);
        Sent full = send(echoes);
        assertThat(full.exchange.getException()).isInstanceOf(AgentsBusyException.class);
        assertThat(full.exchange.getMessage().getHeaders()).doesNotContainKey("x-should-retry");
        assertThat(full.exchange.getMessage().getHeader("Retry-After")).as("the balancer's").isEqualTo("1");
        clock.addAndGet(Duration.ofSeconds(11).toNanos());
        timer.advance(Duration.ofSeconds(11));
        assertThat(waiting.exchange.getException()).isInstanceOf(QueueTimeoutException.class);
        assertThat(waiting.exchange.getMessage().getHeaders()).doesNotContainKeys("x-should-retry", "Retry-After");

        Sent stopped = send(echoes);
        balancer.stop();
        assertThat(stopped.exchange.getException()).isInstanceOf(NoAgentAvailableException.class);
        assertThat(stopped.exchange.getMessage().getHeaders()).doesNotContainKeys("x-should-retry", "Retry-After");
    }

    /**
     * Nor do the queue's other answers: no agent left to try, a tenant that cannot be read, the
     * context stopping, the client gone.
     */
    @Test
    void theQueuesOtherAnswersCarryNoResponseHeadersOfTheClients() throws Exception {
        Map<String, Object> echoes = Map.of("x-should-retry", "true", "Retry-After", "999");
        start(1, 5);
        failing = Set.of("A1", "A2", "A3");
        answerAtOnce = true;
        send();
        answerAtOnce = false;
        failing = Set.of();
        send();
        Sent none = send(echoes);
        assertThat(none.exchange.getException()).isExactlyInstanceOf(NoAgentAvailableException.class);
        assertThat(none.exchange.getMessage().getHeaders()).doesNotContainKeys("x-should-retry", "Retry-After");
        balancer.stop();

        startWithATenantThatThrows();
        Sent unreadable = send(echoes);
        assertThat(unreadable.exchange.getException()).hasMessage("no tenant");
        assertThat(unreadable.exchange.getMessage().getHeaders()).doesNotContainKeys("x-should-retry", "Retry-After");
        balancer.stop();

        calls.clear();
        CamelContext own = new DefaultCamelContext();
        oneWaitingIn(own);
        own.stop();
        Sent late = send(echoes);
        assertThat(late.exchange.getException()).isInstanceOf(NoAgentAvailableException.class).hasMessageContaining("stopping");
        assertThat(late.exchange.getMessage().getHeaders()).doesNotContainKeys("x-should-retry", "Retry-After");

        calls.clear();
        start(1, 5);
        fillTheAgents();
        Sent leaving = send(echoes);
        assertThat(((QueuedExchange) leaving.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).leave()).isTrue();
        assertThat(leaving.exchange.getException()).hasMessageContaining("client left");
        assertThat(leaving.exchange.getMessage().getHeaders()).doesNotContainKeys("x-should-retry", "Retry-After");
    }

    /** Sent back to wait, an exchange gives its tenant's place back: it is released under its tenant's limit. */
    @Test
    void anExchangeSentBackToWaitGivesItsTenantsPlaceBack() {
        start(1, 5, 1);
        answerAtOnce = true;
        send(Map.of("X-Tenant", "other"));
        answerAtOnce = false;
        send(Map.of("X-Tenant", "U"));
        send(Map.of("X-Tenant", "V"));
        Sent w = send(Map.of("X-Tenant", "W", "n", 1));
        answerBusy(calls.remove(2));
        assertThat(w.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        String freed = calls.get(0).agent();
        endFirstCall();
        assertThat(calls).hasSize(2);
        assertThat(calls.get(1).attempt().getIn().getHeader("n")).isEqualTo(1);
        assertThat(calls.get(1).agent()).isEqualTo(freed);
    }

    /** Ends a held call with a busy answer: 429, {@code Retry-After: 30}. */
    private static void answerBusy(Call call) {
        call.attempt().getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
        call.attempt().getMessage().setHeader("Retry-After", "30");
        call.end();
    }

    /** With every agent resting, the exchange gets at once what it gets without a queue: the 429 with the rest left. */
    @Test
    void withEveryAgentRestingTheExchangeIsNotQueuedButAnswered429() {
        start(1, 5);
        busy = Set.of("A1", "A2", "A3");
        send();
        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        Sent next = send();
        assertThat(next.returned).isTrue();
        assertThat(next.exchange.getException()).isInstanceOf(AgentsBusyException.class);
        assertThat(((AgentsBusyException) next.exchange.getException()).retryAfterSeconds()).isEqualTo(4);
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /** An ejected agent (its connection refused) is no room at the gate either, until its ejection ends. */
    @Test
    void anEjectedAgentsPlacesAreNotRoomAtTheGate() {
        start(1, 5);
        refusing = "A1";
        answerAtOnce = true;
        send();
        answerAtOnce = false;
        refusing = null;
        assertThat(send().returned).isFalse();
        assertThat(send().returned).isFalse();
        assertThat(calls).extracting(Call::agent).containsExactlyInAnyOrder("A2", "A3");
        Sent waiting = send();
        assertThat(waiting.completions.get()).as("waits rather than 429").isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
    }

    /**
     * Nothing ends and nothing arrives, but an agent's rest after a busy answer ends: the exchange
     * waiting goes to it then, not at its queue deadline.
     */
    @Test
    void anExchangeWaitingGoesWhenAnAgentsRestEnds() {
        start(1, 5);
        busy = Set.of("A3");
        answerAtOnce = true;
        for (int i = 0; i < 3; i++) {
            send();
        }
        answerAtOnce = false;
        busy = Set.of();
        send();
        send();
        Sent waiting = send();
        assertThat(waiting.completions.get()).isZero();
        assertThat(calls).hasSize(2);

        clock.addAndGet(Duration.ofSeconds(5).toNanos());
        timer.advance(Duration.ofSeconds(5));

        assertThat(calls).hasSize(3);
        assertThat(calls.get(2).agent()).isEqualTo("A3");
        assertThat(calls.get(2).attempt().getExchangeId()).isEqualTo(waiting.exchange.getExchangeId());
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * Starts {@code own} with a balancer of one place per agent over three agents, fills them, and
     * sends one more exchange.
     *
     * @return that exchange, waiting
     */
    private Sent oneWaitingIn(CamelContext own) {
        own.start();
        balancer = new RoundRobinLB();
        balancer.setMaxInFlightPerAgent(1);
        balancer.setQueueSize(5);
        balancer.useQueueTimer(timer);
        ScriptedChild.startedAgents(balancer, own, clock::get, this::agent, "A1", "A2", "A3");
        fillTheAgents();
        return send();
    }

    /**
     * The exchanges waiting are answered as soon as the context begins to stop (a SIGTERM's graceful
     * shutdown), while their clients' connections are open, not when its shutdown timeout ends; no
     * agent gets them.
     */
    @Test
    void theWaitingAreAnsweredWhenTheContextBeginsToStop() throws Exception {
        CamelContext own = new DefaultCamelContext();
        Sent waiting = oneWaitingIn(own);
        assertThat(waiting.completions.get()).isZero();

        own.stop();

        assertThat(waiting.completions.get()).isEqualTo(1);
        assertThat(waiting.exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("stopped");
        assertThat(calls).hasSize(3);
        assertThat(balancer.queueFigures().size()).isZero();
        Sent late = send();
        assertThat(late.completions.get()).as("nothing waits while the context stops").isEqualTo(1);
        assertThat(late.exchange.getException()).isInstanceOf(NoAgentAvailableException.class).hasMessageContaining("stopping");
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * An exchange goes back to wait once after a busy answer: when its agent answers busy again as
     * soon as its rest ends, that 429 is the client's (with its Retry-After), not another wait for
     * every rest until the queue's deadline.
     */
    @Test
    void anExchangeWaitsAgainOnceAfterABusyAnswerThenTakesTheNext() {
        start(1, 5);
        busy = Set.of("A3");
        send();
        send();
        Sent third = send();
        assertThat(busyAnswers.get()).isEqualTo(1);
        assertThat(third.completions.get()).as("waits again after A3's 429").isZero();

        clock.addAndGet(Duration.ofSeconds(5).toNanos());
        timer.advance(Duration.ofSeconds(5));

        assertThat(busyAnswers.get()).isEqualTo(2);
        assertThat(third.completions.get()).isEqualTo(1);
        assertThat(third.exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(third.exchange.getMessage().getHeader("Retry-After")).isEqualTo("5");
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        timer.advance(Duration.ofSeconds(10));
        assertThat(busyAnswers.get()).isEqualTo(2);
    }

    /**
     * An exchange whose attempts failed does not wait again: it tried once each agent that could
     * take it (maximumFailoverAttempts -1: every agent once), and let through again it would go
     * back to those that failed. The agent it passed over as full makes its answer a 429.
     */
    @Test
    void anExchangeWhoseAttemptsFailedDoesNotWaitAgain() {
        start(1, 5);
        balancer.setQueueTimeout(Duration.ofSeconds(60));
        send();
        assertThat(calls).extracting(Call::agent).containsExactly("A1");
        failing = Set.of("A2", "A3");
        Sent failed = send();

        assertThat(refused.get()).as("A2 and A3 once each").isEqualTo(2);
        assertThat(failed.completions.get()).as("answered at once").isEqualTo(1);
        assertThat(failed.exchange.getException()).isInstanceOf(AgentsBusyException.class);
        assertThat(balancer.queueFigures().size()).isZero();
        calls.get(0).end();
        clock.addAndGet(Duration.ofSeconds(60).toNanos());
        timer.advance(Duration.ofSeconds(60));
        assertThat(refused.get()).as("no agent called again").isEqualTo(2);
        assertThat(failed.completions.get()).isEqualTo(1);
    }

    /** A request its one agent alone may serve (here the only member) does not wait again after its busy answer. */
    @Test
    void aBusyAnswerOfTheOnlyAgentIsTheClientsAtOnce() {
        start(1, 5, 0, "A1");
        busy = Set.of("A1");
        Sent sent = send();
        assertThat(sent.completions.get()).isEqualTo(1);
        assertThat(sent.exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(busyAnswers.get()).isEqualTo(1);
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * An MCP handle's call may go to its ring owner alone: the owner's 429 is the client's at once,
     * with its Retry-After, while the other agents have room; it does not wait for the owner's rest.
     */
    @Test
    void aHandlesBusyAnswerIsTheClientsAtOnce() {
        ConsistentHashLB ch = new ConsistentHashLB();
        ch.setKeys("mcp-param:handle");
        ch.setMaxInFlightPerAgent(1);
        ch.setQueueSize(5);
        ch.useQueueTimer(timer);
        ScriptedChild.startedAgents(ch, CAMEL.get(), clock::get, this::agent, "A1", "A2", "A3");
        try {
            String handle = null;
            for (int i = 0; handle == null; i++) {
                handle = ch.ring().agentFor("mcp-param:handle:h-" + i).equals("A1") ? "h-" + i : null;
            }
            busy = Set.of("A1");
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeaders(new java.util.HashMap<>(Map.of(Exchange.HTTP_METHOD, "POST",
                    "MCP-Protocol-Version", "2026-07-28", "Mcp-Param-Handle", handle)));
            java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
            ch.process(exchange, sync -> done.incrementAndGet());

            assertThat(done.get()).isEqualTo(1);
            assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
            assertThat(exchange.getMessage().getHeader("Retry-After")).isEqualTo("5");
            assertThat(busyAnswers.get()).isEqualTo(1);
            assertThat(ch.queueFigures().size()).isZero();
        } finally {
            ch.stop();
        }
    }

    /**
     * One agent in flight each: A1 refuses a connection and is ejected, A2 and A3 take an exchange
     * each, and the fourth waits.
     *
     * @return the exchange waiting
     */
    private Sent anExchangeWaitingWhileA1IsEjected() {
        start(1, 5);
        balancer.setQueueTimeout(Duration.ofSeconds(60));
        refusing = "A1";
        answerAtOnce = true;
        send();
        answerAtOnce = false;
        refusing = null;
        send();
        send();
        Sent waiting = send();
        assertThat(calls).hasSize(2);
        return waiting;
    }

    /**
     * The queue holds exchanges while agents are full, not while every agent fails: once no agent
     * is left to try (each ejected or failing: the detector keeps the last one in, failing), the
     * exchanges waiting are answered when the next exchange completes, with no agent called for
     * them. Before, they went one at a time to the failing agent kept in: 30 GETs over three agents
     * closing each connection, one place each, ended one about every 0.9 s, the last after 24 s.
     */
    @Test
    void theWaitingAreAnsweredOnceNoAgentIsLeftToTry() {
        start(1, 5);
        balancer.setQueueTimeout(Duration.ofSeconds(60));
        failing = Set.of("A1", "A2");
        answerAtOnce = true;
        send();
        answerAtOnce = false;
        failing = Set.of();
        Sent onA3 = send();
        Sent first = send();
        Sent second = send();
        assertThat(calls).extracting(Call::agent).containsExactly("A3");
        assertThat(balancer.queueFigures().size()).isEqualTo(2);

        Call call = calls.remove(0);
        call.attempt().setException(new java.io.IOException("Connection reset")); // a POST sent: not tried again
        call.end();

        assertThat(onA3.completions.get()).isEqualTo(1);
        for (Sent waiting : List.of(first, second)) {
            assertThat(waiting.completions.get()).as("answered at once").isEqualTo(1);
            assertThat(waiting.exchange.getException()).isExactlyInstanceOf(NoAgentAvailableException.class)
                    .hasMessageContaining("does not wait");
            assertThat(((NoAgentAvailableException) waiting.exchange.getException()).ejectedAgents())
                    .containsExactlyInAnyOrder("A1", "A2");
        }
        assertThat(calls).isEmpty();
        assertThat(balancer.queueFigures().size()).isZero();
        assertThat(balancer.queueFigures().expired()).isEqualTo(2);

        send(); // nobody waits now: the place the failing agent kept in has goes to the next arrival
        assertThat(calls).extracting(Call::agent).containsExactly("A3");
    }

    /**
     * With no agent left to try, an exchange that finds no place (the failing agent kept in holds
     * its one) is answered at once, not queued; one that finds the place goes to that agent.
     */
    @Test
    void withNoAgentLeftToTryAnExchangeFindingNoPlaceIsAnsweredNotQueued() {
        start(1, 5);
        failing = Set.of("A1", "A2", "A3");
        answerAtOnce = true;
        send();
        assertThat(refused.get()).isEqualTo(3);
        answerAtOnce = false;
        failing = Set.of();
        assertThat(send().returned).isFalse();
        assertThat(calls).extracting(Call::agent).containsExactly("A3");

        Sent next = send();

        assertThat(next.returned).isTrue();
        assertThat(next.completions.get()).isEqualTo(1);
        assertThat(next.exchange.getException()).isExactlyInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("ejected");
        assertThat(calls).hasSize(1);
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /** Nor when an agent's ejection time is up: the exchange waiting is its trial request. */
    @Test
    void anExchangeWaitingGoesWhenAnAgentsEjectionEnds() {
        Sent waiting = anExchangeWaitingWhileA1IsEjected();

        clock.addAndGet(OutlierEjection.DEFAULT_BASE_EJECTION_TIME.toNanos());
        timer.advance(OutlierEjection.DEFAULT_BASE_EJECTION_TIME);

        assertThat(calls).hasSize(3);
        assertThat(calls.get(2).agent()).isEqualTo("A1");
        assertThat(calls.get(2).attempt().getExchangeId()).isEqualTo(waiting.exchange.getExchangeId());
    }

    /**
     * An agent whose ejection time is up is room for one exchange, its trial, whatever its in-flight
     * limit: the others waiting go to it only once the trial succeeded (re-admitted).
     */
    @Test
    void anEjectedAgentsTrialIsOnePlaceNotItsWholeLimit() {
        start(2, 5);
        balancer.setQueueTimeout(Duration.ofSeconds(60));
        refusing = "A1";
        answerAtOnce = true;
        send();
        answerAtOnce = false;
        refusing = null;
        for (int i = 0; i < 4; i++) {
            send();
        }
        assertThat(calls).extracting(Call::agent).containsOnly("A2", "A3").hasSize(4);
        Sent first = send();
        Sent second = send();

        clock.addAndGet(OutlierEjection.DEFAULT_BASE_EJECTION_TIME.toNanos());
        timer.advance(OutlierEjection.DEFAULT_BASE_EJECTION_TIME);

        assertThat(calls).hasSize(5);
        assertThat(calls.get(4).agent()).isEqualTo("A1");
        assertThat(calls.get(4).attempt().getExchangeId()).isEqualTo(first.exchange.getExchangeId());
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        calls.remove(4).end(); // the trial succeeds: A1 is re-admitted, its second place opens
        assertThat(calls).hasSize(5);
        assertThat(calls.get(4).attempt().getExchangeId()).isEqualTo(second.exchange.getExchangeId());
    }

    /**
     * The gate counts places, not exchanges: a drained agent's requests in flight take none of the
     * other agents' places. A1 drained holding its two, A2 and A3 take four more at once.
     */
    @Test
    void aDrainedAgentsRequestsTakeNoneOfTheOtherAgentsPlaces() {
        start(2, 10);
        for (int i = 0; i < 6; i++) {
            send();
        }
        for (Call call : List.copyOf(calls)) {
            if (!call.agent().equals("A1")) {
                calls.remove(call);
                call.end();
            }
        }
        balancer.drainAgent("A1");

        for (int i = 0; i < 4; i++) {
            assertThat(send().completions.get()).isZero();
        }

        assertThat(balancer.queueFigures().size()).as("none waits").isZero();
        assertThat(calls).extracting(Call::agent).containsExactlyInAnyOrder("A1", "A1", "A2", "A2", "A3", "A3");
    }

    /**
     * Nor a resting agent's: A1 holds one request and then answers 429 (it rests), and the three
     * places left on A2 and A3 are taken at once.
     */
    @Test
    void aRestingAgentsRequestsTakeNoneOfTheOtherAgentsPlaces() {
        start(2, 10);
        send(); // A1 holds it
        busy = Set.of("A1");
        send(); // A2
        send(); // A3
        send(); // A1: 429, it rests; the exchange fails over to A2
        busy = Set.of();
        assertThat(busyAnswers.get()).isEqualTo(1);
        assertThat(calls).extracting(Call::agent).containsExactlyInAnyOrder("A1", "A2", "A3", "A2");

        Sent next = send();

        assertThat(next.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).as("A3's second place is free").isZero();
        assertThat(calls).extracting(Call::agent).containsExactlyInAnyOrder("A1", "A2", "A3", "A2", "A3");
    }

    /**
     * Nor an agent's trial after ejection: while A1's trial runs, a place that frees on A2 goes to
     * the next exchange waiting at once.
     */
    @Test
    void anAgentsTrialTakesNoneOfTheOtherAgentsPlaces() {
        start(2, 5);
        balancer.setQueueTimeout(Duration.ofSeconds(60));
        refusing = "A1";
        answerAtOnce = true;
        send();
        answerAtOnce = false;
        refusing = null;
        for (int i = 0; i < 4; i++) {
            send();
        }
        Sent first = send();
        Sent second = send();
        clock.addAndGet(OutlierEjection.DEFAULT_BASE_EJECTION_TIME.toNanos());
        timer.advance(OutlierEjection.DEFAULT_BASE_EJECTION_TIME);
        assertThat(calls.get(4).agent()).isEqualTo("A1");
        assertThat(calls.get(4).attempt().getExchangeId()).isEqualTo(first.exchange.getExchangeId());

        String freed = calls.get(0).agent();
        endFirstCall(); // the trial still runs

        assertThat(calls).hasSize(5);
        assertThat(calls.get(4).agent()).isEqualTo(freed);
        assertThat(calls.get(4).attempt().getExchangeId()).isEqualTo(second.exchange.getExchangeId());
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * An exchange let through that ends before any attempt (a forged session id: 400, no agent
     * called) gives its place back: after three of them, three exchanges still go straight through.
     */
    @Test
    void anExchangeLetThroughThatEndsBeforeAnyAttemptGivesItsPlaceBack() {
        start(1, 5);
        balancer.setSessionHeader("Mcp-Session-Id");
        balancer.setSessionSecret("0123456789abcdef0123456789abcdef");
        for (int i = 0; i < 3; i++) {
            Sent forged = send(Map.of("Mcp-Session-Id", "forged-" + i));
            assertThat(forged.exchange.getException()).isInstanceOf(SessionRejectedException.class);
        }
        assertThat(calls).isEmpty();

        fillTheAgents();

        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * An exchange sent back to wait after a busy answer goes ahead of its tenant's later arrivals:
     * one tenant's exchanges leave in the order they came.
     */
    @Test
    void anExchangeSentBackToWaitGoesAheadOfItsTenantsLaterArrivals() {
        start(1, 10);
        fillTheAgents();
        Sent first = send();
        Sent later = send();
        Sent last = send();
        busy = Set.of("A1");
        answerAtOnce = false;
        String freed = calls.get(0).agent();
        assertThat(freed).isEqualTo("A1");
        endFirstCall(); // A1 frees; first goes to it, gets 429 (A1 rests) and waits again
        assertThat(busyAnswers.get()).isEqualTo(1);
        busy = Set.of();
        assertThat(first.completions.get()).as("waits again").isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(3);

        endFirstCall(); // A2 frees

        assertThat(calls).extracting(Call::agent).containsExactly("A3", "A2");
        assertThat(calls.get(1).attempt().getExchangeId()).as("first, not those that came after it")
                .isEqualTo(first.exchange.getExchangeId());
        endFirstCall(); // A3 frees
        assertThat(calls.get(1).attempt().getExchangeId()).isEqualTo(later.exchange.getExchangeId());
        assertThat(last.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
    }

    /** Nor when an agent joins (a fleet file, a runtime {@code addAgent}): the exchange waiting goes to it at once. */
    @Test
    void anExchangeWaitingGoesToAnAgentThatJoins() {
        start(1, 5);
        fillTheAgents();
        Sent waiting = send();

        balancer.addAgent("A4", agent("A4"), 1.0);

        assertThat(calls).hasSize(4);
        assertThat(calls.get(3).agent()).isEqualTo("A4");
        assertThat(calls.get(3).attempt().getExchangeId()).isEqualTo(waiting.exchange.getExchangeId());
    }

    /**
     * Six places (three agents, two each) and a tenant limit of four: the heavy tenant's fifth
     * exchange waits although two places are free, the light tenant's goes through at once, and the
     * heavy tenant's next goes when one of its own ends.
     */
    @Test
    void aTenantAtItsLimitWaitsWhileAnotherTenantGoesThroughAtOnce() {
        start(2, 10, 4);
        answerAtOnce = true;
        send(Map.of("X-Tenant", "L")); // L sent lately: H's limit binds
        answerAtOnce = false;
        for (int i = 1; i <= 4; i++) {
            assertThat(send(Map.of("X-Tenant", "H", "n", i)).returned).isFalse();
        }
        Sent fifth = send(Map.of("X-Tenant", "H", "n", 5));
        Sent sixth = send(Map.of("X-Tenant", "H", "n", 6));
        assertThat(calls).hasSize(4);
        assertThat(balancer.queueFigures().size()).isEqualTo(2);
        assertThat(balancer.queueFigures().admitted()).isEqualTo(4);

        Sent light = send(Map.of("X-Tenant", "L"));
        assertThat(calls).hasSize(5);
        assertThat(calls.get(4).attempt().getIn().getHeader("X-Tenant")).isEqualTo("L");
        assertThat(light.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(2);
        assertThat(balancer.queueFigures().admitted()).isEqualTo(5);

        calls.remove(4).end(); // the light one ends: its place is no room for H
        assertThat(light.completions.get()).isEqualTo(1);
        assertThat(calls).hasSize(4);
        assertThat(balancer.queueFigures().size()).isEqualTo(2);

        endFirstCall(); // an H ends: H's fifth goes
        assertThat(fifth.completions.get()).isZero();
        assertThat(calls).hasSize(4);
        assertThat(calls.get(3).attempt().getIn().getHeader("n")).isEqualTo(5);
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        while (!calls.isEmpty()) {
            endFirstCall();
        }
        assertThat(fifth.completions.get()).isEqualTo(1);
        assertThat(sixth.completions.get()).isEqualTo(1);
        assertThat(sixth.exchange.getException()).isNull();
        assertThat(balancer.queueFigures().admitted()).isZero();
        assertThat(balancer.queueFigures().released()).isEqualTo(3);
    }

    /**
     * A tenant alone takes every place; once another sends, it gets no new place above its limit
     * (those it holds end in their own time), and after the other has not sent for a second it
     * takes places above its limit again.
     */
    @Test
    void aTenantAloneTakesEveryPlaceAndIsLimitedOnlyWhileAnotherSends() {
        start(2, 10, 4);
        for (int i = 1; i <= 6; i++) {
            assertThat(send(Map.of("X-Tenant", "H", "n", i)).returned).isFalse();
        }
        assertThat(calls).hasSize(6);
        send(Map.of("X-Tenant", "H", "n", 7));
        Sent light = send(Map.of("X-Tenant", "L", "n", 0));
        assertThat(balancer.queueFigures().size()).isEqualTo(2);
        endFirstCall(); // H holds 5: L goes first (VTC), H7 waits
        assertThat(calls.get(5).attempt().getIn().getHeader("n")).isEqualTo(0);
        endFirstCall(); // H holds 4, at its limit while L sent lately: the place stays free
        assertThat(calls).hasSize(5);
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        calls.remove(calls.size() - 1).end(); // L ends: still no place for H above its limit
        assertThat(light.completions.get()).isEqualTo(1);
        assertThat(calls).hasSize(4);
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        clock.addAndGet(Duration.ofMillis(TenantPlaces.ACTIVE_SECONDS * 1000 + 1).toNanos());
        send(Map.of("X-Tenant", "H", "n", 8)); // L has not sent for a second: H's limit no longer binds
        assertThat(calls).hasSize(6);
        assertThat(calls.get(4).attempt().getIn().getHeader("n")).isEqualTo(7);
        assertThat(calls.get(5).attempt().getIn().getHeader("n")).isEqualTo(8);
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * The place a tenant's limit kept free for another tenant goes back to it when the other has
     * not sent for a second, by the queue's timer: not at the next arrival or completion, which may
     * be long in coming (calls of minutes), while the place stays idle and the waiting expire.
     */
    @Test
    void aPlaceKeptForAnotherTenantGoesWhenItStopsSendingWithoutWaitingForAnArrival() {
        start(1, 10, 1);
        send(Map.of("X-Tenant", "L", "n", 0));
        clock.addAndGet(Duration.ofMillis(200).toNanos());
        timer.advance(Duration.ofMillis(200));
        send(Map.of("X-Tenant", "H", "n", 1));
        Sent waiting = send(Map.of("X-Tenant", "H", "n", 2));
        assertThat(calls).as("H at its limit while L sent lately: one place idle").hasSize(2);

        clock.addAndGet(Duration.ofMillis(801).toNanos()); // L's last request 1.001 s ago
        timer.advance(Duration.ofMillis(801));

        assertThat(calls).as("the idle place is H's now").hasSize(3);
        assertThat(calls.get(2).attempt().getExchangeId()).isEqualTo(waiting.exchange.getExchangeId());
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /** Exchanges without a tenant are one tenant, limited as any other. */
    @Test
    void exchangesWithoutATenantAreOneTenantUnderTheLimit() {
        start(2, 10, 1);
        answerAtOnce = true;
        send(Map.of("X-Tenant", "other")); // another tenant sent lately: the limit binds
        answerAtOnce = false;
        assertThat(send(Map.of("n", 1)).returned).isFalse();
        Sent second = send(Map.of("n", 2));
        assertThat(calls).hasSize(1);
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        endFirstCall();
        assertThat(calls).hasSize(1);
        assertThat(calls.get(0).attempt().getIn().getHeader("n")).isEqualTo(2);
        endFirstCall();
        assertThat(second.completions.get()).isEqualTo(1);
        assertThat(balancer.queueFigures().admitted()).isZero();
    }

    @Test
    void aRefusedExchangeIsCompletedOnceAndSynchronously() {
        start(1, 1);
        fillTheAgents();
        send();
        Sent refused = send();
        assertThat(refused.returned).isTrue();
        assertThat(refused.completions.get()).isEqualTo(1);
        assertThat(refused.sync).isTrue();
        assertThat(refused.exchange.getException()).isInstanceOf(AgentsBusyException.class);
    }

    @Test
    void aCompletionBeforeAnyoneEverWaitedReleasesNothing() {
        start(1, 5);
        Sent sent = send();
        endFirstCall();
        assertThat(sent.completions.get()).isEqualTo(1);
        assertThat(sent.exchange.getException()).isNull();
        QueueFigures figures = balancer.queueFigures();
        assertThat(figures.admitted()).isZero();
        assertThat(figures.released()).isZero();
        theNextExchangeGoesStraightThrough();
    }

    @Test
    void anArrivalFindsTheDeadlinesPassedBeforeTheTimerRunsAndFailsThoseExchanges() {
        start(1, 5);
        fillTheAgents();
        Sent early = send();
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        Sent late = send();
        assertThat(early.completions.get()).isEqualTo(1);
        assertThat(early.sync).isFalse();
        assertThat(early.exchange.getException()).isInstanceOf(QueueTimeoutException.class);
        assertThat(((QueueTimeoutException) early.exchange.getException()).waitedMillis()).isEqualTo(10_000);
        assertThat(late.completions.get()).isZero();
        assertThat(balancer.queueFigures().expired()).isEqualTo(1);
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
    }

    @Test
    void aCapacityThatGrowsReleasesTheWaitingInOrderAtTheNextArrival() {
        start(1, 5);
        fillTheAgents();
        Sent first = send();
        balancer.setMaxInFlightPerAgent(3);
        Sent second = send();
        assertThat(second.returned).isFalse();
        assertThat(calls).hasSize(5);
        assertThat(calls.subList(3, 5).stream().map(c -> c.attempt().getExchangeId()))
                .containsExactly(first.exchange.getExchangeId(), second.exchange.getExchangeId());
        QueueFigures figures = balancer.queueFigures();
        assertThat(figures.released()).isEqualTo(2);
        assertThat(figures.admitted()).isEqualTo(5);
        assertThat(figures.size()).isZero();
        theNextExchangeGoesStraightThrough();
    }

    @Test
    void afterTheTimerExpiresTheLastWaitingTheGateIsOpenAgain() {
        start(1, 5);
        fillTheAgents();
        Sent waiting = send();
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        timer.advance(Duration.ofSeconds(10));
        assertThat(waiting.exchange.getException()).isInstanceOf(QueueTimeoutException.class);
        balancer.setMaxInFlightPerAgent(2);
        theNextExchangeGoesStraightThrough();
    }

    @Test
    void afterTheLastWaitingLeavesTheGateIsOpenAgain() {
        start(1, 5);
        fillTheAgents();
        Sent waiting = send();
        assertThat(((QueuedExchange) waiting.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).leave()).isTrue();
        balancer.setMaxInFlightPerAgent(2);
        theNextExchangeGoesStraightThrough();
    }

    @Test
    void afterTheLastWaitingIsReleasedTheGateIsOpenAgain() {
        start(1, 5);
        fillTheAgents();
        Sent waiting = send();
        endFirstCall();
        assertThat(waiting.exchange.getProperty(AgentLb.QUEUED_PROPERTY)).isNull();
        balancer.setMaxInFlightPerAgent(2);
        theNextExchangeGoesStraightThrough();
    }

    @Test
    void aShorterQueueTimeoutRearmsTheTimerForTheEarlierDeadline() {
        start(1, 5);
        fillTheAgents();
        Sent patient = send();
        balancer.setQueueTimeout(Duration.ofSeconds(2));
        Sent hasty = send();
        clock.addAndGet(Duration.ofSeconds(2).toNanos());
        timer.advance(Duration.ofSeconds(2));
        assertThat(hasty.exchange.getException()).isInstanceOf(QueueTimeoutException.class);
        assertThat(patient.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
    }

    /** The capacity is the queue's size from the start, before anything waited (health and metrics read it). */
    @Test
    void theCapacityIsKnownBeforeAnythingWaits() {
        start(1, 5);
        assertThat(balancer.queueFigures().capacity()).isEqualTo(5);
        balancer.setQueueSize(3);
        assertThat(balancer.queueFigures().capacity()).as("an empty queue takes a new size at once").isEqualTo(3);
    }

    @Test
    void aNewQueueSizeTakesEffectOnceTheQueueIsEmpty() {
        start(1, 1);
        fillTheAgents();
        Sent waiting = send();
        balancer.setQueueSize(3);
        assertThat(send().exchange.getException()).as("the old bound while one waits")
                .isInstanceOf(AgentsBusyException.class);
        assertThat(waiting.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
        endFirstCall();
        assertThat(balancer.queueFigures().size()).isZero();
        List<Sent> queued = List.of(send(), send(), send());
        assertThat(queued).allMatch(s -> !s.returned && s.completions.get() == 0);
        assertThat(balancer.queueFigures().capacity()).isEqualTo(3);
        assertThat(send().exchange.getException()).isInstanceOf(AgentsBusyException.class);
        assertThat(waiting.completions.get()).isZero();
    }

    @Test
    void anAnswerInBytesChargesItsOutputTokensUpToTheLongestAnswerRead() {
        assertThat(bBeforeA(usageBody(UsageTokens.MAX_CHARS))).as("read: a charged 1000").isTrue();
    }

    @Test
    void anAnswerInBytesLongerThanTheLongestReadChargesNothing() {
        assertThat(bBeforeA(usageBody(UsageTokens.MAX_CHARS + 1))).as("not read: a charged nothing").isFalse();
    }

    /** Tenant a's answer carries {@code body}; then a and b wait: whether b's goes first. */
    private boolean bBeforeA(byte[] body) {
        start(1, 5);
        fillTheAgents();
        send(Map.of("X-Tenant", "a", Exchange.CONTENT_LENGTH, "400"));
        send(Map.of("X-Tenant", "b", Exchange.CONTENT_LENGTH, "400"));
        endFirstCall();
        endFirstCall();
        Call a = calls.stream().filter(c -> "a".equals(c.attempt().getIn().getHeader("X-Tenant"))).findFirst()
                .orElseThrow();
        calls.remove(a);
        send(Map.of("X-Tenant", "a", Exchange.CONTENT_LENGTH, "400"));
        send(Map.of("X-Tenant", "b", Exchange.CONTENT_LENGTH, "400"));
        a.attempt().getMessage().setBody(body);
        a.end();
        return "b".equals(calls.get(calls.size() - 1).attempt().getIn().getHeader("X-Tenant"));
    }

    private static byte[] usageBody(int length) {
        String head = "{\"usage\":{\"completion_tokens\":1000},\"pad\":\"";
        String tail = "\"}";
        return (head + "x".repeat(length - head.length() - tail.length()) + tail).getBytes(StandardCharsets.UTF_8);
    }

    /** Starts a balancer with the queue on whose tenant expression throws "no tenant". */
    private void startWithATenantThatThrows() {
        balancer = new RoundRobinLB();
        balancer.setMaxInFlightPerAgent(1);
        balancer.setQueueSize(5);
        balancer.setTenant(new org.apache.camel.support.ExpressionAdapter() {
            @Override
            public Object evaluate(Exchange exchange) {
                throw new IllegalStateException("no tenant");
            }
        }, "failing");
        balancer.useQueueTimer(timer);
        ScriptedChild.startedAgents(balancer, CAMEL.get(), clock::get, this::agent, "A1", "A2", "A3");
    }

    /** A tenant expression that throws answers the exchange at once: the balancer's process says it completed, synchronously. */
    @Test
    void aTenantExpressionThatThrowsCompletesTheExchangeSynchronously() {
        startWithATenantThatThrows();

        Sent sent = send();

        assertThat(sent.returned).isTrue();
        assertThat(sent.sync).isTrue();
        assertThat(sent.completions.get()).isEqualTo(1);
        assertThat(sent.exchange.getException()).isInstanceOf(IllegalStateException.class).hasMessage("no tenant");
        assertThat(calls).isEmpty();
    }

    /**
     * Once the context begins to stop, the waiting are answered and the queue's timer is stopped; an
     * exchange that finds room still goes through, and one that would wait is answered at once,
     * synchronously.
     */
    @Test
    void whileTheContextStopsAnExchangeWithRoomGoesThroughAndOneWithoutIsAnsweredAtOnce() throws Exception {
        CamelContext own = new DefaultCamelContext();
        Sent waiting = oneWaitingIn(own);
        assertThat(timer.pendingCount()).as("its deadline").isEqualTo(1);
        balancer.setMaxInFlightPerAgent(2); // three places more, taken by no one yet

        own.stop();

        assertThat(waiting.completions.get()).isEqualTo(1);
        assertThat(timer.pendingCount()).as("the timer stopped").isZero();
        for (int i = 0; i < 3; i++) {
            Sent through = send();
            assertThat(through.returned).isFalse();
            assertThat(through.completions.get()).isZero();
        }
        assertThat(calls).hasSize(6);
        Sent late = send();
        assertThat(late.returned).isTrue();
        assertThat(late.sync).isTrue();
        assertThat(late.exchange.getException()).isInstanceOf(NoAgentAvailableException.class).hasMessageContaining("stopping");
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * An exchange sent back to wait after a busy answer finds the deadline of another passed before
     * the timer ran: that one is answered then, with its time in the queue.
     */
    @Test
    void anExchangeSentBackToWaitFailsTheWaitingWhoseDeadlinePassed() {
        start(1, 5);
        balancer.setQueueTimeout(Duration.ofSeconds(60));
        fillTheAgents();
        balancer.setQueueTimeout(Duration.ofSeconds(2));
        Sent hasty = send();
        clock.addAndGet(Duration.ofSeconds(3).toNanos());

        answerBusy(calls.remove(2));

        assertThat(hasty.completions.get()).isEqualTo(1);
        assertThat(hasty.exchange.getException()).isInstanceOf(QueueTimeoutException.class);
        assertThat(((QueueTimeoutException) hasty.exchange.getException()).waitedMillis()).isEqualTo(3_000);
        assertThat(balancer.queueFigures().expired()).isEqualTo(1);
        assertThat(balancer.queueFigures().size()).as("the one sent back").isEqualTo(1);
    }

    /**
     * A place a tenant's limit keeps free at a completion goes back to the waiting tenant by the
     * queue's timer once the other tenant has not sent for a second, without an arrival.
     */
    @Test
    void aPlaceKeptFreeAtACompletionGoesByTheTimerWhenTheOtherTenantStopsSending() {
        start(2, 10, 4);
        for (int i = 1; i <= 6; i++) {
            send(Map.of("X-Tenant", "H", "n", i));
        }
        Sent seventh = send(Map.of("X-Tenant", "H", "n", 7));
        send(Map.of("X-Tenant", "L", "n", 0));
        endFirstCall(); // L goes first
        endFirstCall(); // H holds 4, at its limit while L sent lately: the place stays free
        assertThat(calls).hasSize(5);
        assertThat(balancer.queueFigures().size()).isEqualTo(1);

        clock.addAndGet(Duration.ofMillis(TenantPlaces.ACTIVE_SECONDS * 1000 + 1).toNanos());
        timer.advance(Duration.ofMillis(TenantPlaces.ACTIVE_SECONDS * 1000 + 1));

        assertThat(calls).hasSize(6);
        assertThat(calls.get(5).attempt().getExchangeId()).isEqualTo(seventh.exchange.getExchangeId());
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * An ejected agent re-admitted by a long-lived stream's trial (a stream passes the queue and
     * completes no place) is room at once: the exchange waiting goes to it, before the timer runs.
     */
    @Test
    void anExchangeWaitingGoesWhenAStreamsTrialReadmitsAnAgent() {
        Sent waiting = anExchangeWaitingWhileA1IsEjected();
        clock.addAndGet(OutlierEjection.DEFAULT_BASE_EJECTION_TIME.toNanos());

        send(Map.of(Exchange.HTTP_METHOD, "GET", "Mcp-Session-Id", "s-1")); // rr's turn of A3
        Sent stream = send(Map.of(Exchange.HTTP_METHOD, "GET", "Mcp-Session-Id", "s-2"));
        assertThat(calls).extracting(Call::agent).containsExactly("A3", "A2", "A3", "A1");
        assertThat(waiting.completions.get()).isZero();
        calls.remove(3).end();

        assertThat(stream.completions.get()).isEqualTo(1);
        assertThat(calls).hasSize(4);
        assertThat(calls.get(3).agent()).isEqualTo("A1");
        assertThat(calls.get(3).attempt().getExchangeId()).isEqualTo(waiting.exchange.getExchangeId());
        assertThat(balancer.queueFigures().size()).isZero();
    }

    /**
     * An exchange let through at once and sent back to wait after a busy answer is charged its prompt
     * at its release, as any arrival: its tenant's next exchange then waits behind another tenant's.
     */
    @Test
    void anExchangeLetThroughAtOnceAndSentBackToWaitIsChargedAtItsRelease() {
        start(1, 10);
        send();
        send();
        busy = Set.of("A3");
        Sent heavy = send(Map.of("X-Tenant", "a", Exchange.CONTENT_LENGTH, "4000"));
        busy = Set.of();
        assertThat(heavy.completions.get()).as("waits again").isZero();
        Sent aNext = send(Map.of("X-Tenant", "a", Exchange.CONTENT_LENGTH, "40"));
        Sent bFirst = send(Map.of("X-Tenant", "b", Exchange.CONTENT_LENGTH, "40"));
        assertThat(balancer.queueFigures().size()).isEqualTo(3);

        endFirstCall();
        assertThat(calls.get(calls.size() - 1).attempt().getExchangeId()).as("a and b at 0: the oldest, a's")
                .isEqualTo(heavy.exchange.getExchangeId());
        endFirstCall();
        assertThat(calls.get(calls.size() - 1).attempt().getExchangeId()).as("a charged 1000, b 0")
                .isEqualTo(bFirst.exchange.getExchangeId());
        assertThat(aNext.completions.get()).isZero();
        assertThat(balancer.queueFigures().size()).isEqualTo(1);
    }
}
