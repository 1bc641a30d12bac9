package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.agentlb.core.HotKeyWorkload;
import io.github.agentlb.core.bounded.BoundedLoad.OverflowOrder;
import io.github.agentlb.core.bounded.HotKeySimulation.Result;
import io.github.agentlb.core.ring.HashRing;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hot-key workload, seeded, against {@code ch}'s ring (150 MD5 virtual nodes per agent,
 * three agents): the bound, the churn against the paper's plain rule, the hot key at F = 0.5, and
 * two replicas. The figures in {@code docs/bounded-load.md} are this test's output
 * ({@code mvn -pl camel-lb-strategies -am verify -Dtest=BoundedLoadSimulationTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dmaven.test.redirectTestOutputToFile=false}, printed to stdout).
 */
class BoundedLoadSimulationTest {

    /** Long runs: 20,000 requests (200 s at 100 req/s), windows of 1,000 requests (10 s = tau). */
    private static final int LONG = 20_000;
    private static final int LONG_WINDOW = 1_000;
    /** The hot-key run: 2,000 requests, windows of 200. */
    private static final int SHORT = 2_000;
    private static final int SHORT_WINDOW = 200;
    /**
     * A window's max/mean may exceed c by this much: the bound holds for the decayed count, a
     * window's plain count adds sampling noise (one standard deviation of an agent's count at
     * share 0.42 in 1,000 requests is 0.047 x mean; in 200 requests, 0.105 x mean).
     */
    private static final double LONG_TOLERANCE = 0.05;
    private static final double SHORT_TOLERANCE = 0.15;
    private static final long[] SEEDS = {1, 2, 3};

    private final HashRing ring = HotKeySimulation.chRing();
    private final BoundedLoad ranked = BoundedLoad.ofDefaults();
    private final BoundedLoad plain = BoundedLoad.custom().rankRule(false).build();

    private Result run(BoundedLoad config, double hotShare, int requests, long seed, int window, int replicas) {
        return HotKeySimulation.run(ring, config, HotKeyWorkload.keys(hotShare, requests, seed), window, replicas);
    }

    @Test
    void everyWindowStaysWithinTheBoundAndTheRankRuleMovesAHundredTimesFewerKeys() {
        for (long seed : SEEDS) {
            Result ours = run(ranked, 0.2, LONG, seed, LONG_WINDOW, 1);
            Result paper = run(plain, 0.2, LONG, seed, LONG_WINDOW, 1);
            assertThat(ours.worstWindowMaxOverMean()).as("seed %d", seed).isLessThanOrEqualTo(1.25 + LONG_TOLERANCE);
            assertThat(paper.worstWindowMaxOverMean()).as("seed %d", seed).isLessThanOrEqualTo(1.25 + LONG_TOLERANCE);
            assertThat(ours.movesPer1000()).as("seed %d", seed).isLessThan(1.0);
            assertThat(paper.movesPer1000()).as("seed %d", seed).isGreaterThan(100);
            assertThat(ours.hotAgents()).as("seed %d", seed).isEqualTo(1);
            assertThat(ours.stickinessOthers()).as("seed %d", seed).isGreaterThanOrEqualTo(0.93);
            assertThat(ours.maxOverMean()).as("seed %d", seed).isLessThanOrEqualTo(1.10);
            assertThat(paper.stickinessOthers()).as("seed %d", seed).isLessThan(0.66);
        }
        Result ours = run(ranked, 0.2, LONG, 1, LONG_WINDOW, 1);
        assertThat(ours.maxOverMean()).isCloseTo(1.033, within(0.0005));
        assertThat(ours.worstWindowMaxOverMean()).isCloseTo(1.083, within(0.0005));
        assertThat(ours.movesPer1000()).isCloseTo(0.2, within(0.05));
        assertThat(ours.stickinessOthers()).isEqualTo(0.980);
        Result paper = run(plain, 0.2, LONG, 1, LONG_WINDOW, 1);
        assertThat(paper.movesPer1000()).isCloseTo(110.3, within(0.05));
        assertThat(paper.hotAgents()).isEqualTo(2);
    }

    @Test
    void onTheIssuesTwoThousandRequestsTheBoundHoldsPerWindowOfTwoHundred() {
        for (long seed : SEEDS) {
            Result ring = run(BoundedLoad.disabled(), 0.2, SHORT, seed, SHORT_WINDOW, 1);
            Result ours = run(ranked, 0.2, SHORT, seed, SHORT_WINDOW, 1);
            Result paper = run(plain, 0.2, SHORT, seed, SHORT_WINDOW, 1);
            assertThat(ring.maxOverMean()).as("ch without a bound").isCloseTo(1.440, within(0.0005));
            assertThat(ours.worstWindowMaxOverMean()).as("seed %d", seed).isLessThanOrEqualTo(1.25 + SHORT_TOLERANCE);
            assertThat(ours.movesPer1000()).as("seed %d", seed).isLessThan(paper.movesPer1000() / 5);
            assertThat(ours.hotAgents()).as("seed %d", seed).isEqualTo(1);
        }
    }

