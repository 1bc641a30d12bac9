package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.health.OutlierEjection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Agents that answer badly: rate-limited (429 with Retry-After), gray failures (500 at once),
 * every agent busy. Time is the test's clock: each request advances it.
 */
class BusyAndBrokenAgentsTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    private final AtomicLong clock = new AtomicLong(0);

    /** An agent whose answer status (and Retry-After, or null) depends on the test clock. */
    private ScriptedChild statusAgent(String name, LongFunction<int[]> answer) {
        return ScriptedChild.answering(name, clock::get, (exchange, now) -> {
            int[] a = answer.apply(now);
            exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, a[0]);
            if (a[1] >= 0) {
                exchange.getMessage().setHeader("Retry-After", Integer.toString(a[1]));
            }
            exchange.getMessage().setBody(name + " " + a[0]);
        });
    }

    private static int[] ok(long now) {
        return new int[] {200, -1};
    }


    private <T extends AgentLoadBalancerSupport> T started(T balancer, ScriptedChild... agents) {
        balancer.useNanoClock(clock::get);
        return ScriptedChild.started(balancer, CAMEL.get(), agents);
    }

    private static Exchange get(AgentLoadBalancerSupport balancer, String userId) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        exchange.getIn().setHeader("user_id", userId);
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    private static int status(Exchange exchange) {
        return exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
    }

    @Test
    void aRateLimitedAgentRestsForItsRetryAfterAndItsClientsGoElsewhere() {
        long threeSeconds = Duration.ofSeconds(3).toNanos();
        ScriptedChild a1 = statusAgent("A1", now -> now < threeSeconds ? new int[] {429, 2} : ok(now));
        ScriptedChild a2 = statusAgent("A2", BusyAndBrokenAgentsTest::ok);
        ScriptedChild a3 = statusAgent("A3", BusyAndBrokenAgentsTest::ok);
        RoundRobinLB rr = started(new RoundRobinLB(), a1, a2, a3);
        int clients429 = 0;
        for (int i = 0; i < 30; i++) { // 10 per second for 3 s
            clients429 += status(get(rr, "u" + i)) == 429 ? 1 : 0;
            clock.addAndGet(Duration.ofMillis(100).toNanos());
        }
        assertThat(clients429).isZero();
        // A1 asked at 0 s (rest until 2 s) and at 2 s (rest until 4 s): two requests in its 3 s of 429s.
        assertThat(a1.requests().stream().filter(t -> t < threeSeconds).toList())
                .containsExactly(0L, Duration.ofSeconds(2).toNanos());
    }

    /**
     * An ejected agent whose trial request is answered busy (429 with {@code Retry-After}) is alive:
     * it is re-admitted and rests for its {@code Retry-After}, then takes requests again. It stayed
     * ejected, silently, for one more base ejection time (its trial's outcome never told).
     */
    @Test
    void anEjectedAgentWhoseTrialIsAnsweredBusyIsReadmittedAndRests() {
        long base = OutlierEjection.DEFAULT_BASE_EJECTION_TIME.toNanos();
        ScriptedChild a1 = ScriptedChild.answering("A1", clock::get, (exchange, now) -> {
            if (now < base) {
                throw new java.net.ConnectException("Connection refused");
            }
            exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, now < base + Duration.ofMillis(500).toNanos() ? 429 : 200);
            exchange.getMessage().setHeader("Retry-After", "1");
        });
        RoundRobinLB rr = started(new RoundRobinLB(), a1, statusAgent("A2", BusyAndBrokenAgentsTest::ok));
        get(rr, "u0"); // A1 refuses: ejected for the base ejection time, A2 answers
        assertThat(rr.getEjectedAgents()).containsExactly("A1");
        clock.set(base);
        for (int i = 1; i <= 2; i++) { // the first to try A1 after its time is its trial: 429, Retry-After: 1
            get(rr, "u" + i);
        }
        assertThat(a1.requests()).containsExactly(0L, base);
        assertThat(rr.getEjectedAgents()).as("alive: re-admitted").isEmpty();

        clock.set(base + Duration.ofMillis(900).toNanos());
        get(rr, "u3");
        get(rr, "u4");
        assertThat(a1.requests()).as("resting for its Retry-After").hasSize(2);

        clock.set(base + Duration.ofMillis(1100).toNanos());
        for (int i = 5; i < 9; i++) {
            get(rr, "u" + i);
        }
        assertThat(a1.requests()).as("back after its rest, not after another base ejection time").hasSize(4);
    }

    @Test
    void whenEveryAgentIsBusyTheClientGets429WithTheShortestRetryAfter() {
        ScriptedChild a1 = statusAgent("A1", now -> new int[] {429, 2});
        ScriptedChild a2 = statusAgent("A2", now -> new int[] {429, 2});
        ScriptedChild a3 = statusAgent("A3", now -> new int[] {429, 5});
        RoundRobinLB rr = started(new RoundRobinLB(), a1, a2, a3);
        Exchange first = get(rr, "u1");
        assertThat(status(first)).isEqualTo(429);
        assertThat(first.getMessage().getHeader("Retry-After")).isEqualTo("2");
        assertThat(a1.requests().size() + a2.requests().size() + a3.requests().size()).as("each asked once").isEqualTo(3);

        // Half a second later every agent still rests: nobody is asked, the client waits 2 s less 0.5 s, rounded up.
        clock.addAndGet(Duration.ofMillis(500).toNanos());
        Exchange second = get(rr, "u2");
        assertThat(second.getException()).isInstanceOf(AgentsBusyException.class);
        assertThat(((AgentsBusyException) second.getException()).retryAfterSeconds()).isEqualTo(2);
        assertThat(second.getMessage().getHeader(AnswerRules.RETRY_AFTER)).as("for the route's 429").isEqualTo("2");
        assertThat(a1.requests().size() + a2.requests().size() + a3.requests().size()).isEqualTo(3);
    }

    /**
     * An outage is its own exception type, so that a route catches it with a plain
     * {@code doCatch(AgentsUnavailableException.class)} before the 429's catch, in Java, YAML and
     * XML alike, and needs no expression language; rate limiting is not.
     */
    @Test
    void everyAgentRestingAfterA503IsAnAgentsUnavailableExceptionAndAfterA429NotOne() {
        RoundRobinLB down = started(new RoundRobinLB(), statusAgent("A1", now -> new int[] {503, -1}),
                statusAgent("A2", now -> new int[] {503, -1}), statusAgent("A3", now -> new int[] {503, -1}));
        get(down, "u1");
        clock.addAndGet(Duration.ofMillis(500).toNanos());

        assertThat(get(down, "u2").getException()).isInstanceOf(AgentsUnavailableException.class)
                .isInstanceOf(AgentsBusyException.class);

        RoundRobinLB limited = started(new RoundRobinLB(), statusAgent("B1", now -> new int[] {429, -1}),
                statusAgent("B2", now -> new int[] {429, -1}), statusAgent("B3", now -> new int[] {429, -1}));
        get(limited, "u1");
        clock.addAndGet(Duration.ofMillis(500).toNanos());

        assertThat(get(limited, "u2").getException()).isInstanceOf(AgentsBusyException.class)
                .isNotInstanceOf(AgentsUnavailableException.class);
    }

    /**
     * Every agent rests after a 503 (an outage, not rate limiting): the balancer's exception says
     * so ({@link AgentsBusyException#unavailable()}), so that a route answers 503, not 429; one
     * agent resting after a 429 among them makes it busy again.
     */
    @Test
    void whenEveryAgentRestsAfterA503TheAgentsAreUnavailableNotBusy() {
        RoundRobinLB down = started(new RoundRobinLB(), statusAgent("A1", now -> new int[] {503, -1}),
                statusAgent("A2", now -> new int[] {503, -1}), statusAgent("A3", now -> new int[] {503, -1}));
        assertThat(status(get(down, "u1"))).isEqualTo(503);
        clock.addAndGet(Duration.ofMillis(500).toNanos());

        Exchange second = get(down, "u2");

        assertThat(second.getException()).isInstanceOf(AgentsBusyException.class)
                .hasMessageStartingWith("Every agent is unavailable (503): retry after 1 s");
        assertThat(((AgentsBusyException) second.getException()).unavailable()).isTrue();

        RoundRobinLB mixed = started(new RoundRobinLB(), statusAgent("B1", now -> new int[] {429, -1}),
                statusAgent("B2", now -> new int[] {503, -1}), statusAgent("B3", now -> new int[] {503, -1}));
        get(mixed, "u1");
        clock.addAndGet(Duration.ofMillis(500).toNanos());
        Exchange busy = get(mixed, "u2");
        assertThat(busy.getException()).isInstanceOf(AgentsBusyException.class).hasMessageStartingWith("Every agent is busy");
        assertThat(((AgentsBusyException) busy.getException()).unavailable()).isFalse();
    }

    /**
     * A call that may go to one agent only (a stateful server's handle, as a learned session) while
     * that agent rests: its Retry-After is that agent's rest, not the shortest of agents it may not
     * go to, and the refusal names the agent.
     */
    @Test
    void aRequestThatMayGoToOneAgentOnlyGetsThatAgentsRestAsItsRetryAfter() {
        ScriptedChild a1 = statusAgent("A1", now -> new int[] {429, 10});
        ScriptedChild a2 = statusAgent("A2", now -> new int[] {429, 2});
        ScriptedChild a3 = statusAgent("A3", now -> new int[] {429, 2});
        ConsistentHashLB ch = new ConsistentHashLB();
        ch.setKeys("mcp-param:handle,user_id");
        started(ch, a1, a2, a3);
        String handle = null;
        for (int i = 0; handle == null; i++) {
            handle = ch.ring().agentFor("mcp-param:handle:h-" + i).equals("A1") ? "h-" + i : null;
        }
        Map<String, Object> call = Map.of(Exchange.HTTP_METHOD, "POST", "MCP-Protocol-Version", "2026-07-28",
                "Mcp-Param-Handle", handle);
        Exchange first = send(ch, call);
        assertThat(first.getMessage().getHeader("Retry-After")).as("A1's own answer passed on").isEqualTo("10");
        for (int i = 0; a2.requests().isEmpty() || a3.requests().isEmpty(); i++) {
            get(ch, "u" + i); // A2 and A3 answer 429 and rest 2 s
        }
        clock.addAndGet(Duration.ofMillis(500).toNanos());

        Exchange refused = send(ch, call);

        assertThat(refused.getException()).isInstanceOf(AgentsBusyException.class).hasMessageContaining("A1");
        assertThat(((AgentsBusyException) refused.getException()).onlyAgent()).isEqualTo("A1");
        assertThat(((AgentsBusyException) refused.getException()).retryAfterSeconds()).isEqualTo(10);
        assertThat(refused.getMessage().getHeader(AnswerRules.RETRY_AFTER)).isEqualTo("10");
        assertThat(a1.requests()).hasSize(1);
    }

    private static Exchange send(AgentLoadBalancerSupport balancer, Map<String, Object> headers) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeaders(new java.util.HashMap<>(headers));
        exchange.getIn().setBody("{}");
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    /**
     * A client's own {@code Retry-After} (a response header sent in a request) never comes back with
     * an error: a route that answers a failed exchange from its message would echo it (a user's
     * trial: the README route's 502 and 503 carried {@code Retry-After: 999}). A busy exchange
     * carries the balancer's.
     */
    @Test
    void aFailedExchangeCarriesNoRetryAfterButTheBalancers() {
        ScriptedChild refusing = ScriptedChild.answering("A1", clock::get, (exchange, now) -> {
            throw new java.net.ConnectException("Connection refused");
        });
        RoundRobinLB rr = started(new RoundRobinLB(), refusing);
        Exchange failed = send(rr, Map.of(Exchange.HTTP_METHOD, "GET", "Retry-After", "999"));
        assertThat(failed.getException()).isInstanceOf(NoAgentAvailableException.class);
        assertThat(failed.getMessage().getHeaders()).doesNotContainKey("Retry-After");
        Exchange post = send(rr, Map.of(Exchange.HTTP_METHOD, "POST", "Retry-After", "999"));
        assertThat(post.getException()).isNotNull();
        assertThat(post.getMessage().getHeaders()).doesNotContainKey("Retry-After");

        RoundRobinLB busy = started(new RoundRobinLB(), statusAgent("A1", now -> new int[] {429, 2}));
        assertThat(send(busy, Map.of(Exchange.HTTP_METHOD, "GET", "Retry-After", "999")).getMessage().getHeader("Retry-After"))
                .as("the agent's busy answer: its own").isEqualTo("2");
        Exchange resting = send(busy, Map.of(Exchange.HTTP_METHOD, "GET", "Retry-After", "999"));
        assertThat(resting.getException()).isInstanceOf(AgentsBusyException.class);
        assertThat(resting.getMessage().getHeader("Retry-After")).as("the balancer's").isEqualTo("2");
    }

    /**
     * Nor does a client's own {@code x-should-retry} (a response header of OpenAI's API sent in a
     * request, or a query parameter camel-netty-http makes a header): the README route keeps that
     * header for its 502 and would hand the client's back with its 503 and 429 answers (a user's
     * trial: {@code x-should-retry: true} on the README route's 503 "no agent available"). Failed,
     * busy and agentless exchanges alike.
     */
    @Test
    void aFailedOrBusyExchangeCarriesNoXShouldRetryOfTheClients() {
        ScriptedChild refusing = ScriptedChild.answering("A1", clock::get, (exchange, now) -> {
            throw new java.net.ConnectException("Connection refused");
        });
        RoundRobinLB rr = started(new RoundRobinLB(), refusing);
        for (String method : List.of("GET", "POST")) {
            Exchange failed = send(rr, Map.of(Exchange.HTTP_METHOD, method, "x-should-retry", "true"));
            assertThat(failed.getException()).as(method).isNotNull();
            assertThat(failed.getMessage().getHeaders()).as(method).doesNotContainKey("x-should-retry");
        }

        RoundRobinLB busy = started(new RoundRobinLB(), statusAgent("A1", now -> new int[] {429, 2}));
        send(busy, Map.of(Exchange.HTTP_METHOD, "GET"));
        Exchange resting = send(busy, Map.of(Exchange.HTTP_METHOD, "GET", "X-Should-Retry", "true"));
        assertThat(resting.getException()).isInstanceOf(AgentsBusyException.class);
        assertThat(resting.getMessage().getHeaders()).doesNotContainKey("x-should-retry");
        assertThat(resting.getMessage().getHeader("Retry-After")).as("the balancer's").isEqualTo("2");

        RoundRobinLB none = started(new RoundRobinLB());
        Exchange agentless = send(none, Map.of(Exchange.HTTP_METHOD, "GET", "x-should-retry", "true", "Retry-After", "999"));
        assertThat(agentless.getException()).isInstanceOf(NoAgentAvailableException.class);
        assertThat(agentless.getMessage().getHeaders()).doesNotContainKeys("x-should-retry", "Retry-After");
    }

    /**
     * A client's own {@code Retry-After} is no agent's: an agent's answer that leaves the request's
     * headers in its message (as an HTTP producer may) and says no {@code Retry-After} rests the agent
     * the default 1 s (a user's trial: a POST with {@code Retry-After: 99} rested every agent 60 s, the
     * most, and other clients got {@code Retry-After: 58}). The attempt's request carries none.
     */
    @Test
    void aClientsRetryAfterIsNotTakenForTheAgentsNorSentToIt() {
        List<Object> sent = new java.util.ArrayList<>();
        ScriptedChild a1 = ScriptedChild.answering("A1", clock::get, (exchange, now) -> {
            sent.add(String.valueOf(exchange.getIn().getHeader("Retry-After")));
            exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 503);
        });
        RoundRobinLB rr = started(new RoundRobinLB(), a1);
        Exchange post = send(rr, Map.of(Exchange.HTTP_METHOD, "POST", "Retry-After", "99"));
        assertThat(status(post)).isEqualTo(503);
        assertThat(post.getMessage().getHeader("Retry-After")).as("the agent's rest: the default 1 s").isEqualTo("1");
        assertThat(sent).as("the Retry-After the agent was sent").containsExactly("null");
        clock.addAndGet(Duration.ofSeconds(2).toNanos());
        send(rr, Map.of(Exchange.HTTP_METHOD, "GET"));
        assertThat(a1.requests()).as("rested 1 s, not the client's 99").hasSize(2);
    }

    /** Nor does an exchange refused before any attempt: a session id this balancer did not give. */
    @Test
    void aRefusedSessionCarriesNoResponseHeadersOfTheClients() {
        RoundRobinLB sessions = new RoundRobinLB();
        sessions.setSessionHeader("Mcp-Session-Id");
        started(sessions, statusAgent("A1", BusyAndBrokenAgentsTest::ok));
        Exchange refused = send(sessions, Map.of(Exchange.HTTP_METHOD, "POST", "Mcp-Session-Id", "not-one-of-ours",
                "x-should-retry", "true", "Retry-After", "999"));
        assertThat(refused.getException()).isInstanceOf(SessionRejectedException.class);
        assertThat(refused.getMessage().getHeaders()).doesNotContainKeys("x-should-retry", "Retry-After");
    }

    @Test
    void aPostIsSentElsewhereAfterA429ButNotAfterABusy503UnlessTheAgentSaysItIsUnprocessed() {
        ScriptedChild busy503 = statusAgent("A1", now -> new int[] {503, 1});
        ScriptedChild fine = statusAgent("A2", BusyAndBrokenAgentsTest::ok);
        RoundRobinLB rr = started(new RoundRobinLB(), busy503, fine);
        Exchange post = new DefaultExchange(CAMEL.get());
        post.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        rr.process(post, sync -> { });
        assertThat(status(post)).isEqualTo(503);
        assertThat(post.getMessage().getHeader("Retry-After")).isEqualTo("1");
        assertThat(fine.requests()).isEmpty();

        clock.addAndGet(Duration.ofSeconds(2).toNanos());
        rr.setBusy503Unprocessed(true);
        Exchange again = new DefaultExchange(CAMEL.get());
        again.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        rr.process(again, sync -> { });
        assertThat(status(again)).as("the rotation's next turn is A2, or A1 then A2").isEqualTo(200);
    }

    @Test
    void aGrayFailureIsEjectedAfterFiveErrorAnswersUnderEveryStrategy() {
        for (AgentLoadBalancerSupport balancer : List.of(new RoundRobinLB(), new ConsistentHashLB(),
                new PidWeightedLB(), new AdaptiveVirtualNodeLB(), new LeastRequestLB())) {
            clock.set(0);
            ScriptedChild a1 = statusAgent("A1", now -> new int[] {500, -1});
            ScriptedChild a2 = statusAgent("A2", BusyAndBrokenAgentsTest::ok);
            ScriptedChild a3 = statusAgent("A3", BusyAndBrokenAgentsTest::ok);
            started(balancer, a1, a2, a3);
            int errors = 0;
            for (int i = 0; i < 300; i++) {
                errors += status(get(balancer, "u" + (i % 60))) == 500 ? 1 : 0;
                clock.addAndGet(Duration.ofMillis(10).toNanos());
                if (balancer instanceof PidWeightedLB pid && i % 100 == 99) {
                    pid.controlStep();
                }
            }
            // Five error answers eject A1 for 10 s; the 300 requests take 3 s.
            assertThat(errors).as(balancer.strategyName()).isEqualTo(5);
            assertThat(balancer.getEjectedAgents()).as(balancer.strategyName()).containsExactly("A1");
            if (balancer instanceof PidWeightedLB pid) {
                assertThat(pid.getWeights().get("A1")).isLessThanOrEqualTo(1.0);
            }
            balancer.stop();
        }
    }

    @Test
    void busyAndErrorAnswersAreNamedInAttemptOutcomes() {
        ScriptedChild a1 = statusAgent("A1", now -> new int[] {429, 1});
        ScriptedChild a2 = statusAgent("A2", now -> new int[] {502, -1});
        RoundRobinLB rr = started(new RoundRobinLB(), a1, a2);
        Map<String, AttemptOutcome> outcomes = new TreeMap<>();
        rr.addAttemptListener((strategy, agent, outcome, nanos) -> outcomes.put(agent, outcome));
        Exchange exchange = get(rr, "u1");
        assertThat(status(exchange)).isEqualTo(502);
        assertThat(outcomes).isEqualTo(Map.of("A1", AttemptOutcome.BUSY, "A2", AttemptOutcome.ERROR_ANSWER));
    }

    @Test
    void retryAfterIsReadAsSecondsOrAnHttpDateAndCapped() {
        AnswerRules rules = AnswerRules.DEFAULT;
        long now = java.time.Instant.parse("2026-12-01T10:00:00Z").toEpochMilli();
        assertThat(rules.restOf("2", now)).isEqualTo(Duration.ofSeconds(2));
        assertThat(rules.restOf(" 120 ", now)).isEqualTo(Duration.ofSeconds(60));
        assertThat(rules.restOf("Tue, 01 Dec 2026 10:00:05 GMT", now)).isEqualTo(Duration.ofSeconds(5));
        assertThat(rules.restOf("Tue, 01 Dec 2026 09:00:00 GMT", now)).as("in the past").isEqualTo(Duration.ofSeconds(1));
        assertThat(rules.restOf("soon", now)).isEqualTo(Duration.ofSeconds(1));
        assertThat(rules.restOf("-3", now)).isEqualTo(Duration.ofSeconds(1));
        // delta-seconds past what a number holds are a long time (RFC 9111 1.2.2: 2^31), not garbled; only digits are delta-seconds.
        assertThat(rules.restOf("9223372036854775808", now)).isEqualTo(Duration.ofSeconds(60));
        assertThat(rules.restOf("99999999999999999999999", now)).isEqualTo(Duration.ofSeconds(60));
        assertThat(rules.restOf("+5", now)).isEqualTo(Duration.ofSeconds(1));
        assertThat(rules.restOf("0", now)).isEqualTo(Duration.ofSeconds(1));
        assertThat(rules.restOf(null, now)).isEqualTo(Duration.ofSeconds(1));
        assertThat(rules.classify(429, null)).isEqualTo(AttemptOutcome.BUSY);
        assertThat(rules.classify(503, "1")).isEqualTo(AttemptOutcome.BUSY);
        assertThat(rules.classify(503, null)).isEqualTo(AttemptOutcome.ERROR_ANSWER);
        assertThat(rules.classify(501, null)).isEqualTo(AttemptOutcome.SUCCESS);
        assertThat(rules.classify(404, null)).isEqualTo(AttemptOutcome.SUCCESS);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RoundRobinLB().setErrorStatuses("500,404"))
                .hasMessage("errorStatuses must be statuses from 500 to 599, was [404, 500]");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RoundRobinLB().setErrorStatuses("500,x"))
                .hasMessage("errorStatuses must be HTTP statuses separated by commas, was '500,x'");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RoundRobinLB().setErrorStatuses("500,,502"))
                .hasMessage("errorStatuses must be HTTP statuses separated by commas, was '500,,502'");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RoundRobinLB().setErrorStatuses(""))
                .hasMessage("errorStatuses must be HTTP statuses separated by commas, was ''");
    }
}
