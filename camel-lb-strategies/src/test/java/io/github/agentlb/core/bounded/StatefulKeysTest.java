package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.bounded.Placement.Kind;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * {@link BoundedLoads#placeStateful}: a key whose agent holds its state stays on its ring owner
 * under both bounds, and counts as load so that the other keys of that agent leave instead. The
 * clock stands still, so every load is an exact request count.
 */
class StatefulKeysTest {

    private static final List<String> HOME_A = List.of("A", "B", "C");
    private static final List<String> HOME_B = List.of("B", "C", "A");
    private static final List<String> HOME_C = List.of("C", "A", "B");

    private final AtomicLong clock = new AtomicLong();

    private BoundedLoads bound(BoundedLoad config) {
        BoundedLoads loads = new BoundedLoads(config, clock::get);
        loads.setAgents(HOME_A);
        return loads;
    }

    /** Places a stateful key homed at A and counts it sent. */
    private static Placement sendStateful(BoundedLoads loads) {
        Placement placement = loads.placeStateful(new RingWalk(HOME_A.iterator()));
        loads.recordSent(placement.agent());
        return placement;
    }

    /** Places {@code count} cold keys on {@code walk} and counts them sent; ranks at their home above 0.7, so none is passed on. */
    private static void sendCold(BoundedLoads loads, List<String> walk, int count) {
        long[] hashes = LongStream.iterate(1, h -> h + 1)
                .filter(h -> AgentLoads.rank(AgentLoads.rankSalt(walk.get(0)), h) > 0.7).limit(count).toArray();
        for (int i = 0; i < count; i++) {
            Placement placement = loads.place(walk.get(0) + "-" + i, hashes[i], walk.iterator());
            assertThat(placement.agent()).isEqualTo(walk.get(0));
            loads.recordSent(placement.agent());
        }
    }

    @Test
    void aStatefulKeyStaysHomeWhenTheSharesSayFullAndCountsAsLoad() {
        for (boolean rankRule : new boolean[] {true, false}) {
            BoundedLoads loads = bound(BoundedLoad.custom().balanceFactor(1.25).rankRule(rankRule).build());
            for (int i = 0; i < 30; i++) {
                loads.recordSent("B");
                loads.recordSent("C");
            }
            for (int i = 0; i < 44; i++) {
                assertThat(sendStateful(loads)).as("request %d, rank rule %s", i, rankRule)
                        .isEqualTo(new Placement("A", Kind.HOME));
            }
            // A at 44, the mean (104 + 1) / 3 = 35, the capacity ceil(1.25 x 35) = 44: A is full and keeps its handles.
            for (int i = 0; i < 16; i++) {
                assertThat(sendStateful(loads)).isEqualTo(new Placement("A", Kind.HELD));
            }
            assertThat(loads.loads()).containsEntry("A", 60.0).containsEntry("B", 30.0).containsEntry("C", 30.0);
            assertThat(loads.rememberedKeys()).isZero();
        }
    }

    @Test
    void theInFlightBoundDoesNotDivertAStatefulKey() {
        BoundedLoads loads = bound(BoundedLoad.custom().inFlightFactor(1.25).build());
        // A has 10 requests in flight, the others none: a plain key of home A is diverted.
        RingWalk plainWalk = new RingWalk(HOME_A.iterator());
        assertThat(loads.place("plain", 7L, plainWalk, agent -> agent.equals("A") ? 10 : 0))
                .isEqualTo(new Placement("B", Kind.DIVERTED));
        assertThat(loads.placeStateful(new RingWalk(HOME_A.iterator()))).isEqualTo(new Placement("A", Kind.HOME));
    }

    @Test
    void statefulRequestsMakeTheColdKeysOfTheirAgentLeaveUnderTheRankRule() {
        // Without them, a cold key of A stays home.
        BoundedLoads quiet = bound(BoundedLoad.custom().balanceFactor(1.25).build());
        sendCold(quiet, HOME_B, 30);
        sendCold(quiet, HOME_C, 30);
        assertThat(quiet.place("cold", 5L, HOME_A.iterator()).kind()).isEqualTo(Kind.HOME);
        // With 60 stateful requests homed at A, A's demand is 61 against a mean of 121 / 3 = 40.3
        // requests: A must pass on all of its cold demand (the one key), which goes to B.
        BoundedLoads busy = bound(BoundedLoad.custom().balanceFactor(1.25).build());
        sendCold(busy, HOME_B, 30);
        sendCold(busy, HOME_C, 30);
        for (int i = 0; i < 60; i++) {
            sendStateful(busy);
        }
        assertThat(busy.place("cold", 5L, HOME_A.iterator())).isEqualTo(new Placement("B", Kind.OVERFLOW));
    }
}