    @Test
    void aHotKeyAboveOneAgentsShareStaysWholeOnItsHomeAndOnlyItsExcessBreaksTheBound() {
        for (long seed : SEEDS) {
            Result ours = run(ranked, 0.5, LONG, seed, LONG_WINDOW, 1);
            Result paper = run(plain, 0.5, LONG, seed, LONG_WINDOW, 1);
            // The hot key alone is 0.5 of the traffic: its agent serves it and nothing else, 1.5 x mean.
            assertThat(ours.hotAgents()).isEqualTo(1);
            assertThat(ours.maxOverMean()).isCloseTo(1.5, within(0.002));
            assertThat(ours.stickinessOthers()).isGreaterThanOrEqualTo(0.96);
            // The paper's rule keeps the bound by splitting the hot key, and moves a third of all requests.
            assertThat(paper.worstWindowMaxOverMean()).isLessThanOrEqualTo(1.25 + LONG_TOLERANCE);
            assertThat(paper.hotAgents()).isGreaterThanOrEqualTo(2);
            assertThat(paper.movesPer1000()).isGreaterThan(300);
        }
    }

    /**
     * What c promises is c: the 1.091 of the main job's hot-key run is the ring of A1..A3. The same
     * 2,000 requests over 20 namings of three agents (A1..A3, also the demo proxy's default names;
     * the URLs {@code http://localhost:8081..8083}, as the demo names them when {@code AGENTS} lists
     * them unnamed; 18 others) and three seeds: every run within c plus the
     * window tolerance, max/mean 1.170 on average, and max/mean <= 1.10 with stickiness >= 0.95 in
     * 4 of the 60. The URL names give 1.256, and 1.179 with c = 1.1: over 2,000
     * requests a count can exceed c by the start and the sampling noise of the 80 s shares.
     */
    @Test
    void theBoundIsCOnEveryRingAndTheHotKeyFigureOfOneRingIsThatRings() {
        List<List<String>> namings = new java.util.ArrayList<>(List.of(HotKeySimulation.AGENTS,
                List.of("http://localhost:8081", "http://localhost:8082", "http://localhost:8083")));
        for (int k = 0; k < 18; k++) {
            namings.add(List.of("agent-" + k + "a", "agent-" + k + "b", "agent-" + k + "c"));
        }
        double sum = 0;
        int runs = 0;
        int targetsMet = 0;
        for (List<String> agents : namings) {
            HashRing named = HotKeySimulation.chRing(agents);
            for (long seed : SEEDS) {
                Result r = HotKeySimulation.run(named, ranked, HotKeyWorkload.keys(0.2, SHORT, seed), SHORT_WINDOW, 1);
                assertThat(r.maxOverMean()).as("%s seed %d", agents, seed).isLessThanOrEqualTo(1.25 + SHORT_TOLERANCE);
                assertThat(r.hotAgents()).isEqualTo(1);
                sum += r.maxOverMean();
                runs++;
                targetsMet += r.maxOverMean() <= 1.10 && r.stickinessOthers() >= 0.95 ? 1 : 0;
            }
        }
        assertThat(sum / runs).isCloseTo(1.170, within(0.0005));
        assertThat(targetsMet).isEqualTo(4);
        Result demo = HotKeySimulation.run(HotKeySimulation.chRing(namings.get(1)), ranked,
                HotKeyWorkload.keys(0.2, SHORT, 1), SHORT_WINDOW, 1);
        assertThat(demo.maxOverMean()).isCloseTo(1.256, within(0.0005));
        Result tighter = HotKeySimulation.run(HotKeySimulation.chRing(namings.get(1)), ranked.toBuilder().balanceFactor(1.1)
                .build(), HotKeyWorkload.keys(0.2, SHORT, 1), SHORT_WINDOW, 1);
        assertThat(tighter.maxOverMean()).isCloseTo(1.179, within(0.0005));
    }

