package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
}
