package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.testing.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A brown-out, simulated on a fake clock and scheduler: four agents answer GETs in 50-150 ms
 * (seeded), Poisson arrivals (seeded) at 80 requests/s for 60 s (about 8 in flight); from 10 s to
 * 40 s agents A1 and A2 answer every request at once with a 503 without {@code Retry-After}, as
 * the stub agent's {@code answerWith(503, null)} does, then recover. Every strategy runs with the
 * library's defaults plus what the demo proxy sets on a balancer (slow start
 * {@link SlowStart#DEMO}; its health checks probe {@code /health}, which a browned-out agent still
 * answers, so they are left out). Every figure is exact for the seed.
 *
 * <p>Goals: at most 1.2 attempts per client request sent during the brown-out, no client request
 * lost (every one answered 200 by a healthy agent), and the retry budget's counters show the
 * extra attempts: each one a retry, none refused.
 */
class BrownOutTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static final long SECOND = 1_000_000_000L;
    private static final long START = SECOND;
    private static final long BROWN_OUT_FROM = START + 10 * SECOND;
    private static final long BROWN_OUT_UNTIL = START + 40 * SECOND;
    private static final double RATE = 80;
    private static final String SENT_AT = "sentAt";
    private static final List<Supplier<AgentLoadBalancerSupport>> STRATEGIES = List.of(RoundRobinLB::new,
            ConsistentHashLB::new, PidWeightedLB::new, AdaptiveVirtualNodeLB::new, LeastRequestLB::new);

    /** What one run measured; attempts and requests are those sent during the brown-out. */
    record Run(String strategy, int requests, int attempts, int sent, int lost, long retries, long budgetExhausted,
               int attemptsInAll) {
        double attemptsPerRequest() {
            return (double) attempts / requests;
        }
    }

    private static Run run(Supplier<AgentLoadBalancerSupport> create) {
        return run(create, 0);
    }

    /** As {@link #run(Supplier)}, with the browned-out agents' 503 taking {@code unavailableMillis} to arrive. */
    private static Run run(Supplier<AgentLoadBalancerSupport> create, long unavailableMillis) {
        FakeScheduler fake = new FakeScheduler(START);
        AgentLoadBalancerSupport lb = create.get();
        lb.setSlowStart(SlowStart.DEMO);
        if (lb instanceof PidWeightedLB pid) {
            // The control loop runs on the fake clock below, at the default period, not on a real timer.
            pid.setControlPeriod(Duration.ofHours(1));
            fake.scheduleAtFixedRate(pid::controlStep, SECOND, SECOND, TimeUnit.NANOSECONDS);
        }
        Random delays = new Random(37);
        List<Long> attemptsDuringBrownOut = new ArrayList<>();
        int[] attemptsInAll = new int[1];
        ScriptedChild.startedAgents(lb, CAMEL.get(), fake::nanoTime, id -> ScriptedChild.scripted(id, (attempt, callback) -> {
            long now = fake.nanoTime();
            attemptsInAll[0]++;
            long sentAt = attempt.getIn().getHeader(SENT_AT, Long.class);
            if (sentAt >= BROWN_OUT_FROM && sentAt < BROWN_OUT_UNTIL) {
                attemptsDuringBrownOut.add(sentAt);
            }
            boolean brownedOut = (id.equals("A1") || id.equals("A2")) && now >= BROWN_OUT_FROM && now < BROWN_OUT_UNTIL;
            if (brownedOut && unavailableMillis == 0) {
                attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 503);
                attempt.getMessage().setBody("{\"error\":\"unavailable\"}");
                callback.done(true);
                return true;
            }
            if (brownedOut) {
                fake.schedule(() -> {
                    attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 503);
                    callback.done(false);
                }, unavailableMillis, TimeUnit.MILLISECONDS);
                return false;
            }
            long delay = (50 + delays.nextInt(101)) * 1_000_000L;
            fake.schedule(() -> {
                attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
                attempt.getMessage().setBody(id);
                callback.done(false);
            }, delay, TimeUnit.NANOSECONDS);
            return false;
        }), "A1", "A2", "A3", "A4");
        Random arrivals = new Random(41);
        int[] sent = new int[2];
        int[] lost = new int[1];
        double t = 0;
        for (int i = 0; ; i++) {
            t += -Math.log(1 - arrivals.nextDouble()) / RATE;
            if (t >= 60) {
                break;
            }
            String user = "u" + i % 200;
            fake.schedule(() -> {
                long now = fake.nanoTime();
                Exchange exchange = new DefaultExchange(CAMEL.get());
                exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
                exchange.getIn().setHeader("user_id", user);
                exchange.getIn().setHeader(SENT_AT, now);
                sent[0]++;
                if (now >= BROWN_OUT_FROM && now < BROWN_OUT_UNTIL) {
                    sent[1]++;
                }
                lb.process(exchange, doneSync -> {
                    Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
                    if (exchange.getException() != null || status == null || status != 200) {
                        lost[0]++;
                    }
                });
            }, (long) (t * SECOND), TimeUnit.NANOSECONDS);
        }
        fake.advance(Duration.ofSeconds(70));
        Run result = new Run(lb.strategyName(), sent[1], attemptsDuringBrownOut.size(), sent[0], lost[0], lb.getRetries(),
                lb.getRetryBudgetExhausted(), attemptsInAll[0]);
        lb.stop();
        return result;
    }

    @Test
    void everyStrategyServesEveryRequestWithFewExtraAttemptsAndTheBudgetCountsThem() {
        for (Supplier<AgentLoadBalancerSupport> strategy : STRATEGIES) {
            Run r = run(strategy);
            System.out.printf("brown-out %s: %d requests during it, %.3f attempts each; %d of %d lost; retries %d,"
                            + " budget exhausted %d%n", r.strategy(), r.requests(), r.attemptsPerRequest(), r.lost(), r.sent(),
                    r.retries(), r.budgetExhausted());
            assertThat(r.requests()).as(r.strategy()).isGreaterThan(2000);
            assertThat(r.lost()).as(r.strategy() + ": requests lost").isZero();
            assertThat(r.attemptsPerRequest()).as(r.strategy() + ": attempts per request").isLessThanOrEqualTo(1.2);
            assertThat(r.retries()).as(r.strategy() + ": every extra attempt is a retry")
                    .isEqualTo(r.attemptsInAll() - r.sent()).isPositive();
            assertThat(r.budgetExhausted()).as(r.strategy()).isZero();
        }
    }

    /**
     * A 503 that takes 50 ms to come back (an agent, or a proxy, under load): when an agent's rest
     * ends, the requests that reach it before its next 503 is handled all fail over at once, more
     * than the budget's 3 retries in flight. One request, the agent's trial, goes to it after its
     * rest; the others wait for that answer.
     */
    @Test
    void aSlow503AfterARestIsLearnedByOneRequestNotABurst() {
        for (Supplier<AgentLoadBalancerSupport> strategy : STRATEGIES) {
            Run r = run(strategy, 50);
            System.out.printf("brown-out, 503 in 50 ms, %s: %.3f attempts each; %d lost; retries %d, budget exhausted %d%n",
                    r.strategy(), r.attemptsPerRequest(), r.lost(), r.retries(), r.budgetExhausted());
            assertThat(r.lost()).as(r.strategy() + ": requests lost").isZero();
            assertThat(r.budgetExhausted()).as(r.strategy()).isZero();
            assertThat(r.attemptsPerRequest()).as(r.strategy()).isLessThanOrEqualTo(1.2);
        }
    }

    @Test
    void aTrialAnsweredEndsTheWaitAtOnce() {
        FakeScheduler fake = new FakeScheduler(START);
        boolean[] busy = {true};
        ScriptedChild a1 = ScriptedChild.answering("A1", fake::nanoTime, (attempt, now) -> {
            attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, busy[0] ? 503 : 200);
            attempt.getMessage().setBody("A1");
        });
        FixedOrderLB lb = ScriptedChild.started(new FixedOrderLB("A1"), CAMEL.get(), a1);
        lb.useNanoClock(fake::nanoTime);
        List<Object> answers = new ArrayList<>();
        Runnable get = () -> {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
            lb.process(exchange, sync -> { });
            answers.add(exchange.getException() != null ? exchange.getException().getClass().getSimpleName()
                    : exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE));
        };
        get.run();
        get.run();
        busy[0] = false;
        fake.advance(Duration.ofSeconds(1));
        get.run();
        get.run();
        // Resting after a 503: the AgentsBusyException of an outage, AgentsUnavailableException.
        assertThat(answers).as("503; resting; its trial; then at once, not after a wait").containsExactly(503,
                "AgentsUnavailableException", 200, 200);
        assertThat(a1.requests()).hasSize(3);
        lb.stop();
    }

    /**
     * A streaming child's trial: the agent's head says it is no longer busy, and the client may have
     * that head (a whole short answer, even) before the call ends. The next request must not find
     * the agent still waiting for its trial's answer: the head ends the wait.
     */
    @Test
    void aTrialsHeadEndsTheWaitWhileItsAnswerStillStreams() {
        FakeScheduler fake = new FakeScheduler(START);
        boolean[] busy = {true};
        List<AsyncCallback> streaming = new ArrayList<>();
        List<String> a1Calls = new ArrayList<>();
        ScriptedChild a1 = ScriptedChild.scripted("A1", (attempt, callback) -> {
            AttemptHooks hooks = attempt.getProperty(AttemptHooks.PROPERTY, AttemptHooks.class);
            a1Calls.add(attempt.getIn().getHeader("n", String.class));
            int status = busy[0] ? 503 : 200;
            attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
            if (hooks.isBusy(status, null)) {
                callback.done(true);
                return true;
            }
            assertThat(hooks.answerHead()).isTrue(); // the head goes to the client; the body streams on
            attempt.getMessage().setBody("A1");
            streaming.add(callback);
            return false;
        });
        ScriptedChild a2 = ScriptedChild.naming("A2");
        FixedOrderLB lb = ScriptedChild.started(new FixedOrderLB("A1", "A2"), CAMEL.get(), a1, a2);
        lb.useNanoClock(fake::nanoTime);
        List<Exchange> gets = new ArrayList<>();
        for (int n = 1; n <= 3; n++) {
            if (n == 2) {
                busy[0] = false;
                fake.advance(Duration.ofSeconds(1)); // A1's rest after its 503 is over: the next request is its trial
            }
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
            exchange.getIn().setHeader("n", String.valueOf(n));
            lb.process(exchange, sync -> { });
            gets.add(exchange);
        }
        assertThat(gets.get(0).getMessage().getBody()).as("A1's 503, then A2").isEqualTo("A2");
        assertThat(a1Calls).as("the trial's head said A1 is not busy: the third request goes to it").containsExactly("1", "2", "3");
        streaming.forEach(callback -> callback.done(false));
        assertThat(gets.get(1).getMessage().getBody()).isEqualTo("A1");
        assertThat(gets.get(2).getMessage().getBody()).isEqualTo("A1");
        lb.stop();
    }

    @Test
    void anUnavailableAgentRestsAndOnlyAnIdempotentRequestGoesElsewhere() {
        FakeScheduler fake = new FakeScheduler(START);
        ScriptedChild a1 = ScriptedChild.answering("A1", fake::nanoTime, (attempt, now) -> {
            attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 503);
            attempt.getMessage().setBody("A1 503");
        });
        ScriptedChild a2 = ScriptedChild.naming("A2");
        FixedOrderLB lb = ScriptedChild.started(new FixedOrderLB("A1", "A2"), CAMEL.get(), a1, a2);
        lb.useNanoClock(fake::nanoTime);
        Exchange post = new DefaultExchange(CAMEL.get());
        post.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        lb.addAttemptListener((strategy, agent, outcome, nanos) -> assertThat(outcome).isEqualTo(
                agent.equals("A1") ? AttemptOutcome.ERROR_ANSWER : AttemptOutcome.SUCCESS));
        lb.process(post, sync -> { });
        assertThat(post.getMessage().getBody()).as("a POST may have been processed: never sent twice").isEqualTo("A1 503");
        assertThat(post.getMessage().getHeader(AnswerRules.RETRY_AFTER)).as("A1 rests its default 1 s").isEqualTo("1");
        assertThat(a2.requests()).isEmpty();

        Exchange get = new DefaultExchange(CAMEL.get());
        get.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        lb.process(get, sync -> { });
        assertThat(get.getMessage().getBody()).as("A1 rests: not asked").isEqualTo("A2");
        assertThat(a1.requests()).hasSize(1);
        fake.advance(Duration.ofSeconds(1));
        Exchange again = new DefaultExchange(CAMEL.get());
        again.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        lb.process(again, sync -> { });
        assertThat(again.getMessage().getBody()).as("A1 asked again after its rest, then A2").isEqualTo("A2");
        assertThat(a1.requests()).hasSize(2);
        assertThat(lb.getRetries()).isEqualTo(1);

        AnswerRules rules = AnswerRules.DEFAULT;
        assertThat(rules.holdsBack(503, null, "GET", FailoverPolicy.DEFAULT)).isTrue();
        assertThat(rules.holdsBack(503, null, "POST", FailoverPolicy.DEFAULT)).isFalse();
        assertThat(rules.withBusy503Unprocessed(true).holdsBack(503, null, "POST", FailoverPolicy.DEFAULT)).isTrue();
        assertThat(rules.withErrorStatuses(java.util.Set.of(500)).holdsBack(503, null, "GET", FailoverPolicy.DEFAULT))
                .as("503 not an error status: an answer like any other").isFalse();
        assertThat(rules.holdsBack(500, null, "GET", FailoverPolicy.DEFAULT)).isFalse();
        lb.stop();
    }
}
