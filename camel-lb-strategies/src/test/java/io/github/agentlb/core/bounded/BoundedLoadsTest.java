package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.agentlb.core.bounded.BoundedLoad.OverflowOrder;
import io.github.agentlb.core.bounded.Placement.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The rules on a walk A, B, C (home A) with hand-made loads; the clock stands still unless a test
 * moves it, so every load is an exact request count.
 */
class BoundedLoadsTest {

    private static final List<String> WALK = List.of("A", "B", "C");

    private final AtomicLong clock = new AtomicLong();

    private Placement place(BoundedLoads loads, String key) {
        return loads.place(key, 42L, WALK.iterator());
    }

    private static void send(BoundedLoads loads, String agent, int times) {
        for (int i = 0; i < times; i++) {
            loads.recordSent(agent);
        }
    }

    /** Places and counts {@code key} (hash {@code hash}) on the walk A, B, C. */
    private static Placement sendKey(BoundedLoads loads, String key, long hash) {
        Placement placement = loads.place(key, hash, WALK.iterator());
        loads.recordSent(placement.agent());
        return placement;
    }

    /** A key hash that ranks below 0.1 at A and above 0.5 at B: A passes it on, B keeps it. */
    private static long passedOnByA() {
        return LongStream.range(0, 10_000).filter(h -> AgentLoads.rank(AgentLoads.rankSalt("A"), h) < 0.1)
                .filter(h -> AgentLoads.rank(AgentLoads.rankSalt("B"), h) > 0.5).findFirst().orElseThrow();
    }

    /** Key hashes from {@code from} on that rank above 0.7 at A: A keeps them. */
    private static long[] keptByA(long from, int count) {
        return LongStream.iterate(from, h -> h + 1).filter(h -> AgentLoads.rank(AgentLoads.rankSalt("A"), h) > 0.7)
                .limit(count).toArray();
    }

