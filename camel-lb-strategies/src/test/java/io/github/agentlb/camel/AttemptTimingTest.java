package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.IdAware;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Attempt times are measured exactly when someone reads them (an attempt listener, a strategy
 * that overrides {@code attemptCompleted}, a failover deadline), and the clock is not read
 * otherwise (issue 9: two clock reads were a tenth of a decision's cost).
 */
class AttemptTimingTest {

    private static final long TICK = 1_000L;
    private static CamelContext context;
    /** Each read advances the clock by {@link #TICK} ns, so elapsed times count the reads between. */
    private final AtomicLong reads = new AtomicLong();

    private static final class Answering extends AsyncProcessorSupport implements IdAware {
        private final String id;

        Answering(String id) {
            this.id = id;
        }

        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            callback.done(true);
            return true;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public void setId(String ignored) {
        }
    }

    @BeforeAll
    static void startContext() {
        context = new DefaultCamelContext();
        context.start();
    }

    @AfterAll
    static void stopContext() {
        context.stop();
    }

    private <T extends AgentLoadBalancerSupport> T started(T balancer) {
        balancer.setCamelContext(context);
        balancer.useNanoClock(() -> reads.incrementAndGet() * TICK);
        balancer.addProcessor(new Answering("a"));
        balancer.addProcessor(new Answering("b"));
        balancer.start();
        return balancer;
    }

    private static void send(AgentLoadBalancerSupport balancer) {
        assertThat(balancer.process(new DefaultExchange(context), sync -> { })).isTrue();
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
        RoundRobinLB balancer = started(new RoundRobinLB() {
            @Override
            protected void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long nanos) {
                elapsed.add(nanos);
            }
        });
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

    @Test
    void overridesAreFoundInTheStrategyOrItsSuperclasses() {
        assertThat(Attempts.overridesAttemptCompleted(RoundRobinLB.class)).isFalse();
        assertThat(Attempts.overridesAttemptCompleted(ConsistentHashLB.class)).isFalse();
        assertThat(Attempts.overridesAttemptCompleted(PidWeightedLB.class)).isTrue();
        assertThat(Attempts.overridesAttemptCompleted(AdaptiveVirtualNodeLB.class)).isTrue();
        class SubclassOfPid extends PidWeightedLB {
        }
        assertThat(Attempts.overridesAttemptCompleted(SubclassOfPid.class)).isTrue();
    }
}
