package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.bounded.Placement.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plain rule exactly at its limit and one request past it, on the walk A, B, C (home A) with
 * a clock that stands still, so loads are exact request counts. mean = (total + 1) / 3,
 * capacity = ceil(1.25 x mean).
 */
class BoundedLoadsEdgeTest {

    private static final List<String> WALK = List.of("A", "B", "C");

    private static BoundedLoads plain(int a, int b, int c) {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().rankRule(false).build(), () -> 0L);
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

    private static Placement place(BoundedLoads loads) {
        return loads.place("k", 42L, WALK.iterator());
    }

    @Test
    void homeTakesTheKeyWhileItsLoadPlusOneIsAtMostTheCapacity() {
        // total 69: mean 23.3, capacity 30; A + 1 = 30
        assertThat(place(plain(29, 20, 20))).isEqualTo(new Placement("A", Kind.HOME));
        // total 70: mean 23.7, capacity 30; A + 1 = 31
        assertThat(place(plain(30, 20, 20))).isEqualTo(new Placement("B", Kind.OVERFLOW));
    }

    @Test
    void theNextAgentTakesTheKeyOnlyIfItHasRoomForOne() {
        // total 89: mean 30, capacity 38: A and B full (B + 1 = 39), C has room
        assertThat(place(plain(40, 38, 11))).isEqualTo(new Placement("C", Kind.OVERFLOW));
        // total 90: mean 30.3, capacity 38: B + 1 = 38 fits
        assertThat(place(plain(40, 37, 13))).isEqualTo(new Placement("B", Kind.OVERFLOW));
    }

    @Test
    void twoAgentsAreBoundedTooAndOneIsAlwaysHome() {
        BoundedLoads two = new BoundedLoads(BoundedLoad.custom().rankRule(false).build(), () -> 0L);
        send(two, "A", 30);
        // total 30: mean 15.5, capacity 20: A is full, B takes the key
        assertThat(two.place("k", 42L, List.of("A", "B").iterator())).isEqualTo(new Placement("B", Kind.OVERFLOW));
        BoundedLoads one = new BoundedLoads(BoundedLoad.ofDefaults(), () -> 0L);
        assertThat(one.place("k", 42L, List.of("A").iterator())).isEqualTo(new Placement("A", Kind.HOME));
    }
}
