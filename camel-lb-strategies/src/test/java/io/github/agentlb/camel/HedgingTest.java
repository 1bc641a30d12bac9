package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.hedge.HedgePolicy;
import io.github.agentlb.testing.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hedged requests on a fake clock and scheduler, through the balancer's Camel face: three agents
 * whose first byte comes after a seeded log-normal time (median 100 ms, sigma 0.25), one of them
 * (A3) five times slower; requests at a fixed rate of 100/s. Each attempt registers the hedge's
 * cancellation as the {@code agent:} child does ({@link AttemptHooks#whenHedgeLost}): a cancelled
 * call's answer never comes. Every figure is exact for the seed.
 *
 * <p>Goal ("The Tail at Scale" for the time to first byte): with hedging on, the p99 time to
 * first byte at most 1.1 times the p99 of the same run with every agent healthy and no hedging,
 * with at most 5% extra agent requests; a POST without {@code Idempotency-Key} never reaches two agents.
 */
class HedgingTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static final long MS = 1_000_000L;
    private static final long START = 1_000 * MS;
    private static final int REQUESTS = 5000;
    private static final long INTERVAL = 10 * MS;

    /** What a run measured. */
    record Run(long p99Nanos, int requests, int agentCalls, int cancelled, long hedgesSent, long hedgesWon,
               Map<String, Integer> callsPerAgent, int failed, long ejections) {
        double extraShare() {
            return (double) (agentCalls - requests) / requests;
        }
    }

    /** Agents whose first byte comes on {@code fake} after a seeded log-normal time; counts calls and cancellations. */
    static final class Agents {
        final FakeScheduler fake;
        final Map<String, Double> medianMs = new HashMap<>();
        final Map<String, Random> draws = new HashMap<>();
        final Map<String, Integer> calls = new HashMap<>();
        /** Agents that answer at once with this status (429 and 503 with {@code Retry-After: 1}). */
        final Map<String, Integer> failing = new HashMap<>();
        /** Agents of {@link #failing} whose answer comes after their delay rather than at once. */
        final java.util.Set<String> failingLate = new java.util.HashSet<>();
        int cancelled;
        /** The spread of each agent's answer time: log-normal, this sigma around its median. */
        double sigma = 0.25;

        Agents(FakeScheduler fake, long seed, double... medians) {
            this.fake = fake;
            for (int i = 0; i < medians.length; i++) {
                String id = "A" + (i + 1);
                medianMs.put(id, medians[i]);
                draws.put(id, new Random(seed + i));
            }
        }

        String[] ids() {
            return medianMs.keySet().stream().sorted().toArray(String[]::new);
        }

        ScriptedChild child(String id) {
            return ScriptedChild.scripted(id, (attempt, callback) -> {
                calls.merge(id, 1, Integer::sum);
                Integer status = failing.get(id);
                if (status != null && !failingLate.contains(id)) {
                    attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
                    if (status == 429 || status == 503) {
                        attempt.getMessage().setHeader("Retry-After", "1");
                    }
                    attempt.getMessage().setBody("failing " + id);
                    callback.done(true);
                    return true;
                }
                double ms = medianMs.get(id) * Math.exp(sigma * draws.get(id).nextGaussian());
                AttemptHooks hooks = attempt.getProperty(AttemptHooks.PROPERTY, AttemptHooks.NONE, AttemptHooks.class);
                boolean[] over = new boolean[1];
                ScheduledFuture<?>[] answer = new ScheduledFuture<?>[1];
                Runnable[] deregister = {AttemptHooks.NOTHING};
                answer[0] = fake.schedule(() -> {
                    if (over[0]) {
                        return;
                    }
                    over[0] = true;
                    deregister[0].run();
                    attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status == null ? 200 : status);
                    if (status != null) {
                        attempt.getMessage().setHeader("Retry-After", "1");
                    }
                    attempt.getMessage().setBody(status == null ? id : "failing " + id);
                    callback.done(false);
                }, (long) (ms * MS), TimeUnit.NANOSECONDS);
                deregister[0] = hooks.whenHedgeLost(() -> {
                    if (!over[0]) {
                        over[0] = true;
                        answer[0].cancel(false);
                        cancelled++;
                        attempt.setException(new HedgeLostException(id));
                        callback.done(false);
                    }
                });
                return false;
            });
        }
    }

    private static RoundRobinLB balancer(FakeScheduler fake, Agents agents, boolean hedging) {
        RoundRobinLB lb = new RoundRobinLB();
        lb.useQueueTimer(fake);
        lb.setHedgingEnabled(hedging);
        return ScriptedChild.startedAgents(lb, CAMEL.get(), fake::nanoTime, agents::child, agents.ids());
    }

    private static Exchange request(String method) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, method);
        return exchange;
    }

    /** {@value #REQUESTS} GETs, one every 10 ms of the fake clock, over agents of these medians (ms). */
    private static Run run(boolean hedging, double... medians) {
        return runSpread(hedging, 0.25, medians);
    }

    /** As {@link #run(boolean, double...)}, the agents' answer times log-normal with this sigma (there 0.25). */
    private static Run runSpread(boolean hedging, double sigma, double... medians) {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 2013, medians);
        agents.sigma = sigma;
        RoundRobinLB lb = balancer(fake, agents, hedging);
        long[] firstByte = new long[REQUESTS];
        int[] failed = new int[1];
        long[] ejections = new long[1];
        lb.addHealthListener(new HealthListener() {
            @Override
            public void agentEjected(String agentId, Duration ejectionTime) {
                ejections[0]++;
            }
        });
        for (int i = 0; i < REQUESTS; i++) {
            int n = i;
            fake.schedule(() -> {
                long sent = fake.nanoTime();
                Exchange exchange = request("GET");
                lb.process(exchange, doneSync -> {
                    firstByte[n] = fake.nanoTime() - sent;
                    if (exchange.getException() != null) {
                        failed[0]++;
                    }
                });
            }, i * INTERVAL, TimeUnit.NANOSECONDS);
        }
        fake.advance(Duration.ofSeconds(REQUESTS / 100 + 60));
        lb.stop();
        long[] sorted = firstByte.clone();
        Arrays.sort(sorted);
        int calls = agents.calls.values().stream().mapToInt(Integer::intValue).sum();
        return new Run(sorted[(int) Math.ceil(0.99 * REQUESTS) - 1], REQUESTS, calls, agents.cancelled, lb.getHedgesSent(),
                lb.getHedgesWon(), new HashMap<>(agents.calls), failed[0], ejections[0]);
    }

    @Test
    void hedgingBringsTheP99OfAFiveTimesSlowerAgentNearTheHealthyOneForFewExtraRequests() {
        Run healthy = run(false, 100, 100, 100);
        Run slowNoHedging = run(false, 100, 100, 500);
        Run hedged = run(true, 100, 100, 500);
        System.out.printf("hedging: healthy p99 %.1f ms; one agent 5x slower: p99 %.1f ms without hedging, %.1f ms with"
                        + " (%d agent calls for %d requests: %.2f%% extra; hedges %d sent, %d won; %d cancelled; calls %s;"
                        + " %d ejections)%n", healthy.p99Nanos() / 1e6, slowNoHedging.p99Nanos() / 1e6, hedged.p99Nanos() / 1e6,
                hedged.agentCalls(), hedged.requests(), 100 * hedged.extraShare(), hedged.hedgesSent(), hedged.hedgesWon(),
                hedged.cancelled(), hedged.callsPerAgent(), hedged.ejections());
        assertThat(slowNoHedging.p99Nanos()).as("without hedging the slow agent owns the tail")
                .isGreaterThan(2 * healthy.p99Nanos());
        assertThat(hedged.failed()).isZero();
        assertThat((double) hedged.p99Nanos()).as("p99 with hedging vs 1.1 x healthy p99")
                .isLessThanOrEqualTo(1.1 * healthy.p99Nanos());
        assertThat(hedged.extraShare()).as("extra agent requests").isLessThanOrEqualTo(0.05);
        assertThat(hedged.agentCalls()).isEqualTo(REQUESTS + hedged.hedgesSent());
        assertThat(hedged.cancelled()).as("every hedge's race ends with one call cancelled")
                .isEqualTo(hedged.hedgesSent());
        // Golden for the seed: the slow agent answers 32 calls (its first ones, before ten first-byte
        // times of an agent were known, then three lost races before its first ejection and one
        // trial per ejection after), and loses 18 hedges.
        assertThat(healthy.p99Nanos()).isEqualTo(178_385_513L);
        assertThat(hedged.p99Nanos()).isEqualTo(195_834_227L);
        assertThat(hedged.callsPerAgent()).containsExactlyInAnyOrderEntriesOf(Map.of("A1", 2559, "A2", 2582, "A3", 32));
        assertThat(hedged.hedgesSent()).isEqualTo(173);
        assertThat(hedged.hedgesWon()).isEqualTo(18);
        assertThat(hedged.ejections()).isEqualTo(3);
    }

    /**
     * Agents alike whose answer times spread wide (log-normal, sigma 0.5, as LLM agents' do): a
     * hedge now and then beats an ordinary slow answer, which says nothing of its agent, so no
     * agent is ejected and the load stays even; the tail is no worse than without hedging.
     */
    @Test
    void agentsAlikeWithWideSpreadAnswerTimesAreNotEjectedForLosingHedges() {
        Run plain = runSpread(false, 0.5, 100, 100, 100);
        Run hedged = runSpread(true, 0.5, 100, 100, 100);
        System.out.printf("hedging, agents alike (sigma 0.5): p99 %.1f ms without, %.1f ms with; hedges %d sent, %d won;"
                        + " calls %s; %d ejections%n", plain.p99Nanos() / 1e6, hedged.p99Nanos() / 1e6, hedged.hedgesSent(),
                hedged.hedgesWon(), hedged.callsPerAgent(), hedged.ejections());
        assertThat(hedged.hedgesWon()).as("hedges won, each a race an agent alike lost").isPositive();
        assertThat(hedged.ejections()).isZero();
        assertThat(hedged.failed()).isZero();
        assertThat(hedged.p99Nanos()).isLessThanOrEqualTo(plain.p99Nanos());
        int most = hedged.callsPerAgent().values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        int least = hedged.callsPerAgent().values().stream().mapToInt(Integer::intValue).min().orElseThrow();
        assertThat((long) (most - least)).as("calls per agent %s", hedged.callsPerAgent()).isLessThanOrEqualTo(hedged.hedgesSent());
    }

    @Test
    void aPostWithoutIdempotencyKeyIsNeverSentTwiceAndOneWithAKeyIs() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 7, 100, 100, 500);
        RoundRobinLB lb = balancer(fake, agents, true);
        lb.setHedgeDelay(Duration.ofMillis(50));
        lb.setHedgePercentile(0);
        List<Exchange> posts = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Exchange post = request("POST");
            posts.add(post);
            lb.process(post, doneSync -> { });
        }
        fake.advance(Duration.ofSeconds(5));
        assertThat(agents.calls.values().stream().mapToInt(Integer::intValue).sum()).as("agent calls for 30 POSTs")
                .isEqualTo(30);
        assertThat(lb.getHedgesSent()).isZero();
        assertThat(posts).allSatisfy(p -> assertThat(p.getException()).isNull());

        Exchange keyed = request("POST");
        keyed.getIn().setHeader("Idempotency-Key", "k-1");
        lb.process(keyed, doneSync -> { });
        fake.advance(Duration.ofSeconds(5));
        assertThat(lb.getHedgesSent()).as("a POST with Idempotency-Key is hedged after 50 ms").isEqualTo(1);
        assertThat(agents.calls.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(32);
        assertThat(agents.cancelled).as("the loser's call cancelled").isEqualTo(1);
        assertThat(keyed.getException()).isNull();
        assertThat(keyed.getProperty(AgentLb.AGENT_PROPERTY)).isNotNull();
    }

    /**
     * A hedge goes to an agent added since the request began when the agents of the state it read
     * are spent: its one agent slow and drained meanwhile, the hedge goes to the new one.
     */
    @Test
    void aHedgeGoesToAnAgentAddedSinceWhenTheRequestsOneAgentIsDrained() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 7, 10_000);
        RoundRobinLB lb = balancer(fake, agents, true);
        lb.setHedgeDelay(Duration.ofMillis(50));
        lb.setHedgePercentile(0);
        lb.setSlowStart(io.github.agentlb.core.fleet.SlowStart.DISABLED);
        Exchange get = request("GET");
        lb.process(get, doneSync -> { });
        fake.advance(Duration.ofMillis(10));
        agents.medianMs.put("A2", 100.0);
        agents.draws.put("A2", new java.util.Random(8));
        lb.drainAgent("A1");
        lb.addAgent("A2", agents.child("A2"), 1.0);
        fake.advance(Duration.ofSeconds(1));

        assertThat(lb.getHedgesSent()).as("the hedge, to the agent added since").isEqualTo(1);
        assertThat(agents.calls).containsEntry("A2", 1);
        assertThat(get.getException()).isNull();
        assertThat(get.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("A2");
    }

    /** An empty or blank Idempotency-Key, or two of them, names no key every agent reads alike: the POST goes to one agent. */
    @Test
    void aPostWithABlankIdempotencyKeyIsNeverSentTwice() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 7, 1000, 1000);
        RoundRobinLB lb = balancer(fake, agents, true);
        lb.setHedgeDelay(Duration.ofMillis(300));
        lb.setHedgePercentile(0);
        for (Object blank : List.of("", " ", "\t", "\u00a0", "\"\"", List.of("", ""), List.of("a", "b"))) {
            Exchange post = request("POST");
            post.getIn().setHeader("Idempotency-Key", blank);
            lb.process(post, doneSync -> { });
            fake.advance(Duration.ofSeconds(5));
            assertThat(post.getException()).isNull();
        }
        assertThat(lb.getHedgesSent()).isZero();
        assertThat(agents.calls.values().stream().mapToInt(Integer::intValue).sum()).as("agent calls for 7 POSTs").isEqualTo(7);
    }

    /**
     * The failover deadline caps hedges as it caps failovers: none starts later than
     * {@code failoverDeadline} after the request's first attempt.
     */
    @Test
    void noHedgeStartsLaterThanTheFailoverDeadlineAfterTheFirstAttempt() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 5, 100_000, 100_000, 100_000, 100_000);
        RoundRobinLB lb = balancer(fake, agents, true);
        lb.setHedgeDelay(Duration.ofSeconds(1));
        lb.setHedgePercentile(0);
        lb.setMaxHedges(3);
        lb.setFailoverDeadline(Duration.ofSeconds(2));
        lb.process(request("GET"), doneSync -> { });
        fake.advance(Duration.ofSeconds(10));
        assertThat(lb.getHedgesSent()).as("a hedge at 1 s; at 2 s the deadline is reached").isEqualTo(1);
        assertThat(agents.calls.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(2);
    }

    /** A1 five times slower than A2 and A3, hedging after a fixed 150 ms. */
    private static RoundRobinLB slowFirst(FakeScheduler fake, Agents agents) {
        RoundRobinLB lb = balancer(fake, agents, true);
        lb.setHedgeDelay(Duration.ofMillis(150));
        lb.setHedgePercentile(0);
        return lb;
    }

    @Test
    void theFirstAnswerWinsTheLoserIsCancelledAndTheSlowAgentEjectedAfterThreeLostRacesInARow() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 500, 100, 100);
        RoundRobinLB lb = slowFirst(fake, agents);
        List<Boolean> completions = new ArrayList<>();
        Exchange first = request("GET");
        assertThat(lb.process(first, completions::add)).isFalse();
        fake.advance(Duration.ofMillis(149));
        assertThat(lb.getHedgesSent()).isZero();
        fake.advance(Duration.ofMillis(1));
        assertThat(lb.getHedgesSent()).as("hedged at 150 ms").isEqualTo(1);
        fake.advance(Duration.ofSeconds(2));
        assertThat(completions).containsExactly(false);
        assertThat(first.getMessage().getBody()).isEqualTo("A2");
        assertThat(first.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("A2");
        assertThat(lb.getHedgesWon()).isEqualTo(1);
        assertThat(agents.cancelled).as("A1's call cancelled").isEqualTo(1);
        assertThat(lb.balancerState().detector.ejected()).as("one lost race ejects no agent").isEmpty();
        assertThat(lb.retriesInFlight().retries()).isZero();
        assertThat(lb.retriesInFlight().requests()).isZero();
        assertThat(lb.getRetries()).as("a hedge is a retry").isEqualTo(1);

        // A1's next two requests (every third, round-robin) are hedged and lost too: three in a row eject it.
        for (int i = 0; i < 6; i++) {
            lb.process(request("GET"), completions::add);
            fake.advance(Duration.ofSeconds(2));
        }
        // Golden for the seed: four hedges, A1's three won by the hedge, one of A2's slow answers won by A2.
        assertThat(lb.getHedgesSent()).isEqualTo(4);
        assertThat(lb.getHedgesWon()).isEqualTo(3);
        assertThat(agents.cancelled).isEqualTo(4);
        assertThat(lb.balancerState().detector.ejected()).as("three lost races in a row eject A1").containsExactly("A1");
    }

    /** No hedge, and none counted, when every other agent is at its in-flight limit: it could reach no agent. */
    @Test
    void noHedgeWhenEveryOtherAgentIsFull() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 500, 500, 500);
        RoundRobinLB lb = slowFirst(fake, agents);
        lb.setMaxInFlightPerAgent(1);
        List<Exchange> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Exchange exchange = request("GET");
            lb.process(exchange, doneSync -> { });
            sent.add(exchange);
        }
        fake.advance(Duration.ofSeconds(2));
        assertThat(lb.getHedgesSent()).isZero();
        assertThat(lb.getRetries()).isZero();
        assertThat(agents.calls).containsOnly(Map.entry("A1", 1), Map.entry("A2", 1), Map.entry("A3", 1));
        assertThat(sent).extracting(e -> e.getMessage().getBody()).containsExactly("A1", "A2", "A3");
    }

    /**
     * With a queue, a hedge's place counts at the gate: with every agent full (two requests, one of
     * them hedged onto the third agent), the requests that come next wait for a place, none gets a 429.
     */
    @Test
    void aHedgesPlaceCountsAtTheQueuesGate() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 3000, 3000, 3000);
        RoundRobinLB lb = slowFirst(fake, agents);
        lb.setMaxInFlightPerAgent(1);
        lb.setQueueSize(10);
        lb.setQueueTimeout(Duration.ofSeconds(30));
        lb.process(request("GET"), doneSync -> { });
        lb.process(request("GET"), doneSync -> { });
        fake.advance(Duration.ofMillis(150));
        assertThat(lb.getHedgesSent()).isEqualTo(1);
        assertThat(agents.calls).containsOnly(Map.entry("A1", 1), Map.entry("A2", 1), Map.entry("A3", 1));

        List<Exchange> next = new ArrayList<>();
        List<Boolean> completions = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Exchange exchange = request("GET");
            assertThat(lb.process(exchange, completions::add)).isFalse();
            next.add(exchange);
        }

        assertThat(completions).as("they wait").isEmpty();
        assertThat(lb.queueFigures().size()).isEqualTo(3);
        fake.advance(Duration.ofSeconds(30));
        assertThat(completions).hasSize(3);
        assertThat(next).allSatisfy(e -> assertThat(e.getException()).isNull());
        assertThat(next).extracting(e -> e.getMessage().getBody()).allMatch(body -> body instanceof String);
    }

    /**
     * A hedge whose agent answers busy (429, 503) or with an error (500) settles nothing: the slow
     * first call is not cut, its agent not ejected, and the client gets its answer.
     */
    @Test
    void aHedgeAnsweredBusyOrWithAnErrorDoesNotWin() {
        for (int status : new int[] {429, 503, 500}) {
            FakeScheduler fake = new FakeScheduler(START);
            Agents agents = new Agents(fake, 11, 500, 100);
            agents.failing.put("A2", status);
            RoundRobinLB lb = slowFirst(fake, agents);
            Exchange first = request("GET");
            lb.process(first, doneSync -> { });
            fake.advance(Duration.ofSeconds(2));

            assertThat(lb.getHedgesSent()).as("%d", status).isEqualTo(1);
            assertThat(lb.getHedgesWon()).as("%d", status).isZero();
            assertThat(agents.cancelled).as("%d: A1's call not cut", status).isZero();
            assertThat(first.getException()).as("%d", status).isNull();
            assertThat(first.getMessage().getBody()).as("%d", status).isEqualTo("A1");
            assertThat(lb.balancerState().detector.isEjected("A1")).as("%d", status).isFalse();
            lb.stop();
        }
    }

    /**
     * With a queue, a hedged request whose first agent answers busy while every other agent is full
     * waits in the queue again, as an unhedged one does, instead of passing the busy answer on.
     */
    @Test
    void aHedgedRequestWaitsAgainAfterABusyAnswerWhenTheOthersAreFull() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 3000, 3000, 3000);
        agents.failing.put("A1", 429);
        RoundRobinLB lb = slowFirst(fake, agents);
        lb.setMaxInFlightPerAgent(1);
        lb.setQueueSize(10);
        lb.setQueueTimeout(Duration.ofSeconds(30));
        lb.process(request("GET"), doneSync -> { }); // A1: 429, then A2
        lb.process(request("GET"), doneSync -> { }); // A3
        fake.advance(Duration.ofMillis(1100)); // A1's rest is over
        assertThat(agents.calls).containsEntry("A1", 1);

        Exchange next = request("GET");
        List<Boolean> completions = new ArrayList<>();
        // Sent back to wait in the queue, it has not completed: the balancer's process says so.
        assertThat(lb.process(next, completions::add)).as("not completed").isFalse();

        assertThat(agents.calls).containsEntry("A1", 2);
        assertThat(completions).as("waits again").isEmpty();
        assertThat(lb.queueFigures().size()).isEqualTo(1);
        agents.failing.clear();
        fake.advance(Duration.ofSeconds(30));
        assertThat(completions).hasSize(1).containsExactly(false);
        assertThat(next.getException()).isNull();
        assertThat(next.getMessage().getBody()).isIn("A1", "A2", "A3");
    }

    /**
     * The first call's agent answers busy after the hedge went out: its failover goes to an agent
     * the hedge is not on (A3), never a second call to the hedge's agent, which is not ejected when
     * its hedge wins.
     */
    @Test
    void aFailoverAfterABusyAnswerAvoidsTheAgentOfAnotherLeg() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 300, 1000, 1000);
        agents.failing.put("A1", 429);
        agents.failingLate.add("A1");
        RoundRobinLB lb = slowFirst(fake, agents);
        Exchange first = request("GET");
        lb.process(first, doneSync -> { });
        fake.advance(Duration.ofSeconds(3));

        assertThat(lb.getHedgesSent()).isEqualTo(1);
        assertThat(agents.calls).containsOnly(Map.entry("A1", 1), Map.entry("A2", 1), Map.entry("A3", 1));
        assertThat(first.getException()).isNull();
        assertThat(first.getMessage().getBody()).isIn("A2", "A3");
        assertThat(lb.balancerState().detector.isEjected(first.getMessage().getBody(String.class)))
                .as("the winner's agent").isFalse();
    }

    @Test
    void noHedgeWhenTheRetryBudgetIsSpent() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 500, 100, 100);
        RoundRobinLB lb = slowFirst(fake, agents);
        lb.setRetryBudgetMinRetries(0);
        lb.setRetryBudgetShare(0);
        Exchange first = request("GET");
        lb.process(first, doneSync -> { });
        fake.advance(Duration.ofSeconds(2));
        assertThat(lb.getHedgesSent()).isZero();
        assertThat(lb.getRetryBudgetExhausted()).as("the refused hedge").isEqualTo(1);
        assertThat(first.getMessage().getBody()).as("the first agent's answer, late").isEqualTo("A1");
        assertThat(agents.calls).containsExactly(Map.entry("A1", 1));
    }

    @Test
    void offByDefaultAndBadValuesNameFieldAndValue() {
        RoundRobinLB lb = new RoundRobinLB();
        assertThat(lb.getHedging()).isEqualTo(HedgePolicy.DISABLED);
        assertThat(lb.isHedgingEnabled()).isFalse();
        assertThatThrownBy(() -> lb.setHedgeDelay("abc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("hedgeDelay must be");
        assertThatThrownBy(() -> lb.setHedgeDelay(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hedgeDelay must be > 0, was PT0S");
        assertThatThrownBy(() -> lb.setHedgePercentile(100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hedgePercentile must be 0 or in (0, 100), was 100.0");
        assertThatThrownBy(() -> lb.setHedgePercentile(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hedgePercentile must be 0 or in (0, 100), was -1.0");
        assertThatThrownBy(() -> lb.setMaxHedges(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxHedges must be in 1..10, was 0");
        assertThat(lb.isHedgingEnabled()).as("refused values change nothing").isFalse();
        lb.setHedgeDelay("250ms");
        lb.setMaxHedges(2);
        assertThat(lb.getHedging()).isEqualTo(new HedgePolicy(true, Duration.ofMillis(250), 97, 2));
    }

    @Test
    void aChildThatAnswersAtOnceCompletesSynchronouslyAsWithoutHedging() {
        RoundRobinLB lb = new RoundRobinLB();
        lb.setHedgingEnabled(true);
        ScriptedChild.started(lb, CAMEL.get(), ScriptedChild.naming("a"), ScriptedChild.naming("b"));
        List<Boolean> completions = new ArrayList<>();
        Exchange exchange = request("GET");
        assertThat(lb.process(exchange, completions::add)).isTrue();
        assertThat(completions).containsExactly(true);
        assertThat(exchange.getMessage().getBody()).isEqualTo("a");
        assertThat(exchange.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("a");
        assertThat(exchange.getProperty(HedgedRequest.LEG_PROPERTY)).isNull();
        assertThat(lb.retriesInFlight().requests()).isZero();
        lb.stop();
    }

    @Test
    void aFailedHedgeWaitsForTheFirstAttemptAndTwoFailuresEndWithTheLast() {
        FakeScheduler fake = new FakeScheduler(START);
        RoundRobinLB lb = new RoundRobinLB();
        lb.useQueueTimer(fake);
        lb.setHedgeDelay(Duration.ofMillis(100));
        lb.setHedgePercentile(0);
        lb.setMaximumFailoverAttempts(0);
        io.github.agentlb.core.health.OutlierEjection off = io.github.agentlb.core.health.OutlierEjection.disabled();
        lb.setOutlierEjection(off);
        boolean[] slowFails = new boolean[1];
        ScriptedChild.startedAgents(lb, CAMEL.get(), fake::nanoTime, id -> ScriptedChild.scripted(id, (attempt, callback) -> {
            if (id.equals("B")) {
                attempt.setException(new java.nio.channels.ClosedChannelException());
                callback.done(true);
                return true;
            }
            fake.schedule(() -> {
                if (slowFails[0]) {
                    attempt.setException(new java.io.IOException("reset"));
                } else {
                    attempt.getMessage().setBody(id);
                }
                callback.done(false);
            }, 300, TimeUnit.MILLISECONDS);
            return false;
        }), "A", "B");
        Exchange first = request("GET");
        lb.process(first, doneSync -> { });
        fake.advance(Duration.ofMillis(100));
        assertThat(lb.getHedgesSent()).isEqualTo(1);
        assertThat(first.getException()).as("the hedge failed; the first attempt still runs").isNull();
        fake.advance(Duration.ofMillis(200));
        assertThat(first.getMessage().getBody()).isEqualTo("A");
        assertThat(lb.getHedgesWon()).isZero();

        Exchange second = request("GET");
        assertThat(lb.process(second, doneSync -> { })).as("rr's turn of B: its failure at once ends it, unhedged").isTrue();
        assertThat(second.getException()).isInstanceOf(NoAgentAvailableException.class).hasMessageContaining("B (");

        slowFails[0] = true;
        Exchange third = request("GET");
        lb.process(third, doneSync -> { });
        fake.advance(Duration.ofSeconds(1));
        assertThat(lb.getHedgesSent()).isEqualTo(2);
        assertThat(third.getException()).as("the last failure: B's hedge failed at 100 ms, A at 300 ms")
                .isInstanceOf(NoAgentAvailableException.class).hasMessageContaining("A (I/O error)");
        assertThat(lb.retriesInFlight().requests()).isZero();
        assertThat(lb.retriesInFlight().retries()).isZero();
        lb.stop();
    }

    @Test
    void theHedgeCountersAreMeters() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 500, 100, 100);
        RoundRobinLB lb = slowFirst(fake, agents);
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        new io.github.agentlb.metrics.LoadBalancerMetrics(lb).bindTo(registry);
        lb.process(request("GET"), doneSync -> { });
        fake.advance(Duration.ofSeconds(1));
        assertThat(registry.get("agentlb.hedges.sent").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("agentlb.hedges.won").functionCounter().count()).isEqualTo(1);
    }

    /**
     * A hedge whose agents all answer busy (A2, A3: 429) ends its leg there: it does not wait again
     * (only the first leg before any hedge may), and the first leg's answer, a late 500, is the client's.
     */
    @Test
    void aHedgeEveryAgentOfWhichAnswersBusyEndsItsLegAndTheFirstLegsAnswerStands() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 500, 100, 100);
        agents.failing.put("A1", 500);
        agents.failingLate.add("A1");
        agents.failing.put("A2", 429);
        agents.failing.put("A3", 429);
        RoundRobinLB lb = slowFirst(fake, agents);
        Exchange first = request("GET");
        List<Boolean> completions = new ArrayList<>();
        lb.process(first, completions::add);

        fake.advance(Duration.ofMillis(150));
        assertThat(lb.getHedgesSent()).isEqualTo(1);
        assertThat(agents.calls).containsOnly(Map.entry("A1", 1), Map.entry("A2", 1), Map.entry("A3", 1));
        assertThat(completions).as("the hedge's busy answers end its leg only").isEmpty();

        fake.advance(Duration.ofSeconds(2));
        assertThat(completions).containsExactly(false);
        assertThat(first.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(500);
        assertThat(first.getMessage().getBody()).isEqualTo("failing A1");
        assertThat(lb.retriesInFlight().retries()).isZero();
        assertThat(lb.retriesInFlight().requests()).isZero();
        lb.stop();
    }

    /**
     * Without a queue to wait in, a hedged request whose first agent answers busy while the other is
     * full takes the busy answer at once, as an unhedged one does.
     */
    @Test
    void withoutAQueueAHedgedRequestTakesTheBusyAnswerWhenTheOtherAgentIsFull() {
        FakeScheduler fake = new FakeScheduler(START);
        Agents agents = new Agents(fake, 11, 3000, 3000);
        agents.failing.put("A1", 429);
        RoundRobinLB lb = slowFirst(fake, agents);
        lb.setMaxInFlightPerAgent(1);
        lb.process(request("GET"), doneSync -> { }); // A1: 429, then A2, which it holds
        fake.advance(Duration.ofMillis(1100)); // A1's rest is over
        assertThat(agents.calls).containsOnly(Map.entry("A1", 1), Map.entry("A2", 1));

        Exchange next = request("GET");
        List<Boolean> completions = new ArrayList<>();
        assertThat(lb.process(next, completions::add)).isTrue();

        assertThat(agents.calls).containsOnly(Map.entry("A1", 2), Map.entry("A2", 1));
        assertThat(completions).containsExactly(true);
        assertThat(next.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        fake.advance(Duration.ofMillis(200));
        assertThat(lb.getHedgesSent()).as("nothing left to hedge").isZero();
        assertThat(completions).containsExactly(true);
        lb.stop();
    }

    /** A hedged request that fails on every leg still names the balancer's strategy on the client's exchange. */
    @Test
    void aHedgedRequestThatFailsOnEveryLegNamesItsStrategy() {
        FakeScheduler fake = new FakeScheduler(START);
        RoundRobinLB lb = new RoundRobinLB();
        lb.useQueueTimer(fake);
        lb.setHedgingEnabled(true);
        lb.setHedgeDelay(Duration.ofMillis(100));
        lb.setHedgePercentile(0);
        lb.setMaximumFailoverAttempts(0);
        lb.setOutlierEjection(io.github.agentlb.core.health.OutlierEjection.disabled());
        ScriptedChild.startedAgents(lb, CAMEL.get(), fake::nanoTime, id -> ScriptedChild.scripted(id, (attempt, callback) -> {
            fake.schedule(() -> {
                attempt.setException(new java.io.IOException("reset by " + id));
                callback.done(false);
            }, id.equals("A") ? 300 : 50, TimeUnit.MILLISECONDS);
            return false;
        }), "A", "B");
        Exchange exchange = request("GET");
        List<Boolean> completions = new ArrayList<>();
        lb.process(exchange, completions::add);

        fake.advance(Duration.ofSeconds(1));

        assertThat(lb.getHedgesSent()).isEqualTo(1);
        assertThat(completions).containsExactly(false);
        assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class).hasMessageContaining("A (I/O error)");
        assertThat(exchange.getProperty(AgentLb.STRATEGY_PROPERTY)).isEqualTo("rr");
        assertThat(exchange.getProperty(HedgedRequest.LEG_PROPERTY)).isNull();
        lb.stop();
    }
}
