package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.bounded.Placement.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each rule of bounded loads exactly at its limit and one request past it, on the walk A, B, C
 * (home A) with a clock that stands still, so loads and key rates are exact request counts.
 * mean = (total + 1) / 3, capacity = ceil(1.25 x mean).
 */
class BoundedLoadsEdgeTest {

    private static final List<String> WALK = List.of("A", "B", "C");
    private static final List<String> AT_B = List.of("B", "A", "C");

    private static BoundedLoads loads(boolean sticky, int a, int b, int c) {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().sticky(sticky).build(), () -> 0L);
        send(loads, "A", a);
        send(loads, "B", b);
        send(loads, "C", c);
        return loads;
    }

    private static void send(BoundedLoads loads, String agent, int times) {
        for (int i = 0; i < times; i++) {
            loads.recordSent(agent);
        }
    }

    private static Placement place(BoundedLoads loads, String key) {
        return loads.place(key, 42L, WALK.iterator());
    }

    @Test
    void homeTakesTheKeyWhileItsLoadPlusOneIsAtMostTheCapacity() {
        for (boolean sticky : new boolean[] {false, true}) {
            // total 69: mean 23.3, capacity 30; A + 1 = 30
            assertThat(place(loads(sticky, 29, 20, 20), "k")).as("sticky %s", sticky)
                    .isEqualTo(new Placement(WALK, Kind.HOME));
            // total 70: mean 23.7, capacity 30; A + 1 = 31
            assertThat(place(loads(sticky, 30, 20, 20), "k")).as("sticky %s", sticky)
                    .isEqualTo(new Placement(AT_B, Kind.OVERFLOW));
        }
    }

    @Test
    void theWarmUpEndsWhenTheMeanReachesTenExactly() {
        // total 29: mean 10, capacity 13, A is full
        assertThat(place(loads(true, 29, 0, 0), "k")).isEqualTo(new Placement(AT_B, Kind.OVERFLOW));
        // total 28: mean 9.7, still warming up: home whatever its load
        assertThat(place(loads(true, 28, 0, 0), "k")).isEqualTo(new Placement(WALK, Kind.HOME));
    }

    @Test
    void aKeyWhoseRateReachesAQuarterOfTheMeanIsHotAndHeldAtHome() {
        // total 59: mean 20, capacity 25; the key is hot from rate (1.25 - 1) x 20 = 5
        BoundedLoads full = loads(true, 26, 17, 16);
        assertThat(place(full, "k")).isEqualTo(new Placement(AT_B, Kind.OVERFLOW));
        for (int rate = 1; rate < 5; rate++) {
            assertThat(place(full, "k")).as("rate %d", rate).isEqualTo(new Placement(AT_B, Kind.STICKY));
        }
        // A + 1 = 27 > 25: held, not moved
        assertThat(place(full, "k")).isEqualTo(new Placement(WALK, Kind.HELD));

        BoundedLoads room = loads(true, 24, 18, 17);
        for (int rate = 0; rate < 5; rate++) {
            assertThat(place(room, "k")).as("rate %d", rate).isEqualTo(new Placement(WALK, Kind.HOME));
        }
        // hot, and A + 1 = 25 is at the capacity: home
        assertThat(place(room, "k")).isEqualTo(new Placement(WALK, Kind.HOME));
    }

    @Test
    void anOverflowedKeyReturnsWhenHomePlusItsRatePlusOneIsAtMostTheMean() {
        BoundedLoads atLevel = loads(true, 40, 10, 9);
        assertThat(place(atLevel, "k")).isEqualTo(new Placement(AT_B, Kind.OVERFLOW));
        send(atLevel, "B", 33);
        send(atLevel, "C", 33);
        // total 125: mean 42; A + rate + 1 = 40 + 1 + 1 = 42
        assertThat(place(atLevel, "k")).isEqualTo(new Placement(WALK, Kind.RETURNED));

        BoundedLoads above = loads(true, 40, 10, 9);
        assertThat(place(above, "k")).isEqualTo(new Placement(AT_B, Kind.OVERFLOW));
        send(above, "B", 33);
        send(above, "C", 32);
        // total 124: mean 41.7 < 42: the key stays on B (44 <= capacity 53)
        assertThat(place(above, "k")).isEqualTo(new Placement(AT_B, Kind.STICKY));
    }

    @Test
    void twoAgentsAreBoundedTooAndOneIsAlwaysHome() {
        BoundedLoads two = new BoundedLoads(BoundedLoad.ofDefaults(), () -> 0L);
        send(two, "A", 30);
        // total 30: mean 15.5, capacity 20: A is full, B takes the key
        assertThat(two.place("k", 42L, List.of("A", "B").iterator()))
                .isEqualTo(new Placement(List.of("B", "A"), Kind.OVERFLOW));
        assertThat(two.place("k", 42L, List.of("A").iterator())).isEqualTo(new Placement(List.of("A"), Kind.HOME));
    }

    @Test
    void anAgentThatLeftTheWalkIsForgotten() {
        BoundedLoads loads = loads(true, 5, 5, 5);

        loads.place("k", 42L, List.of("A", "B").iterator());

        assertThat(loads.loads()).containsOnlyKeys("A", "B");
        assertThat(loads.config()).isEqualTo(BoundedLoad.ofDefaults());
    }
}
