package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two tenants over three agents with {@code maxInFlightPerAgent} 2, simulated on a fake clock:
 * tenant H sends prompts of 2000 tokens, tenant L of 200, at the same request rate (H at 10x L's
 * token rate), Poisson arrivals (seeded) for 10 s, total demand 2x what the agents serve; an agent
 * serves a request in 0.1 ms per token. Every figure is exact for the seed.
 */
class FairQueueScenarioTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static final int QUEUE_SIZE = 1000;
    private static final long NANOS_PER_TOKEN = 100_000;
    private static final String ARRIVED = "arrivedAt";

    /** What one run measured. */
    record Run(List<Long> lightWaits, List<Long> heavyWaits, int sent, int completedOk, int maxQueued, long failures) {
        long lightP99Millis() {
            return p99(lightWaits);
        }

        long heavyP99Millis() {
            return p99(heavyWaits);
        }

        private static long p99(List<Long> waits) {
            List<Long> sorted = new ArrayList<>(waits);
            Collections.sort(sorted);
            return sorted.isEmpty() ? 0 : TimeUnit.NANOSECONDS.toMillis(sorted.get((int) Math.ceil(0.99 * sorted.size()) - 1));
        }
    }

    /**
     * @param heavy   whether tenant H sends
     * @param tenants whether the tenant header is sent (false: one shared tenant, first come first served)
     */
    private static Run run(boolean heavy, boolean tenants) {
        return run(heavy, tenants, 0);
    }

    /** @param perTenant {@code maxInFlightPerTenant}, 0 for none */
    private static Run run(boolean heavy, boolean tenants, int perTenant) {
        FakeScheduler fake = new FakeScheduler(1_000_000_000L);
        RoundRobinLB lb = new RoundRobinLB();
        lb.setMaxInFlightPerAgent(2);
        lb.setQueueSize(QUEUE_SIZE);
        lb.setQueueTimeout(Duration.ofMinutes(10));
        lb.setMaxInFlightPerTenant(perTenant);
        lb.useQueueTimer(fake);
        List<Long> lightWaits = new ArrayList<>();
        List<Long> heavyWaits = new ArrayList<>();
        ScriptedChild.startedAgents(lb, CAMEL.get(), fake::nanoTime, id -> ScriptedChild.scripted(id, (attempt, callback) -> {
            long waited = fake.nanoTime() - attempt.getIn().getHeader(ARRIVED, Long.class);
            boolean isHeavy = "H".equals(attempt.getIn().getHeader("class"));
            (isHeavy ? heavyWaits : lightWaits).add(waited);
            long tokens = attempt.getIn().getHeader(Exchange.CONTENT_LENGTH, Long.class) / 4;
            fake.schedule(() -> callback.done(false), tokens * NANOS_PER_TOKEN, TimeUnit.NANOSECONDS);
            return false;
        }), "A1", "A2", "A3");
        Random random = new Random(39);
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger maxQueued = new AtomicInteger();
        long[] failures = new long[1];
        // 6 slots; L: 200 tokens = 20 ms, H: 2000 tokens = 200 ms; rate r each: r * 0.22 s = 12 slots (2x).
        double rate = 12 / 0.22;
        for (String tenant : heavy ? List.of("L", "H") : List.of("L")) {
            long bytes = tenant.equals("H") ? 8000 : 800;
            double t = 0;
            while (true) {
                t += -Math.log(1 - random.nextDouble()) / rate;
                if (t >= 10) {
                    break;
                }
                long at = (long) (t * 1e9);
                fake.schedule(() -> {
                    Exchange exchange = new DefaultExchange(CAMEL.get());
                    exchange.getIn().setHeader(ARRIVED, fake.nanoTime());
                    exchange.getIn().setHeader("class", tenant);
                    if (tenants) {
                        exchange.getIn().setHeader("X-Tenant", tenant);
                    }
                    exchange.getIn().setHeader(Exchange.CONTENT_LENGTH, bytes);
                    sent.incrementAndGet();
                    lb.process(exchange, doneSync -> {
                        if (exchange.getException() == null) {
                            ok.incrementAndGet();
                        } else {
                            failures[0]++;
                        }
                    });
                    maxQueued.accumulateAndGet(lb.queueFigures().size(), Math::max);
                }, at, TimeUnit.NANOSECONDS);
            }
        }
        fake.advance(Duration.ofMinutes(5));
        lb.stop();
        return new Run(lightWaits, heavyWaits, sent.get(), ok.get(), maxQueued.get(), failures[0]);
    }

    @Test
    void theLightTenantWaitsAboutAsLongAsAloneAndNothingIsLost() {
        Run alone = run(false, true);
        Run fair = run(true, true);
        Run fifo = run(true, false);
        System.out.printf("L alone: p99 %d ms (%d requests, queue max %d); with H, VTC: L p99 %d ms, H p99 %d ms, queue max %d;"
                        + " with H, one shared tenant (FIFO): L p99 %d ms, H p99 %d ms, queue max %d%n",
                alone.lightP99Millis(), alone.sent(), alone.maxQueued(), fair.lightP99Millis(), fair.heavyP99Millis(), fair.maxQueued(),
                fifo.lightP99Millis(), fifo.heavyP99Millis(), fifo.maxQueued());
        for (Run run : List.of(alone, fair, fifo)) {
            assertThat(run.completedOk()).isEqualTo(run.sent());
            assertThat(run.failures()).isZero();
            assertThat(run.maxQueued()).isLessThanOrEqualTo(QUEUE_SIZE);
        }
        assertThat(fair.maxQueued()).isGreaterThan(100); // demand 2x capacity: the queue is really used
        // H's backlog is ahead of L under FIFO: L waits behind it for seconds.
        assertThat(fifo.lightP99Millis()).isGreaterThan(2_000);
        // Under VTC, L never waits behind H's backlog: only for the next agent slot to free (H holds
        // one for 200 ms, six of them, so one frees every ~33 ms on average).
        assertThat(fair.lightP99Millis()).isLessThanOrEqualTo(2 * alone.lightP99Millis() + 200);
        assertThat(fair.lightP99Millis() * 20).isLessThan(fifo.lightP99Millis());
    }

    /**
     * A tenant limit of 3 of the 6 places keeps places free for L: L waits only when three of its
     * own are in flight, so its p99 is below one of its service times (20 ms), ten times below VTC's
     * alone (178 ms, one H service); H, kept to half the places while L sends, pays with a longer
     * wait. Limits of 5, 4 and 2 give L 99, 30 and 33 ms (2 caps L too).
     */
    @Test
    void withATenantLimitTheLightTenantWaitsLessThanOneOfItsServices() {
        Run fair = run(true, true);
        Run capped = run(true, true, 3);
        System.out.printf("maxInFlightPerTenant 3: L p99 %d ms, H p99 %d ms, queue max %d (without: L p99 %d ms, H p99 %d ms)%n",
                capped.lightP99Millis(), capped.heavyP99Millis(), capped.maxQueued(), fair.lightP99Millis(),
                fair.heavyP99Millis());
        assertThat(capped.completedOk()).isEqualTo(capped.sent());
        assertThat(capped.failures()).isZero();
        assertThat(capped.maxQueued()).isLessThanOrEqualTo(QUEUE_SIZE);
        assertThat(capped.lightP99Millis()).isEqualTo(13);
        assertThat(capped.heavyP99Millis()).isEqualTo(12_519);
        assertThat(capped.lightP99Millis() * 10).isLessThan(fair.lightP99Millis());
        assertThat(capped.heavyP99Millis()).isGreaterThan(fair.heavyP99Millis());
    }
}
