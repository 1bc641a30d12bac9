package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How many hedges one request sends, on a fake clock and scheduler: agents of {@link HedgingTest}
 * (seeded first-byte times, cancellation honoured), all slow, hedging after a fixed delay.
 */
class HedgedRequestTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static final long START = 1_000_000_000L;

    private static RoundRobinLB balancer(FakeScheduler fake, HedgingTest.Agents agents, int maxHedges) {
        RoundRobinLB lb = new RoundRobinLB();
        lb.useQueueTimer(fake);
        lb.setHedgingEnabled(true);
        lb.setHedgeDelay(Duration.ofMillis(100));
        lb.setHedgePercentile(0);
        lb.setMaxHedges(maxHedges);
        return ScriptedChild.startedAgents(lb, CAMEL.get(), fake::nanoTime, agents::child, agents.ids());
    }

    /** One GET sent to four slow agents (about 1 s each), hedging after 100 ms, at most {@code maxHedges}. */
    private record Race(FakeScheduler fake, HedgingTest.Agents agents, RoundRobinLB lb, Exchange exchange,
                        List<Boolean> completions) {
        static Race of(int maxHedges) {
            FakeScheduler fake = new FakeScheduler(START);
            HedgingTest.Agents agents = new HedgingTest.Agents(fake, 5, 1000, 1000, 1000, 1000);
            RoundRobinLB lb = balancer(fake, agents, maxHedges);
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
            List<Boolean> completions = new ArrayList<>();
            assertThat(lb.process(exchange, completions::add)).isFalse();
            return new Race(fake, agents, lb, exchange, completions);
        }
    }

    @Test
    void aRequestSendsUpToMaxHedgesOneDelayApartAndArmsNoFurtherHedge() {
        Race race = Race.of(2);
        FakeScheduler fake = race.fake();
        RoundRobinLB lb = race.lb();
        fake.advance(Duration.ofMillis(100));
        assertThat(lb.getHedgesSent()).isEqualTo(1);
        fake.advance(Duration.ofMillis(100));
        assertThat(lb.getHedgesSent()).as("the second hedge, 100 ms after the first").isEqualTo(2);
        assertThat(fake.pendingCount()).as("the three legs' answers, no further hedge armed").isEqualTo(3);
        fake.advance(Duration.ofSeconds(5));
        assertThat(lb.getHedgesSent()).isEqualTo(2);
        assertThat(race.agents().calls.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(3);
        assertThat(race.agents().cancelled).as("the two legs that lost").isEqualTo(2);
        assertThat(race.completions()).containsExactly(false);
        assertThat(race.exchange().getException()).isNull();
        assertThat(lb.retriesInFlight().retries()).isZero();
        assertThat(lb.retriesInFlight().requests()).isZero();
        lb.stop();
    }

    @Test
    void withOneHedgeAllowedTheSecondDelayPassesWithoutAHedge() {
        Race race = Race.of(1);
        race.fake().advance(Duration.ofMillis(100));
        assertThat(race.lb().getHedgesSent()).isEqualTo(1);
        assertThat(race.fake().pendingCount()).as("the two legs' answers only").isEqualTo(2);
        race.fake().advance(Duration.ofSeconds(5));
        assertThat(race.lb().getHedgesSent()).isEqualTo(1);
        assertThat(race.exchange().getException()).isNull();
        race.lb().stop();
    }

    /**
     * Two agents on the fake clock: A1, the first leg, answers 200 at {@code a1AnswerMs}; A2, the hedge
     * sent at 100 ms, runs {@code a2} on its hooks at {@code a2StepMs}.
     */
    private static RoundRobinLB twoAgents(FakeScheduler fake, long a1AnswerMs, long a2StepMs,
            java.util.function.BiConsumer<AttemptHooks, Exchange> a2, List<String> log) {
        return twoAgents(fake, 200, a1AnswerMs, a2StepMs, a2, log);
    }

    /** As {@link #twoAgents(FakeScheduler, long, long, java.util.function.BiConsumer, List)}, A1 answering {@code a1Status}. */
    private static RoundRobinLB twoAgents(FakeScheduler fake, int a1Status, long a1AnswerMs, long a2StepMs,
            java.util.function.BiConsumer<AttemptHooks, Exchange> a2, List<String> log) {
        RoundRobinLB lb = new RoundRobinLB();
        lb.useQueueTimer(fake);
        lb.setHedgingEnabled(true);
        lb.setHedgeDelay(Duration.ofMillis(100));
        lb.setHedgePercentile(0);
        lb.setMaxHedges(1);
        Map<String, ScriptedChild> children = Map.of(
                "A1", ScriptedChild.scripted("A1", (attempt, callback) -> {
                    fake.schedule(() -> {
                        attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, a1Status);
                        attempt.getMessage().setBody("A1");
                        callback.done(false);
                    }, a1AnswerMs, TimeUnit.MILLISECONDS);
                    return false;
                }),
                "A2", ScriptedChild.scripted("A2", (attempt, callback) -> {
                    log.add("A2 called");
                    AttemptHooks hooks = attempt.getProperty(AttemptHooks.PROPERTY, AttemptHooks.NONE, AttemptHooks.class);
                    Runnable end = () -> {
                        log.add("A2 ended as lost");
                        attempt.setException(new HedgeLostException("A2"));
                        callback.done(false);
                    };
                    fake.schedule(() -> a2.accept(hooks, attempt), a2StepMs, TimeUnit.MILLISECONDS);
                    attempt.setProperty("test.end", end);
                    attempt.setProperty("test.callback", callback);
                    return false;
                }));
        return ScriptedChild.startedAgents(lb, CAMEL.get(), fake::nanoTime, children::get, "A1", "A2");
    }

    private static Exchange get() {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        return exchange;
    }

    @Test
    void aLegThatRegistersItsCancelAfterItLostIsEndedAtOnceAndItsAnswerHeadMayNotGoOut() {
        FakeScheduler fake = new FakeScheduler(START);
        List<String> log = new ArrayList<>();
        List<Object> seen = new ArrayList<>();
        List<AttemptHooks> hooksSeen = new ArrayList<>();
        RoundRobinLB lb = twoAgents(fake, 150, 100, (hooks, attempt) -> {
            hooksSeen.add(hooks);
            seen.add(hooks.answerHead());
            Runnable deregister = hooks.whenHedgeLost(attempt.getProperty("test.end", Runnable.class));
            seen.add(deregister);
        }, log);
        lb.setSessionHeader("Mcp-Session-Id"); // the session hooks ask the leg's
        Exchange exchange = get();
        List<Boolean> completions = new ArrayList<>();
        lb.process(exchange, completions::add);

        fake.advance(Duration.ofMillis(150));
        assertThat(log).as("the hedge went out at 100 ms").containsExactly("A2 called");
        assertThat(completions).as("A1 answered first").containsExactly(false);
        assertThat(exchange.getMessage().getBody()).isEqualTo("A1");

        fake.advance(Duration.ofMillis(100));
        assertThat(seen).as("the lost leg's head may not answer; its cancel ran at once").containsExactly(false,
                AttemptHooks.NOTHING);
        assertThat(log).containsExactly("A2 called", "A2 ended as lost");
        assertThat(hooksSeen).singleElement().isInstanceOf(SessionAttemptHooks.class);
        assertThat(completions).containsExactly(false);
        assertThat(exchange.getMessage().getBody()).isEqualTo("A1");
        lb.stop();
    }

    @Test
    void aCancelDeregisteredBeforeAnotherLegWinsIsNeverRun() {
        FakeScheduler fake = new FakeScheduler(START);
        List<String> log = new ArrayList<>();
        RoundRobinLB lb = twoAgents(fake, 150, 10, (hooks, attempt) -> {
            Runnable deregister = hooks.whenHedgeLost(attempt.getProperty("test.end", Runnable.class));
            deregister.run();
            fake.schedule(() -> {
                attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
                attempt.getMessage().setBody("A2");
                attempt.getProperty("test.callback", org.apache.camel.AsyncCallback.class).done(false);
            }, 190, TimeUnit.MILLISECONDS);
        }, log);
        List<String> outcomes = new ArrayList<>();
        lb.addAttemptListener((strategy, agent, outcome, elapsedNanos) -> outcomes.add(agent + " " + outcome));
        Exchange exchange = get();
        List<Boolean> completions = new ArrayList<>();
        lb.process(exchange, completions::add);

        fake.advance(Duration.ofMillis(200));

        assertThat(completions).containsExactly(false);
        assertThat(exchange.getMessage().getBody()).isEqualTo("A1");
        assertThat(log).as("deregistered at 110 ms, before A1 won at 150 ms").containsExactly("A2 called");

        fake.advance(Duration.ofMillis(100));
        assertThat(outcomes).as("A2's answer at 300 ms came after A1 won: discarded").containsExactly("A1 SUCCESS",
                "A2 CANCELLED");
        assertThat(exchange.getMessage().getBody()).isEqualTo("A1");
        assertThat(completions).containsExactly(false);
        lb.stop();
    }

    @Test
    void aRequestPinnedToAnAgentIsNeverHedgedAndAPinWithoutAgentIs() {
        FakeScheduler fake = new FakeScheduler(START);
        RoundRobinLB lb = twoAgents(fake, 150, 10, (hooks, attempt) -> { }, new ArrayList<>());
        BalancerState state = lb.balancerState();

        assertThat(HedgedRequest.hedges(state, get(), null)).isTrue();
        assertThat(HedgedRequest.hedges(state, get(), new SessionAffinity.Pin("A1", "s", null))).isFalse();
        assertThat(HedgedRequest.hedges(state, get(), SessionAffinity.Pin.NEW_PICK)).isTrue();
        lb.stop();
    }

    /**
     * What a leg's attempt answers its streaming child: an error answer is held back (another leg may
     * still answer well), a success is not; an unsettled answer may pass on only once no other leg
     * runs. A1 answers 500 at 150 ms, which ends its leg only; the hedge on A2 then answers alone.
     */
    @Test
    void aLegHoldsBackAnErrorAnswerAndPassesOnAnUnsettledOneOnlyOnceNoOtherLegRuns() {
        FakeScheduler fake = new FakeScheduler(START);
        List<String> asked = new ArrayList<>();
        RoundRobinLB lb = twoAgents(fake, 500, 150, 10, (hooks, attempt) -> {
            asked.add(hooks.isBusy(500, null) + " " + hooks.isBusy(200, null) + " " + hooks.passesOnUnsettled());
            fake.schedule(() -> {
                asked.add("alone: " + hooks.passesOnUnsettled());
                attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
                attempt.getMessage().setBody("A2");
                attempt.getProperty("test.callback", org.apache.camel.AsyncCallback.class).done(false);
            }, 90, TimeUnit.MILLISECONDS);
        }, new ArrayList<>());
        Exchange exchange = get();
        List<Boolean> completions = new ArrayList<>();
        lb.process(exchange, completions::add);

        fake.advance(Duration.ofMillis(150));
        assertThat(asked).as("at 110 ms, while A1's leg runs").containsExactly("true false false");
        assertThat(completions).as("A1's 500 ends its leg, not the request").isEmpty();

        fake.advance(Duration.ofMillis(100));
        assertThat(asked).containsExactly("true false false", "alone: true");
        assertThat(completions).containsExactly(false);
        assertThat(exchange.getMessage().getBody()).isEqualTo("A2");
        lb.stop();
    }

    /**
     * With two agents, each on a leg, the second hedge delay finds no agent left: no third leg is
     * sent, nor counted, and the request ends with the legs it has.
     */
    @Test
    void withEveryAgentOnALegTheNextHedgeDelaySendsAndCountsNothing() {
        FakeScheduler fake = new FakeScheduler(START);
        HedgingTest.Agents agents = new HedgingTest.Agents(fake, 5, 1000, 1000);
        RoundRobinLB lb = balancer(fake, agents, 2);
        Exchange exchange = get();
        List<Boolean> completions = new ArrayList<>();
        lb.process(exchange, completions::add);

        fake.advance(Duration.ofMillis(100));
        assertThat(lb.getHedgesSent()).isEqualTo(1);
        fake.advance(Duration.ofMillis(100));
        assertThat(lb.getHedgesSent()).as("both agents on a leg: none left for a third").isEqualTo(1);
        assertThat(lb.getRetries()).isEqualTo(1);
        assertThat(fake.pendingCount()).as("the two legs' answers only").isEqualTo(2);

        fake.advance(Duration.ofSeconds(5));
        assertThat(completions).containsExactly(false);
        assertThat(exchange.getException()).isNull();
        assertThat(agents.calls.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(2);
        assertThat(lb.retriesInFlight().retries()).isZero();
        assertThat(lb.retriesInFlight().requests()).isZero();
        lb.stop();
    }

    /**
     * With the percentile 0 (the fixed delay) no first-byte time is kept: a percentile set later
     * starts from the fixed delay until the agents have times of their own again.
     */
    @Test
    void withTheFixedDelayNoFirstByteTimeIsKeptForAPercentileSetLater() {
        FakeScheduler fake = new FakeScheduler(START);
        HedgingTest.Agents agents = new HedgingTest.Agents(fake, 5, 20, 20);
        agents.sigma = 0;
        RoundRobinLB lb = balancer(fake, agents, 1);
        for (int i = 0; i < 20; i++) {
            lb.process(get(), doneSync -> { });
            fake.advance(Duration.ofMillis(50));
        }
        assertThat(lb.getHedgesSent()).as("every answer in 20 ms").isZero();
        lb.setHedgePercentile(50);
        agents.medianMs.replaceAll((agent, ms) -> 1000.0);

        lb.process(get(), doneSync -> { });
        fake.advance(Duration.ofMillis(99));
        assertThat(lb.getHedgesSent()).as("not after the 20 ms answered at percentile 0").isZero();
        fake.advance(Duration.ofMillis(1));
        assertThat(lb.getHedgesSent()).as("after the fixed 100 ms").isEqualTo(1);
        lb.stop();
    }
}