    @Test
    void configIsValidatedNamingFieldAndValue() {
        assertThatThrownBy(() -> BoundedLoad.custom().balanceFactor(1.0))
                .hasMessage("balanceFactor must be finite and > 1, was 1.0");
        assertThatThrownBy(() -> BoundedLoad.custom().balanceFactor(Double.NaN)).hasMessageContaining("balanceFactor");
        assertThatThrownBy(() -> BoundedLoad.custom().returnFactor(0)).hasMessage("returnFactor must be finite and > 0, was 0.0");
        assertThatThrownBy(() -> BoundedLoad.custom().balanceFactor(1.2).returnFactor(1.2).build())
                .hasMessage("returnFactor must be < balanceFactor (1.2), was 1.2");
        assertThatThrownBy(() -> BoundedLoad.custom().decayTime(Duration.ZERO)).hasMessage("decayTime must be > 0, was PT0S");
        assertThatThrownBy(() -> BoundedLoad.custom().maxKeys(0)).hasMessage("maxKeys must be >= 1, was 0");
        assertThatThrownBy(() -> new BoundedLoads(BoundedLoad.disabled(), clock::get))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("enabled");
        BoundedLoad defaults = BoundedLoad.ofDefaults();
        assertThat(defaults.balanceFactor()).isEqualTo(1.25);
        assertThat(defaults.returnFactor()).isEqualTo(1.0);
        assertThat(defaults.decayTime()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
        assertThat(BoundedLoad.disabled().isEnabled()).isFalse();
    }

    @Test
    void thePlainRuleSendsAKeyWhoseHomeIsFullToTheNextAgentUnderTheBoundAndBackWhenItHasRoom() {
        BoundedLoads plain = new BoundedLoads(BoundedLoad.custom().rankRule(false).build(), clock::get);
        send(plain, "A", 100);
        send(plain, "B", 50);
        // total 150, mean (150 + 1) / 3 = 50.3, capacity ceil(1.25 x 50.3) = 63: A is full, B has room.
        assertThat(place(plain, "k")).isEqualTo(new Placement("B", Kind.OVERFLOW));
        send(plain, "B", 40);
        send(plain, "C", 90);
        // A 100, B 90, C 90: capacity ceil(1.25 x 281/3) = 118: the plain rule goes home at once.
        assertThat(place(plain, "k")).isEqualTo(new Placement("A", Kind.HOME));
    }

    @Test
    void anAgentPassesOnTheColdKeysOfLowestRankUpToTheShareThatMustLeave() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        List<Placement> placements = new ArrayList<>();
        for (long key = 0; key < 3000; key++) {
            placements.add(sendKey(loads, "k" + key, key));
        }
        // All keys are homed at A: A must pass on s(1.25) = (D - 1.25 m) / D = 1 - 1.25 / 3 = 0.583
        // of them, rounded up to the step 10/16, from the first request after the warm-up on.
        long salt = AgentLoads.rankSalt("A");
        for (long key = 30; key < 3000; key++) {
            String expected = AgentLoads.rank(salt, key) >= 10 / 16.0 ? "A" : "passed on";
            assertThat(placements.get((int) key).agent().equals("A") ? "A" : "passed on").as("key %d", key)
                    .isEqualTo(expected);
        }
        // B, offered about 0.625 of the requests, must pass on about (0.625 - 0.417) / 0.625 = 0.333
        // of them: in the last thousand, every key it kept outranks (at B) every key it passed on to C.
        long saltB = AgentLoads.rankSalt("B");
        double highestPassed = 0;
        double lowestKept = 1;
        for (long key = 2000; key < 3000; key++) {
            String agent = placements.get((int) key).agent();
            if (agent.equals("C")) {
                highestPassed = Math.max(highestPassed, AgentLoads.rank(saltB, key));
            } else if (agent.equals("B")) {
                lowestKept = Math.min(lowestKept, AgentLoads.rank(saltB, key));
            }
        }
        assertThat(highestPassed).isLessThan(6 / 16.0).isGreaterThan(4 / 16.0);
        assertThat(lowestKept).isGreaterThan(highestPassed);
        assertThat(loads.loads().get("A") / 3000).isCloseTo(0.375, within(0.03));
        assertThat(loads.loads().get("C") / 3000).isCloseTo(0.625 * 0.333, within(0.03));
        // Deterministic: the figures of this run, pinned.
        assertThat(loads.loads()).isEqualTo(Map.of("A", 1193.0, "B", 1185.0, "C", 622.0));
        assertThat(highestPassed).isCloseTo(0.3733, within(0.00005));
        assertThat(lowestKept).isCloseTo(0.3824, within(0.00005));
    }

