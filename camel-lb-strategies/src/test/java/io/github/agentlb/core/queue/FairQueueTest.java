package io.github.agentlb.core.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FairQueueTest {

    private static final long NEVER = Long.MAX_VALUE / 2;

    private static List<String> drain(FairQueue<String> queue) {
        List<String> order = new ArrayList<>();
        for (FairQueue.Entry<String> e = queue.poll(); e != null; e = queue.poll()) {
            order.add(e.value());
        }
        return order;
    }

    @Test
    void aLightTenantIsReleasedBeforeTheHeavyTenantsBacklogOnceTheirCountersDiffer() {
        FairQueue<String> queue = new FairQueue<>(100);
        for (int i = 1; i <= 5; i++) {
            queue.offer("H" + i, 0, "heavy", 100, NEVER);
        }
        for (int i = 1; i <= 5; i++) {
            queue.offer("L" + i, 0, "light", 10, NEVER);
        }
        // Both start at 0: H1 came first; then light (10..50) stays below heavy (100) for all five.
        assertThat(drain(queue)).containsExactly("H1", "L1", "L2", "L3", "L4", "L5", "H2", "H3", "H4", "H5");
        assertThat(queue.counter(0, "heavy")).isEqualTo(500);
    }

    @Test
    void anEntryOfferedFirstGoesAheadOfItsTenantsOthersOnlyAndCountsAgainstTheCapacity() {
        FairQueue<String> queue = new FairQueue<>(4);
        queue.offer("A1", 0, "a", 1, NEVER);
        queue.offer("A2", 0, "a", 1, NEVER);
        queue.offer("B1", 0, "b", 1, NEVER);
        assertThat(queue.offerFirst("A0", 0, "a", 0, NEVER)).isNotNull();
        assertThat(queue.offerFirst("A-1", 0, "a", 0, NEVER)).as("full").isNull();
        assertThat(queue.size()).isEqualTo(4);
        // A0 first of a's, at no cost: a's counter after A0 is 0, so A1 (a: 1) and B1 (b: 1) follow by sequence.
        assertThat(drain(queue)).containsExactly("A0", "A1", "B1", "A2");
    }

    @Test
    void equalCostsAlternateBetweenTenants() {
        FairQueue<String> queue = new FairQueue<>(100);
        queue.offer("a1", 0, "a", 5, NEVER);
        queue.offer("a2", 0, "a", 5, NEVER);
        queue.offer("a3", 0, "a", 5, NEVER);
        queue.offer("b1", 0, "b", 5, NEVER);
        queue.offer("b2", 0, "b", 5, NEVER);
        assertThat(drain(queue)).containsExactly("a1", "b1", "a2", "b2", "a3");
    }

    @Test
    void aReturningTenantIsLiftedToTheSmallestCounterWaitingSoItBanksNoCredit() {
        FairQueue<String> queue = new FairQueue<>(100);
        queue.offer("a", 0, "a", 500, NEVER);
        queue.offer("b", 0, "b", 300, NEVER);
        queue.poll();
        queue.poll();
        queue.offer("a2", 0, "a", 1, NEVER);
        queue.offer("b2", 0, "b", 1, NEVER);
        assertThat(queue.counter(0, "a")).isEqualTo(500);
        assertThat(queue.counter(0, "b")).isEqualTo(500); // 300 lifted to a's 500, the minimum waiting
        queue.offer("c", 0, "c", 1, NEVER); // new: 0 lifted to 500
        assertThat(queue.counter(0, "c")).isEqualTo(500);
        assertThat(drain(queue)).containsExactly("a2", "b2", "c");
    }

    @Test
    void intoAnEmptyBandATenantIsLiftedToTheCounterOfTheTenantReleasedLast() {
        FairQueue<String> queue = new FairQueue<>(100);
        for (int i = 0; i < 10; i++) {
            queue.offer("a" + i, 0, "a", 100, NEVER);
            queue.poll();
        }
        assertThat(queue.size()).isZero();
        queue.offer("b", 0, "b", 7, NEVER);
        assertThat(queue.counter(0, "b")).isEqualTo(1000);
        queue.offer("a", 0, "a", 7, NEVER);
        assertThat(queue.counter(0, "a")).isEqualTo(1000);
        assertThat(drain(queue)).containsExactly("b", "a");
    }

    @Test
    void aHigherBandIsAlwaysReleasedFirstAndBandsKeepTheirOwnCounters() {
        FairQueue<String> queue = new FairQueue<>(100);
        queue.offer("low1", 0, "t", 1, NEVER);
        queue.offer("low2", 0, "u", 1, NEVER);
        queue.offer("high1", 5, "t", 1000, NEVER);
        queue.offer("mid", 1, "t", 1, NEVER);
        queue.offer("high2", 5, "t", 1000, NEVER);
        assertThat(drain(queue)).containsExactly("high1", "high2", "mid", "low1", "low2");
        assertThat(queue.counter(5, "t")).isEqualTo(2000);
        assertThat(queue.counter(0, "t")).isEqualTo(1); // not 2001: another band's service
    }

    @Test
    void aTenantRefusedByThePollKeepsItsEntriesAndCounterAndAnIneligibleBandIsPassedOver() {
        FairQueue<String> queue = new FairQueue<>(100);
        queue.offer("h1", 1, "heavy", 100, NEVER);
        queue.offer("h2", 1, "heavy", 100, NEVER);
        queue.offer("l1", 0, "light", 10, NEVER);
        queue.offer("x1", 0, "other", 5, NEVER);
        // heavy (band 1, the higher) is at its limit: band 1 is passed over; in band 0 light came first.
        assertThat(queue.poll(t -> !t.equals("heavy")).value()).isEqualTo("l1");
        assertThat(queue.counter(1, "heavy")).isZero();
        // light is at its limit too: only other is eligible.
        assertThat(queue.poll(t -> t.equals("other")).value()).isEqualTo("x1");
        assertThat(queue.poll(t -> false)).isNull();
        assertThat(queue.size()).isEqualTo(2);
        assertThat(queue.poll().value()).isEqualTo("h1");
        assertThat(queue.counter(1, "heavy")).isEqualTo(100);
    }

    @Test
    void aPollOfEveryTenantIsThePlainPoll() {
        Random random = new Random(7);
        FairQueue<String> plain = new FairQueue<>(1000);
        FairQueue<String> all = new FairQueue<>(1000);
        for (int i = 0; i < 300; i++) {
            String tenant = "t" + random.nextInt(5);
            int band = random.nextInt(2);
            double cost = random.nextInt(50);
            plain.offer(tenant + "/" + i, band, tenant, cost, NEVER);
            all.offer(tenant + "/" + i, band, tenant, cost, NEVER);
        }
        List<String> eligibleOrder = new ArrayList<>();
        for (FairQueue.Entry<String> e = all.poll(t -> true); e != null; e = all.poll(t -> true)) {
            eligibleOrder.add(e.value());
        }
        assertThat(eligibleOrder).isEqualTo(drain(plain)).hasSize(300);
    }

    /**
     * Bands come from requests (a priority header): past {@value FairQueue#MAX_BANDS} bands kept, a
     * new band first forgets the empty ones, so a client sending a new priority each time grows
     * nothing, and a release walks at most that many empty bands.
     */
    @Test
    void emptyBandsAreForgottenOnceTheirNumberReachesTheLimit() {
        FairQueue<String> queue = new FairQueue<>(100);
        for (int band = 0; band < 10_000; band++) {
            queue.offer("x" + band, band, "t", 1, NEVER);
            assertThat(queue.poll().value()).isEqualTo("x" + band);
        }
        assertThat(queue.sizes().size()).isLessThanOrEqualTo(FairQueue.MAX_BANDS);
        queue.offer("low", -5, "t", 1, NEVER);
        queue.offer("high", 1_000_000, "t", 1, NEVER);
        assertThat(queue.sizes()).containsEntry(-5, 1).containsEntry(1_000_000, 1);
        assertThat(drain(queue)).containsExactly("high", "low");
    }

    @Test
    void bandsWithEntriesWaitingAreKeptPastTheLimit() {
        FairQueue<String> queue = new FairQueue<>(1000);
        for (int band = 0; band < FairQueue.MAX_BANDS + 10; band++) {
            queue.offer("x" + band, band, "t", 1, NEVER);
        }
        assertThat(queue.sizes()).hasSize(FairQueue.MAX_BANDS + 10);
        assertThat(queue.size()).isEqualTo(FairQueue.MAX_BANDS + 10);
        assertThat(queue.poll().value()).isEqualTo("x" + (FairQueue.MAX_BANDS + 9));
    }

    @Test
    void anOfferBeyondTheBoundIsRefusedAndChangesNothing() {
        FairQueue<String> queue = new FairQueue<>(3);
        assertThat(queue.offer("1", 0, "t", 1, NEVER)).isNotNull();
        assertThat(queue.offer("2", 1, "t", 1, NEVER)).isNotNull();
        assertThat(queue.offer("3", 0, "u", 1, NEVER)).isNotNull();
        assertThat(queue.offer("4", 9, "v", 1, NEVER)).isNull();
        assertThat(queue.size()).isEqualTo(3);
        assertThat(queue.counter(9, "v")).isZero();
        queue.poll();
        assertThat(queue.offer("4", 9, "v", 1, NEVER)).isNotNull();
        assertThat(queue.size()).isEqualTo(3);
    }

    @Test
    void expiredEntriesLeaveInDeadlineOrderUnchargedAndTheNextDeadlineFollows() {
        FairQueue<String> queue = new FairQueue<>(10);
        queue.offer("late", 0, "t", 50, 300);
        queue.offer("early", 0, "t", 50, 100);
        queue.offer("mid", 1, "u", 50, 200);
        assertThat(queue.nextDeadline()).isEqualTo(100);
        assertThat(queue.expire(99)).isEmpty();
        assertThat(queue.expire(200)).extracting(FairQueue.Entry::value).containsExactly("early", "mid");
        assertThat(queue.size()).isEqualTo(1);
        assertThat(queue.sizes()).isEqualTo(Map.of(1, 0, 0, 1));
        assertThat(queue.nextDeadline()).isEqualTo(300);
        assertThat(queue.counter(0, "t")).isZero();
        assertThat(drain(queue)).containsExactly("late");
        assertThat(queue.nextDeadline()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aRemovedEntryIsGoneAtOnceAndNeverReleased() {
        FairQueue<String> queue = new FairQueue<>(10);
        FairQueue.Entry<String> a = queue.offer("a", 0, "t", 1, NEVER);
        queue.offer("b", 0, "t", 1, NEVER);
        assertThat(queue.remove(a)).isTrue();
        assertThat(queue.remove(a)).isFalse();
        assertThat(queue.size()).isEqualTo(1);
        FairQueue.Entry<String> b = queue.poll();
        assertThat(b.value()).isEqualTo("b");
        assertThat(queue.remove(b)).isFalse();
        assertThat(queue.poll()).isNull();
        assertThat(queue.counter(0, "t")).isEqualTo(1);
    }

    @Test
    void outputTokensChargedAfterReleaseMoveTheTenantBack() {
        FairQueue<String> queue = new FairQueue<>(10);
        queue.offer("a1", 0, "a", 10, NEVER);
        queue.offer("b1", 0, "b", 10, NEVER);
        queue.offer("a2", 0, "a", 10, NEVER);
        queue.offer("b2", 0, "b", 10, NEVER);
        assertThat(queue.poll().value()).isEqualTo("a1");
        queue.charge(0, "a", 90); // a1's answer had 90 output tokens
        assertThat(drain(queue)).containsExactly("b1", "b2", "a2");
    }

    @Test
    void idleTenantsAtOrBelowTheFloorAreForgottenAndChargedFromTheFloor() {
        FairQueue<String> queue = new FairQueue<>(10);
        for (int i = 0; i < 50; i++) {
            queue.offer("x", 0, "tenant" + i, 1, NEVER);
            queue.poll();
        }
        assertThat(queue.tenantsKept(0)).isLessThanOrEqualTo(1);
        // Each newcomer was lifted to the last released counter and served 1: the floor is now 50.
        assertThat(queue.counter(0, "tenant3")).isEqualTo(50);
        queue.charge(0, "tenant3", 4); // forgotten: charged from the floor
        assertThat(queue.counter(0, "tenant3")).isEqualTo(54);
        assertThat(queue.tenantsKept(0)).isEqualTo(1);
    }

    /**
     * Under sustained overload from ever new tenants (a per-user key, a client-chosen header), the
     * floor stays below the tenants released: without a bound every one of them would be kept, and
     * each release would scan them all. At most {@link FairQueue#MAX_IDLE_TENANTS} idle counters
     * are kept, the lowest forgotten first (a tenant forgotten comes back lifted to the floor).
     */
    @Test
    void idleTenantsKeptAreBoundedUnderOverloadFromEverNewTenants() {
        FairQueue<String> queue = new FairQueue<>(1000);
        for (int i = 0; i < 100; i++) {
            queue.offer("w" + i, 0, "waiting" + i, 100, NEVER);
        }
        for (int i = 0; i < 20_000; i++) {
            queue.offer("x", 0, "new" + i, 100, NEVER);
            queue.poll();
        }
        assertThat(queue.size()).isEqualTo(100);
        assertThat(queue.tenantsKept(0)).isLessThanOrEqualTo(FairQueue.MAX_IDLE_TENANTS + 100);
    }

    @Test
    void whenFullANewcomerDisplacesTheNewestOfTheTenantWithTheMostWaitingOrOfALowerBand() {
        FairQueue<String> queue = new FairQueue<>(4);
        for (int i = 1; i <= 4; i++) {
            queue.offer("h" + i, 0, "heavy", 1, NEVER);
        }
        assertThat(queue.offer("l1", 0, "light", 1, NEVER)).isNull();
        assertThat(queue.displaceFor(0, "heavy")).as("a tenant never displaces itself").isNull();
        FairQueue.Entry<String> displaced = queue.displaceFor(0, "light");
        assertThat(displaced.value()).isEqualTo("h4");
        assertThat(queue.offer("l1", 0, "light", 1, NEVER)).isNotNull();
        assertThat(queue.offer("l2", 0, "light", 1, NEVER)).isNull();
        assertThat(queue.displaceFor(0, "light")).as("heavy 3, light 1: light's second takes h3").isNotNull()
                .extracting(FairQueue.Entry::value).isEqualTo("h3");
        assertThat(queue.offer("l2", 0, "light", 1, NEVER)).isNotNull();
        assertThat(queue.offer("l3", 0, "light", 1, NEVER)).isNull();
        assertThat(queue.displaceFor(0, "light")).as("2 and 2: even").isNull();
        assertThat(queue.displaceFor(5, "light")).as("a higher band displaces the lower band's newest of the most waiting")
                .isNotNull().extracting(FairQueue.Entry::value).isEqualTo("l2");
        assertThat(queue.offer("p1", 5, "light", 1, NEVER)).isNotNull();
        assertThat(queue.displaceFor(-1, "other")).as("nothing below band -1").isNull();
        assertThat(queue.size()).isEqualTo(4);
        assertThat(drain(queue)).containsExactly("p1", "h1", "l1", "h2");
    }

    @Test
    void twoBackloggedTenantsStayWithinOneRequestsCostWhateverTheirCosts() {
        // The paper's bound (Theorem 4.4) for two tenants backlogged throughout: |c_a - c_b| <= max cost.
        FairQueue<Integer> queue = new FairQueue<>(1000);
        Random random = new Random(42);
        double maxCost = 0;
        for (int i = 0; i < 200; i++) {
            double heavy = 100 + random.nextInt(900);
            double light = 1 + random.nextInt(20);
            maxCost = Math.max(maxCost, Math.max(heavy, light));
            queue.offer(i, 0, "heavy", heavy, NEVER);
            queue.offer(i, 0, "light", light, NEVER);
        }
        int lightReleased = 0;
        for (int i = 0; i < 150; i++) {
            if (queue.poll().tenant().equals("light")) {
                lightReleased++;
            }
            assertThat(Math.abs(queue.counter(0, "heavy") - queue.counter(0, "light"))).isLessThanOrEqualTo(maxCost);
        }
        assertThat(lightReleased).isGreaterThan(130); // by tokens, not by requests: light goes far more often
    }

    @Test
    void tokensAreEstimatedAsBytesOverFourRoundedUp() {
        assertThat(FairQueue.estimateTokens(0)).isZero();
        assertThat(FairQueue.estimateTokens(-3)).isZero();
        assertThat(FairQueue.estimateTokens(1)).isEqualTo(1);
        assertThat(FairQueue.estimateTokens(4)).isEqualTo(1);
        assertThat(FairQueue.estimateTokens(5)).isEqualTo(2);
        assertThat(FairQueue.estimateTokens(4000)).isEqualTo(1000);
    }

    @Test
    void badArgumentsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> new FairQueue<String>(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queueSize");
        FairQueue<String> queue = new FairQueue<>(2);
        assertThatThrownBy(() -> queue.offer("x", 0, "t", -1, NEVER)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cost");
        assertThatThrownBy(() -> queue.offer("x", 0, "t", Double.NaN, NEVER))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cost");
        assertThat(queue.size()).isZero();
    }
}
