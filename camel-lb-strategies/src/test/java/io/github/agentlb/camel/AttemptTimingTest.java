package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.net.ConnectException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CountDownLatch;


import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attempt times are measured exactly when someone reads them (an attempt listener, a strategy
 * that overrides {@code attemptCompleted}, a failover deadline), and the clock is not read
 * otherwise (two clock reads were a tenth of a decision's cost).
 */
class AttemptTimingTest {

    private static final long TICK = 1_000L;
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    /** Each read advances the clock by {@link #TICK} ns, so elapsed times count the reads between. */
    private final AtomicLong reads = new AtomicLong();


    private <T extends AgentLoadBalancerSupport> T started(T balancer) {
        balancer.useNanoClock(() -> reads.incrementAndGet() * TICK);
        return ScriptedChild.started(balancer, CAMEL.get(), ScriptedChild.ok("a"), ScriptedChild.ok("b"));
    }

    private static void send(AgentLoadBalancerSupport balancer) {
        assertThat(balancer.process(new DefaultExchange(CAMEL.get()), sync -> { })).isTrue();
    }

    @Test
    void withoutListenerOverrideOrDeadlineTheClockIsNotRead() {
        RoundRobinLB balancer = started(new RoundRobinLB());
        send(balancer);
        send(balancer);
        assertThat(reads.get()).isZero();
    }

    @Test
    void anAttemptListenerGetsTheTimeFromSendToAnswer() {
        RoundRobinLB balancer = started(new RoundRobinLB());
        List<Long> elapsed = new ArrayList<>();
        balancer.addAttemptListener((strategy, agent, outcome, nanos) -> elapsed.add(nanos));
        send(balancer);
        assertThat(elapsed).containsExactly(TICK);
        assertThat(reads.get()).isEqualTo(2);
    }

    @Test
    void aStrategyThatOverridesAttemptCompletedGetsTheTime() {
        List<Long> elapsed = new ArrayList<>();
        TestBalancer balancer = started(new TestBalancer(new ForwardingStrategy(new RoundRobinStrategy()) {
            @Override
            public void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long nanos,
                    Selection selection) {
                elapsed.add(nanos);
            }

            @Override
            public boolean needsAttemptTimes() {
                return true;
            }
        }));
        send(balancer);
        assertThat(elapsed).containsExactly(TICK);
    }

    @Test
    void aFailoverDeadlineReadsTheClock() {
        RoundRobinLB balancer = started(new RoundRobinLB());
        balancer.setFailoverDeadline(Duration.ofMillis(50));
        send(balancer);
        assertThat(reads.get()).isEqualTo(2);
    }

    /** A child that takes {@code delay} ns of the test clock, then completes as {@code completion} says. */
    private ScriptedChild delayed(String id, long delay, String completion) {
        return ScriptedChild.scripted(id, (exchange, callback) -> {
            clock.addAndGet(delay);
            switch (completion) {
                case "sync" -> {
                    callback.done(true);
                    return true;
                }
                case "async" -> callback.done(false);
                // Camel's Pipeline completes a child this way: the callback as a Runnable, run() -> done(false).
                case "reactive" -> exchange.getContext().getCamelContextExtension().getReactiveExecutor().schedule(callback);
                case "thread" -> {
                    Thread t = new Thread(() -> callback.done(false));
                    t.start();
                    joinQuietly(t);
                }
                default -> throw new IllegalArgumentException(completion);
            }
            return false;
        });
    }

    private final AtomicLong clock = new AtomicLong(1_000_000L);

    private static void joinQuietly(Thread t) {
        try {
            t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sync", "async", "reactive", "thread"})
    void everyWayACamelChildCompletesIsTimedFromSendToAnswer(String completion) {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.useNanoClock(clock::get);
        ScriptedChild.started(balancer, CAMEL.get(), delayed("slow", 50_000_000L, completion));
        List<String> seen = new ArrayList<>();
        balancer.addAttemptListener((strategy, agent, outcome, nanos) -> seen.add(agent + " " + outcome + " " + nanos));
        CountDownLatch done = new CountDownLatch(1);
        balancer.process(new DefaultExchange(CAMEL.get()), sync -> done.countDown());
        assertThat(awaitQuietly(done)).isTrue();
        assertThat(seen).containsExactly("slow SUCCESS 50000000");
    }

    @Test
    void aFailedAttemptIsTimedToo() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.useNanoClock(clock::get);
        balancer.setMaximumFailoverAttempts(0);
        balancer.addProcessor(new AsyncProcessorSupport() {
            @Override
            public boolean process(Exchange exchange, AsyncCallback callback) {
                clock.addAndGet(7_000_000L);
                exchange.setException(new ConnectException("refused"));
                exchange.getContext().getCamelContextExtension().getReactiveExecutor().schedule(callback);
                return false;
            }

            @Override
            public String toString() {
                return "dead";
            }
        });
        balancer.start();
        List<Long> elapsed = new ArrayList<>();
        balancer.addAttemptListener((strategy, agent, outcome, nanos) -> elapsed.add(nanos));
        CountDownLatch done = new CountDownLatch(1);
        balancer.process(new DefaultExchange(CAMEL.get()), sync -> done.countDown());
        assertThat(awaitQuietly(done)).isTrue();
        assertThat(elapsed).containsExactly(7_000_000L);
    }

    private static boolean awaitQuietly(CountDownLatch latch) {
        try {
            return latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void onlyAStrategyThatReadsAttemptTimesSaysSo() {
        assertThat(new RoundRobinLB().strategy().needsAttemptTimes()).isFalse();
        assertThat(new ConsistentHashLB().strategy().needsAttemptTimes()).isFalse();
        assertThat(new LeastRequestLB().strategy().needsAttemptTimes()).isFalse();
        assertThat(new PidWeightedLB().strategy().needsAttemptTimes()).isTrue();
        // avn reads each attempt's load report and ring position, not its time.
        assertThat(new AdaptiveVirtualNodeLB().strategy().needsAttemptTimes()).isFalse();
        assertThat(new ForwardingStrategy(new PidWeightedLB().strategy()).needsAttemptTimes()).isTrue();
    }
}
