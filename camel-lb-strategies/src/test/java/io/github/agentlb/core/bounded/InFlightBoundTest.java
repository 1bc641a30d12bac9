package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.bounded.Placement.Kind;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.ring.HashRing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Iterator;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The in-flight bound (KubeAI's {@code chwblLoadOK}: {@code inFlight + 1 <= f x (total + 1) / n})
 * on the walk A, B, C (home A) with hand-made counts; the clock moves only where a test says so,
 * and the share bound is below its warm-up, so without the in-flight bound every request stays home.
 */
class InFlightBoundTest {

    private static final List<String> WALK = List.of("A", "B", "C");

    private final AtomicLong clock = new AtomicLong();

    private BoundedLoads loads(double inFlightFactor) {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().inFlightFactor(inFlightFactor).build(), clock::get);
        loads.setAgents(WALK);
        return loads;
    }

    private static Placement place(BoundedLoads loads, int a, int b, int c) {
        Map<String, Integer> inFlight = Map.of("A", a, "B", b, "C", c);
        return loads.place("k", 42L, new RingWalk(WALK.iterator()), agent -> inFlight.getOrDefault(agent, 0));
    }

    @Test
    void configIsValidatedNamingFieldAndValue() {
        assertThat(BoundedLoad.ofDefaults().inFlightFactor()).isEqualTo(0.0);
        assertThat(BoundedLoad.ofDefaults().boundsInFlight()).isFalse();
        assertThat(BoundedLoad.disabled().boundsInFlight()).isFalse();
        BoundedLoad kubeAi = BoundedLoad.custom().inFlightFactor(BoundedLoad.KUBEAI_IN_FLIGHT_FACTOR).build();
        assertThat(kubeAi.boundsInFlight()).isTrue();
        assertThat(kubeAi.toBuilder().build()).isEqualTo(kubeAi).isNotEqualTo(BoundedLoad.ofDefaults());
        assertThat(kubeAi.toString()).endsWith("rankRule=true, inFlightFactor=1.25]");
        assertThat(BoundedLoad.ofDefaults().toString()).endsWith("rankRule=true]");
        assertThat(BoundedLoad.custom().inFlightFactor(1).build().inFlightFactor()).isEqualTo(1.0);
        for (double bad : new double[] {0.5, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> BoundedLoad.custom().inFlightFactor(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("inFlightFactor must be 0 (off) or finite and >= 1, was " + bad);
        }
    }

    @ParameterizedTest(name = "f = {0}, in flight A {1}, B {2}, C {3}: {4} {5}")
    @CsvSource({
            // Nothing in flight: the share bound's choice stands.
            "1.25, 0, 0, 0, A, HOME",
            // An agent over the bound passes the request to the next agent within:
            // total 2, capacity 1.25 x 3 / 3 = 1.25: A (2 + 1) is over, B (0 + 1) within.
            "1.25, 2, 0, 0, B, DIVERTED",
            // total 6, capacity 1.25 x 7 / 3 = 2.92: A and B (3 + 1) over, C (0 + 1) within.
            "1.25, 3, 3, 0, C, DIVERTED",
            // total 1, capacity 1.25 x 2 / 3 = 0.83: nobody fits, home keeps it.
            "1.25, 1, 0, 0, A, HOME",
            // total 3, capacity 1.25 x 4 / 3 = 1.67: each at 1 + 1 = 2 is over; home keeps it.
            "1.25, 1, 1, 1, A, HOME",
            // total 4, capacity 1.25 x 5 / 3 = 2.08: A (1 + 1) within.
            "1.25, 1, 3, 0, A, HOME",
            // The bound is exact at its edge:
            // f = 3, total 1: capacity 3 x 2 / 3 = 2, and A's 1 + 1 = 2 fits.
            "3, 1, 0, 0, A, HOME",
            // f = 2, total 1: capacity 2 x 2 / 3 = 1.33, A's 2 does not fit, B's 1 does.
            "2, 1, 0, 0, B, DIVERTED",
            // f = 1, total 2 on C: capacity 1, A (0 + 1) fits.
            "1, 0, 0, 2, A, HOME",
    })
    void aRequestGoesToTheFirstAgentOnTheWalkWithinTheBoundOrStaysHomeWhenNoneIs(double inFlightFactor, int a, int b, int c,
            String agent, Kind kind) {
        assertThat(place(loads(inFlightFactor), a, b, c)).isEqualTo(new Placement(agent, kind));
    }

    @Test
    void aDiversionIsForOneRequestAndTheKeyStaysHome() {
        BoundedLoads loads = loads(1.25);
        assertThat(place(loads, 2, 0, 0)).isEqualTo(new Placement("B", Kind.DIVERTED));
        assertThat(place(loads, 0, 0, 0)).isEqualTo(new Placement("A", Kind.HOME));
        assertThat(loads.overflowedKeys()).isZero();
    }

    @Test
    void aKeptPlacementHoldsForTheKeysSessionAndIsMadeAfreshAfterAPauseOrWhenItsAgentLeaves() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().inFlightFactor(1.25).keepInFlightPlacement(true)
                .build(), clock::get);
        loads.setAgents(WALK);
        assertThat(loads.config().toString()).endsWith("inFlightFactor=1.25, kept]");
        // total 2, capacity 1.25: A over, the key is placed on B and remembered there.
        assertThat(place(loads, 2, 0, 0)).isEqualTo(new Placement("B", Kind.DIVERTED));
        // A has room again: the key stays on B (per request it would go home).
        clock.addAndGet(Duration.ofSeconds(9).toNanos());
        assertThat(place(loads, 0, 0, 0)).isEqualTo(new Placement("B", Kind.DIVERTED));
        // total 4, capacity 2.08; B holds 3: not checked again while the key's requests keep coming.
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(place(loads, 1, 3, 0)).isEqualTo(new Placement("B", Kind.DIVERTED));
        // A pause longer than the decay time (10 s): placed afresh, home fits (A's 1 + 1 <= 2.08).
        clock.addAndGet(Duration.ofSeconds(10).toNanos() + 1);
        assertThat(place(loads, 1, 3, 0)).isEqualTo(new Placement("A", Kind.HOME));
        // ... and kept there: C's 0 would fit as well, B's 3 + 1 would not.
        assertThat(place(loads, 3, 0, 0)).isEqualTo(new Placement("A", Kind.HOME));
        // A leaves: the key is placed anew.
        loads.setAgents(List.of("B", "C"));
        assertThat(loads.place("k", 42L, new RingWalk(List.of("B", "C").iterator()), agent -> 0))
                .isEqualTo(new Placement("B", Kind.HOME));
    }

    /**
     * A kept key's request while another of the key is in flight (the caller's count) is placed as
     * the bound places any request, from the kept agent; alone again, the key is kept whatever its
     * agent's load. The count never goes below zero.
     */
    @Test
    void aKeptKeysRequestWhileAnotherIsInFlightIsPlacedPerRequest() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().inFlightFactor(1.25).keepInFlightPlacement(true)
                .build(), clock::get);
        loads.setAgents(WALK);
        assertThat(loads.requestStarted("k")).isZero();
        assertThat(loads.place("k", 42L, new RingWalk(WALK.iterator()), inFlight(0, 0, 0), false))
                .isEqualTo(new Placement("A", Kind.HOME));
        // total 2, capacity 1.25: A's 2 + 1 over, B's 0 + 1 within.
        assertThat(loads.requestStarted("k")).isEqualTo(1);
        assertThat(loads.place("k", 42L, new RingWalk(WALK.iterator()), inFlight(2, 0, 0), true))
                .isEqualTo(new Placement("B", Kind.DIVERTED));
        loads.requestEnded("k");
        assertThat(loads.requestStarted("k")).as("one of two ended").isEqualTo(1);
        loads.requestEnded("k");
        loads.requestEnded("k");
        loads.requestEnded("k");
        loads.requestEnded("unknown");
        assertThat(loads.requestStarted("k")).isZero();
        assertThat(loads.place("k", 42L, new RingWalk(WALK.iterator()), inFlight(2, 0, 0), false))
                .as("kept").isEqualTo(new Placement("A", Kind.HOME));
    }

    @Test
    void aKeptPlacementCountsTheAgentsSessionsSoThatATurnsGapDoesNotMakeItLookIdle() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().inFlightFactor(1.25).keepInFlightPlacement(true)
                .build(), clock::get);
        loads.setAgents(WALK);
        // k1: A holds 2, capacity 1.25 x 3 / 3 = 1.25: placed on B, one session there.
        assertThat(loads.place("k1", 42L, new RingWalk(WALK.iterator()), inFlight(2, 0, 0)))
                .isEqualTo(new Placement("B", Kind.DIVERTED));
        assertThat(loads.keptSessions()).isEqualTo(Map.of("B", 1));
        // k2 while k1 is between turns (B holds 0 in flight): B still counts its session, so the
        // total is 3, capacity 1.67, B's 1 + 1 does not fit, C's does (by requests alone: B).
        assertThat(loads.place("k2", 43L, new RingWalk(WALK.iterator()), inFlight(2, 0, 0)))
                .isEqualTo(new Placement("C", Kind.DIVERTED));
        assertThat(loads.keptSessions()).isEqualTo(Map.of("B", 1, "C", 1));
        // Both sessions end (no request for longer than the decay time): the next placement recounts.
        clock.addAndGet(Duration.ofSeconds(11).toNanos());
        assertThat(loads.place("k3", 44L, new RingWalk(WALK.iterator()), inFlight(0, 0, 0)))
                .isEqualTo(new Placement("A", Kind.HOME));
        assertThat(loads.keptSessions()).isEqualTo(Map.of("A", 1));
        // k1 comes back: placed afresh, A's session counts (total 1, capacity 0.83: nobody fits), so
        // the session goes to the least loaded agent of the order, B, not to A.
        assertThat(loads.place("k1", 42L, new RingWalk(WALK.iterator()), inFlight(0, 0, 0)))
                .isEqualTo(new Placement("B", Kind.DIVERTED));
        assertThat(loads.keptSessions()).isEqualTo(Map.of("A", 1, "B", 1));
    }

    @Test
    void aKeptKeyThatFitsNowhereGoesWhereFewestAreInFlightAmongTheLeastLoaded() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.custom().inFlightFactor(1.0).keepInFlightPlacement(true)
                .build(), clock::get);
        loads.setAgents(WALK);
        // Three sessions on each agent, all their requests in flight.
        for (int i = 0; i < 9; i++) {
            String agent = WALK.get(i % 3);
            assertThat(loads.place("s" + i, i, new RingWalk(rotation(agent)), inFlight(3, 3, 3)).agent())
                    .isEqualTo(agent);
        }
        assertThat(loads.keptSessions()).isEqualTo(Map.of("A", 3, "B", 3, "C", 3));
        // A session on C has ended (C has 2 in flight, still 3 sessions for up to the decay time):
        // load 3 everywhere, capacity 1.0 x 10 / 3 = 3.33, nobody fits; C has the fewest in flight.
        assertThat(loads.place("new", 99L, new RingWalk(WALK.iterator()), inFlight(3, 3, 2)))
                .isEqualTo(new Placement("C", Kind.DIVERTED));
        // The same with A the one with room: its own home, kept.
        assertThat(loads.place("new2", 98L, new RingWalk(WALK.iterator()), inFlight(2, 3, 3)))
                .isEqualTo(new Placement("A", Kind.HOME));
    }

    private static Iterator<String> rotation(String first) {
        int at = WALK.indexOf(first);
        return java.util.stream.IntStream.range(0, WALK.size()).mapToObj(i -> WALK.get((at + i) % WALK.size())).iterator();
    }

    private static ToIntFunction<String> inFlight(int a, int b, int c) {
        Map<String, Integer> inFlight = Map.of("A", a, "B", b, "C", c);
        return agent -> inFlight.getOrDefault(agent, 0);
    }

    @Test
    void offItNeverDiverts() {
        BoundedLoads loads = new BoundedLoads(BoundedLoad.ofDefaults(), clock::get);
        loads.setAgents(WALK);
        assertThat(place(loads, 100, 0, 0)).isEqualTo(new Placement("A", Kind.HOME));
        assertThat(loads.place("k", 42L, new RingWalk(WALK.iterator()))).isEqualTo(new Placement("A", Kind.HOME));
    }

    @Test
    void countsOfAgentsThatAreNotMembersDoNotCount() {
        BoundedLoads loads = loads(1.25);
        Map<String, Integer> inFlight = Map.of("A", 1, "gone", 50);
        // total 1 (A only), capacity 0.83: nobody fits, home keeps it; "gone" would have made room.
        assertThat(loads.place("k", 42L, new RingWalk(WALK.iterator()), agent -> inFlight.getOrDefault(agent, 0)))
                .isEqualTo(new Placement("A", Kind.HOME));
    }

    /**
     * 5 agents, 100 keys of Zipf-like popularity (key k with weight 1/(k+1)), one request a
     * millisecond for 20 s, each in flight for 20..80 ms (seeded): about 50 in flight, 10 per
     * agent. Hot keys pile requests on their home; the in-flight bound caps every agent near
     * 1.25 x the mean while most requests still reach their key's agent.
     */
    @Test
    void aSeededFleetStaysWithinTheInFlightBound() {
        Result off = simulate(0);
        Result on = simulate(1.25);
        assertThat(off.toString()).isEqualTo("peak=27 peakOverMean=2.551 diverted=0 perAgent={agent-1=22, agent-2=27, agent-3=22, agent-4=17, agent-5=18}");
        assertThat(on.toString()).isEqualTo("peak=15 peakOverMean=1.250 diverted=3687 perAgent={agent-1=15, agent-2=15, agent-3=15, agent-4=14, agent-5=14}");
        assertThat(on.worstOverBound).isZero();
        assertThat(on.peak).isLessThan(off.peak);
    }

    private record Result(Map<String, Integer> peakPerAgent, int peak, double peakOverMean, int diverted, int worstOverBound) {
        @Override
        public String toString() {
            return "peak=" + peak + " peakOverMean=" + String.format(java.util.Locale.ROOT, "%.3f", peakOverMean)
                    + " diverted=" + diverted + " perAgent=" + peakPerAgent;
        }
    }

    private Result simulate(double inFlightFactor) {
        List<String> agents = List.of("agent-1", "agent-2", "agent-3", "agent-4", "agent-5");
        HashRing ring = HashRing.uniform(agents, 150, HashAlgorithm.MD5);
        BoundedLoad config = inFlightFactor == 0 ? BoundedLoad.ofDefaults()
                : BoundedLoad.custom().inFlightFactor(inFlightFactor).build();
        AtomicLong now = new AtomicLong();
        BoundedLoads loads = new BoundedLoads(config, now::get);
        loads.setAgents(agents);
        Random random = new Random(2112);
        double[] cumulative = new double[100];
        double sum = 0;
        for (int k = 0; k < cumulative.length; k++) {
            sum += 1.0 / (k + 1);
            cumulative[k] = sum;
        }
        Map<String, Integer> inFlight = new HashMap<>();
        agents.forEach(a -> inFlight.put(a, 0));
        PriorityQueue<long[]> ends = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
        Map<String, Integer> peaks = new TreeMap<>();
        int peak = 0;
        double peakOverMean = 0;
        int diverted = 0;
        int worstOverBound = 0;
        for (int ms = 0; ms < 20_000; ms++) {
            now.set(ms * 1_000_000L);
            while (!ends.isEmpty() && ends.peek()[0] <= ms) {
                String agent = agents.get((int) ends.poll()[1]);
                inFlight.merge(agent, -1, Integer::sum);
            }
            double u = random.nextDouble() * sum;
            int k = 0;
            while (cumulative[k] < u) {
                k++;
            }
            String key = "conversation-" + k;
            long hash = ring.hash(key);
            int total = inFlight.values().stream().mapToInt(Integer::intValue).sum();
            Placement placement = loads.place(key, hash, new RingWalk(ring.agentsClockwise(hash)), inFlight::get);
            if (placement.kind() == Kind.DIVERTED) {
                diverted++;
            }
            String agent = placement.agent();
            if (inFlightFactor > 0 && total > 0) {
                double capacity = inFlightFactor * (total + 1) / agents.size();
                boolean someoneFits = inFlight.values().stream().anyMatch(n -> n + 1 <= capacity);
                if (someoneFits && inFlight.get(agent) + 1 > capacity) {
                    worstOverBound++;
                }
            }
            loads.recordSent(agent);
            int count = inFlight.merge(agent, 1, Integer::sum);
            peaks.merge(agent, count, Math::max);
            if (ms >= 1_000) {
                peak = Math.max(peak, count);
                peakOverMean = Math.max(peakOverMean, count / ((total + 1) / (double) agents.size()));
            }
            ends.add(new long[] {ms + 20 + random.nextInt(61), agents.indexOf(agent)});
        }
        return new Result(peaks, peak, peakOverMean, diverted, worstOverBound);
    }

    @Test
    void theCanonicalConstructorChecksAsTheSettersAndBuildDo() {
        assertThatThrownBy(() -> new BoundedLoad(true, 1.25, 1.0, Duration.ofSeconds(10), 10, BoundedLoad.OverflowOrder.CLOCKWISE,
                true, 0.5, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("inFlightFactor must be 0 (off) or finite and >= 1, was 0.5");
        assertThatThrownBy(() -> new BoundedLoad(true, 1.25, 1.25, Duration.ofSeconds(10), 10, BoundedLoad.OverflowOrder.CLOCKWISE,
                true, 0, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("returnFactor must be < balanceFactor (1.25), was 1.25");
        assertThat(BoundedLoad.disabled().isEnabled()).isFalse();
        assertThat(BoundedLoad.disabled()).hasToString("BoundedLoad[disabled]");
    }
}
