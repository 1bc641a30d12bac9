package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.agentlb.core.bounded.BoundedLoad.OverflowOrder;
import io.github.agentlb.core.bounded.Placement.Kind;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
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

    @Test
    void configIsValidatedNamingFieldAndValue() {
        assertThatThrownBy(() -> BoundedLoad.custom().balanceFactor(1.0)).hasMessage("balanceFactor must be > 1, was 1.0");
        assertThatThrownBy(() -> BoundedLoad.custom().balanceFactor(Double.NaN)).hasMessageContaining("balanceFactor");
        assertThatThrownBy(() -> BoundedLoad.custom().returnFactor(0)).hasMessage("returnFactor must be > 0, was 0.0");
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
    void aKeyWhoseHomeIsFullGoesToTheNextAgentUnderTheBound() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        send(loads, "A", 100);
        send(loads, "B", 50);
        // total 150, mean (150 + 1) / 3 = 50.3, capacity ceil(1.25 x 50.3) = 63: A is full, B has room.
        Placement placement = place(loads, "k");
        assertThat(placement.agents()).containsExactly("B", "A", "C");
        assertThat(placement.kind()).isEqualTo(Kind.OVERFLOW);
    }

    @Test
    void overflowIsStickyWhereThePlainRuleFlapsBackHome() {
        BoundedLoads sticky = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        BoundedLoads plain = new BoundedLoads(BoundedLoad.custom().sticky(false).build(), clock::get);
        for (BoundedLoads loads : List.of(sticky, plain)) {
            send(loads, "A", 100);
            assertThat(place(loads, "k").agent()).isEqualTo("B");
            send(loads, "B", 90);
            send(loads, "C", 90);
        }
        // A 100, B 90, C 90: capacity ceil(1.25 x 281/3) = 118, so A has room again, but it is above
        // the return level 1.0 x 281/3 = 93.7 with the key's one request added.
        assertThat(plain.place("k", 42L, WALK.iterator())).isEqualTo(new Placement(WALK, Kind.HOME));
        assertThat(sticky.place("k", 42L, WALK.iterator())).isEqualTo(new Placement(List.of("B", "A", "C"), Kind.STICKY));
    }

    @Test
    void anOverflowedKeyReturnsHomeOnlyBelowTheReturnLevel() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        send(loads, "A", 100);
        assertThat(place(loads, "k").kind()).isEqualTo(Kind.OVERFLOW);
        send(loads, "B", 90);
        send(loads, "C", 90);
        assertThat(place(loads, "k").kind()).isEqualTo(Kind.STICKY);
        assertThat(loads.overflowedKeys()).isEqualTo(1);
        send(loads, "B", 100);
        send(loads, "C", 100);
        // A 100 + the key's 2 recent requests + 1 = 103 <= 1.0 x (481 / 3) = 160.3: home again.
        assertThat(place(loads, "k")).isEqualTo(new Placement(WALK, Kind.RETURNED));
        assertThat(loads.overflowedKeys()).isZero();
    }

    @Test
    void aHotKeyStaysWholeOnItsHomeWhileColdKeysLeaveIt() {
        BoundedLoads sticky = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        BoundedLoads plain = new BoundedLoads(BoundedLoad.custom().sticky(false).build(), clock::get);
        for (int i = 0; i < 100; i++) {
            Placement placement = sticky.place("hot", 42L, WALK.iterator());
            assertThat(placement.agent()).isEqualTo("A");
            sticky.recordSent(placement.agent());
            plain.recordSent(plain.place("hot", 42L, WALK.iterator()).agent());
        }
        assertThat(sticky.loads()).containsEntry("A", 100.0);
        assertThat(sticky.place("hot", 42L, WALK.iterator()).kind()).isEqualTo(Kind.HELD);
        assertThat(sticky.place("cold", 42L, WALK.iterator()).kind()).isEqualTo(Kind.OVERFLOW);
        assertThat(plain.loads().values()).allSatisfy(load -> assertThat(load).isGreaterThan(0));
    }

    @Test
    void keySeededOrderDependsOnTheKeyHashNotOnTheWalkOrderOfTheOthers() {
        List<String> walk = List.of("A", "B", "C", "D", "E");
        List<String> order = BoundedLoads.keySeeded(walk, 7L);
        assertThat(order.get(0)).isEqualTo("A");
        assertThat(order).containsExactlyInAnyOrderElementsOf(walk);
        assertThat(BoundedLoads.keySeeded(List.of("A", "E", "D", "C", "B"), 7L)).isEqualTo(order);
        long distinct = java.util.stream.LongStream.range(0, 50).mapToObj(h -> BoundedLoads.keySeeded(walk, h))
                .distinct().count();
        assertThat(distinct).isGreaterThan(10);
    }

    @Test
    void keySeededOverflowSpreadsOverTheOtherAgents() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().overflowOrder(OverflowOrder.KEY_SEEDED).build(),
                clock::get);
        send(loads, "A", 30);
        java.util.Set<String> targets = new java.util.TreeSet<>();
        for (int key = 0; key < 20; key++) {
            targets.add(loads.place("k" + key, key, WALK.iterator()).agent());
        }
        assertThat(targets).containsExactly("B", "C");
    }

    @Test
    void theKeyTableIsCappedAndEvictsTheLeastRecentlySeen() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().maxKeys(32).build(), clock::get);
        send(loads, "A", 10_000);
        clock.set(1);
        assertThat(place(loads, "moved").kind()).isEqualTo(Kind.OVERFLOW);
        for (int key = 0; key < 1000; key++) {
            clock.set(2 + key);
            place(loads, "k" + key);
            if (key % 10 == 0) {
                place(loads, "moved");
            }
        }
        // 32 keys plus a slack of 32 / 16 before each eviction; "moved" was seen within the last 10.
        assertThat(loads.rememberedKeys()).isBetween(32, 34);
        assertThat(place(loads, "moved")).isEqualTo(new Placement(List.of("B", "A", "C"), Kind.STICKY));
        assertThat(place(loads, "k0").kind()).isEqualTo(Kind.OVERFLOW);
    }

    @Test
    void theLoadIsADecayedCountOfRecentRequests() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().decayTime(Duration.ofSeconds(10)).build(), clock::get);
        send(loads, "A", 100);
        clock.set(Duration.ofSeconds(10).toNanos());
        assertThat(loads.loads().get("A")).isCloseTo(100 * Math.exp(-1), within(1e-9));
        DecayedCount count = new DecayedCount(1e9, 5_000_000_000L);
        count.add(1, 5_000_000_000L);
        count.add(1, 4_000_000_000L);
        assertThat(count.valueAt(5_000_000_000L)).isEqualTo(2.0);
        assertThat(count.valueAt(3_000_000_000L)).isEqualTo(2.0);
    }

    @Test
    void nothingMovesUntilTheMeanReachesTenRequestsPerAgent() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        send(loads, "A", 28);
        assertThat(place(loads, "k").kind()).isEqualTo(Kind.HOME);
        loads.recordSent("A");
        assertThat(place(loads, "k").kind()).isEqualTo(Kind.OVERFLOW);
    }

    @Test
    void oneAgentIsAlwaysHome() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        send(loads, "A", 100);
        assertThat(loads.place("k", 1L, List.of("A").iterator())).isEqualTo(new Placement(List.of("A"), Kind.HOME));
    }
}