    /**
     * Two balancers, requests alternating between them, each counting only its own: the rank rule
     * moves the same keys in both but for the few whose rank lies between their two thresholds
     * (each estimates the shares from its own half of the traffic). The arrival-order rule it
     * replaced disagreed on 14-19% of the keys here, stickiness 0.755-0.805 (docs/bounded-load.md).
     */
    @Test
    void twoReplicasAgreeOnAllButAFewKeys() {
        for (long seed : SEEDS) {
            Result pair = run(ranked, 0.2, LONG, seed, LONG_WINDOW, 2);
            Result ring = run(BoundedLoad.disabled(), 0.2, LONG, seed, LONG_WINDOW, 2);
            assertThat(ring.crossReplicaDisagreement()).isZero();
            assertThat(pair.crossReplicaDisagreement()).as("seed %d", seed).isLessThanOrEqualTo(0.05);
            assertThat(pair.stickinessOthers()).as("seed %d", seed).isGreaterThanOrEqualTo(0.88);
            assertThat(pair.worstWindowMaxOverMean()).isLessThanOrEqualTo(1.25 + LONG_TOLERANCE);
            assertThat(pair.hotAgents()).isEqualTo(1);
            Result hot = run(ranked, 0.5, LONG, seed, LONG_WINDOW, 2);
            assertThat(hot.crossReplicaDisagreement()).isZero();
            assertThat(hot.hotAgents()).isEqualTo(1);
        }
        Result pair = run(ranked, 0.2, LONG, 1, LONG_WINDOW, 2);
        assertThat(pair.crossReplicaDisagreement()).isZero();
        assertThat(pair.stickinessOthers()).isEqualTo(0.940);
        assertThat(pair.movesPer1000()).isCloseTo(0.6, within(0.05));
        // 10 of the 201 keys (the hot key counts too)
        assertThat(run(ranked, 0.2, LONG, 2, LONG_WINDOW, 2).crossReplicaDisagreement()).isEqualTo(10 / 201.0);
        // The hot-key run's 2,000 requests (20 s) give each replica fewer requests to estimate from:
        // BoundedLoadLBTest gets these figures from two ConsistentHashLB in Camel.
        Result issueRun = run(ranked, 0.2, SHORT, 1, SHORT_WINDOW, 2);
        assertThat(issueRun.stickinessOthers()).isEqualTo(0.880);
        assertThat(issueRun.crossReplicaDisagreement()).isEqualTo(15 / 199.0);
    }

    /**
     * Prints the table of docs/bounded-load.md, and checks across every variant that each keeps its
     * own c on the long F = 0.2 runs and keeps the F = 0.5 hot key on one agent under the rank rule.
     */
    @Test
    void everyVariantKeepsItsOwnBound() {
        Map<String, BoundedLoad> configs = new LinkedHashMap<>();
        configs.put("ring alone (ch)", BoundedLoad.disabled());
        configs.put("plain c=1.25 clockwise", plain);
        configs.put("plain c=1.25 key-seeded", plain.toBuilder().overflowOrder(OverflowOrder.KEY_SEEDED).build());
        configs.put("rank c=1.25 clockwise", ranked);
        configs.put("rank c=1.25 key-seeded", ranked.toBuilder().overflowOrder(OverflowOrder.KEY_SEEDED).build());
        configs.put("rank c=1.1 clockwise", ranked.toBuilder().balanceFactor(1.1).build());
        for (Object[] workload : List.of(new Object[] {0.2, SHORT, SHORT_WINDOW, 1}, new Object[] {0.2, LONG, LONG_WINDOW, 1},
                new Object[] {0.5, LONG, LONG_WINDOW, 1}, new Object[] {0.2, SHORT, SHORT_WINDOW, 2},
                new Object[] {0.2, LONG, LONG_WINDOW, 2},
                new Object[] {0.5, LONG, LONG_WINDOW, 2})) {
            System.out.printf("F=%s requests=%s window=%s replicas=%s%n", workload);
            configs.forEach((name, config) -> {
                StringBuilder line = new StringBuilder("| " + name);
                for (long seed : SEEDS) {
                    Result result = run(config, (double) workload[0], (int) workload[1], seed, (int) workload[2],
                            (int) workload[3]);
                    line.append(" | ").append(result);
                    if (config.isEnabled() && (double) workload[0] == 0.2 && (int) workload[1] == LONG) {
                        assertThat(result.worstWindowMaxOverMean()).as("%s seed %d", name, seed)
                                .isLessThanOrEqualTo(config.balanceFactor() + LONG_TOLERANCE);
                    }
                    if (config.isEnabled() && config.rankRule() && (double) workload[0] == 0.5) {
                        assertThat(result.hotAgents()).as("%s seed %d", name, seed).isEqualTo(1);
                    }
                }
                System.out.println(line);
            });
        }
    }
}