    @Test
    void nothingMovesUntilTheMeanReachesTenRequestsPerAgent() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        long away = passedOnByA();
        for (long key = 0; key < 29; key++) {
            assertThat(sendKey(loads, "k" + key, away + 1 + key)).as("key %d", key).isEqualTo(new Placement("A", Kind.HOME));
        }
        assertThat(loads.loads()).containsEntry("A", 29.0);
        // total 29: mean (29 + 1) / 3 = 10: the rule applies; A passes on ranks below 10/16.
        assertThat(sendKey(loads, "away", away)).isEqualTo(new Placement("B", Kind.OVERFLOW));
    }

    @Test
    void theThresholdRisesWithTheShareAtCAndFallsOnlyWithTheShareAtCLow() {
        AgentLoads.Agent agent = new AgentLoads.Agent("A", 1e9, 1e9);
        agent.offered.add(100, 0);
        // s(1.25) = (100 - 1.25 x 50) / 100 = 0.375 = 6/16 exactly
        assertThat(agent.shedThreshold(0, 50, 1.25, 1.0, 1 / 16.0)).isEqualTo(0.375);
        // m = 60: s(1.25) = 0.25 and s(1.0) = 0.4 >= 0.375: unchanged
        assertThat(agent.shedThreshold(0, 60, 1.25, 1.0, 1 / 16.0)).isEqualTo(0.375);
        // m = 64: s(1.0) = 0.36, under 0.375: down to the step below it, 5/16
        assertThat(agent.shedThreshold(0, 64, 1.25, 1.0, 1 / 16.0)).isEqualTo(0.3125);
        // m = 52: s(1.25) = 0.35 > 0.3125: up to the step above it, 6/16
        assertThat(agent.shedThreshold(0, 52, 1.25, 1.0, 1 / 16.0)).isEqualTo(0.375);
        // heavy demand is not shed: cold 50, s(1.25) = (100 - 62.5) / 50 = 0.75
        agent.heavy.add(50, 0);
        assertThat(agent.shedThreshold(0, 50, 1.25, 1.0, 1 / 16.0)).isEqualTo(0.75);
        // m = 100: both shares 0: all keys back
        assertThat(agent.shedThreshold(0, 100, 1.25, 1.0, 1 / 16.0)).isZero();
    }

    @Test
    void aKeyReturnsHomeWhenItsHomeNoLongerHasToShedItAndSaysSo() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        long away = passedOnByA();
        for (long key = 10_000; key < 10_100; key++) {
            sendKey(loads, "k" + key, key);
        }
        long overflowed = loads.overflowedKeys();
        assertThat(overflowed).isPositive();
        assertThat(sendKey(loads, "away", away)).isEqualTo(new Placement("B", Kind.OVERFLOW));
        assertThat(loads.overflowedKeys()).isEqualTo(overflowed + 1);
        assertThat(sendKey(loads, "away", away)).isEqualTo(new Placement("B", Kind.STICKY));
        // 400 requests homed at B and C: A's demand 102 <= 1.0 x (502 / 3): A sheds nothing.
        for (long key = 0; key < 200; key++) {
            loads.place("b" + key, key, List.of("B", "C", "A").iterator());
            loads.place("c" + key, key, List.of("C", "A", "B").iterator());
        }
        assertThat(sendKey(loads, "away", away)).isEqualTo(new Placement("A", Kind.RETURNED));
        assertThat(sendKey(loads, "away", away)).isEqualTo(new Placement("A", Kind.HOME));
    }

    @Test
    void aHotKeyStaysWholeOnItsHomeWhileColdKeysLeaveIt() {
        BoundedLoads ranked = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        BoundedLoads plain = new BoundedLoads(BoundedLoad.custom().rankRule(false).build(), clock::get);
        for (int i = 0; i < 100; i++) {
            assertThat(sendKey(ranked, "hot", 42).agent()).isEqualTo("A");
            sendKey(plain, "hot", 42);
        }
        assertThat(ranked.loads()).containsEntry("A", 100.0);
        assertThat(place(ranked, "hot")).isEqualTo(new Placement("A", Kind.HELD));
        // A's demand is all heavy but for the first three requests: every cold key offered to it is passed on.
        assertThat(place(ranked, "cold")).isEqualTo(new Placement("B", Kind.OVERFLOW));
        assertThat(plain.loads().values()).allSatisfy(load -> assertThat(load).isGreaterThan(0));
    }

    @Test
    void keySeededOrderDependsOnTheKeyHashNotOnTheWalkOrderOfTheOthers() {
        List<String> walk = List.of("A", "B", "C", "D", "E");
        List<String> order = BoundedLoads.keySeeded(walk, 7L);
        assertThat(order.get(0)).isEqualTo("A");
        assertThat(order).containsExactlyInAnyOrderElementsOf(walk);
        assertThat(BoundedLoads.keySeeded(List.of("A", "E", "D", "C", "B"), 7L)).isEqualTo(order);
        long distinct = LongStream.range(0, 50).mapToObj(h -> BoundedLoads.keySeeded(walk, h)).distinct().count();
        assertThat(distinct).isGreaterThan(10);
    }

    @Test
    void keySeededOverflowSpreadsOverTheOtherAgents() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().rankRule(false).overflowOrder(OverflowOrder.KEY_SEEDED)
                .build(), clock::get);
        send(loads, "A", 30);
        Set<String> targets = new TreeSet<>();
        for (int key = 0; key < 20; key++) {
            targets.add(loads.place("k" + key, key, WALK.iterator()).agent());
        }
        assertThat(targets).containsExactly("B", "C");
    }

    @Test
    void theKeyTableIsCappedAndEvictsTheLeastRecentlySeen() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().maxKeys(32).build(), clock::get);
        long away = passedOnByA();
        long[] kept = keptByA(20_000, 1000);
        for (int key = 0; key < 60; key++) {
            sendKey(loads, "w" + key, 10_000 + key);
        }
        clock.set(1);
        assertThat(sendKey(loads, "moved", away).kind()).isEqualTo(Kind.OVERFLOW);
        assertThat(sendKey(loads, "k0", away).kind()).isEqualTo(Kind.OVERFLOW);
        for (int key = 1; key < 1000; key++) {
            clock.set(2 + key);
            sendKey(loads, "k" + key, kept[key]);
            if (key % 20 == 0) {
                sendKey(loads, "moved", away);
            }
        }
        // 32 keys plus a slack of 32 / 16 before each eviction (none left here); "moved" was seen within the last 20.
        assertThat(loads.rememberedKeys()).isEqualTo(32);
        assertThat(sendKey(loads, "moved", away)).isEqualTo(new Placement("B", Kind.STICKY));
        assertThat(sendKey(loads, "k0", away).kind()).isEqualTo(Kind.OVERFLOW);
    }

    @Test
    void theLoadIsADecayedCountOfRecentRequests() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().decayTime(Duration.ofSeconds(10)).build(), clock::get);
        send(loads, "A", 100);
        clock.set(Duration.ofSeconds(10).toNanos());
        assertThat(loads.loads().get("A")).isCloseTo(100 * Math.exp(-1), within(1e-9));
        DecayedCount count = new DecayedCount(1e9);
        assertThat(count.valueAt(Long.MAX_VALUE)).isZero();
        count.add(1, 5_000_000_000L);
        count.add(1, 4_000_000_000L);
        assertThat(count.valueAt(5_000_000_000L)).isEqualTo(2.0);
        assertThat(count.valueAt(3_000_000_000L)).isEqualTo(2.0);
        assertThat(count.lastNanos()).isEqualTo(5_000_000_000L);
    }

    @Test
    void aKeyPlacedAtHomeReadsOnlyTheHomeOfTheWalk() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        loads.setAgents(WALK);
        AtomicInteger read = new AtomicInteger();
        Iterator<String> counted = WALK.stream().peek(agent -> read.incrementAndGet()).iterator();
        RingWalk walk = new RingWalk(counted);

        assertThat(loads.place("k", 42L, walk)).isEqualTo(new Placement("A", Kind.HOME));

        assertThat(read).hasValue(1);
        Iterator<String> failover = walk.startingWith("A");
        assertThat(failover.next()).isEqualTo("A");
        assertThat(read).hasValue(1);
        assertThat(failover).toIterable().containsExactly("B", "C");
        assertThat(new RingWalk(WALK.iterator()).startingWith("B")).toIterable().containsExactly("B", "A", "C");
    }

    @Test
    void membershipIsSetOnChangesAndSurvivorsKeepTheirLoads() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        loads.setAgents(WALK);
        send(loads, "A", 5);
        send(loads, "C", 5);

        loads.setAgents(List.of("A", "B"));

        assertThat(loads.loads()).containsExactly(java.util.Map.entry("A", 5.0), java.util.Map.entry("B", 0.0));
        assertThat(loads.config()).isEqualTo(BoundedLoad.ofDefaults());
    }

    @Test
    void oneAgentIsAlwaysHome() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        send(loads, "A", 100);
        assertThat(loads.place("k", 1L, List.of("A").iterator())).isEqualTo(new Placement("A", Kind.HOME));
    }
}
