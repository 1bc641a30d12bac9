package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.stats.LoadStatistics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Exact step tests of the AVN core: config, eqs. (1)-(5), one move, the state object. */
class AdaptiveVirtualNodesCoreTest {

    private static final AdaptiveVirtualNodesConfig DEFAULTS = AdaptiveVirtualNodesConfig.ofDefaults();
    private static final AdaptiveVirtualNodesConfig PAPER = AdaptiveVirtualNodesConfig.custom().paperRule().build();

    // ---- config

    @Test
    void defaults() {
        assertThat(DEFAULTS.capacityWeights().cpu()).isEqualTo(0.5);
        assertThat(DEFAULTS.capacityWeights().memory()).isEqualTo(0.5);
        assertThat(DEFAULTS.loadWeights().cpu()).isEqualTo(0.4);
        assertThat(DEFAULTS.loadWeights().memory()).isEqualTo(0.4);
        assertThat(DEFAULTS.loadWeights().requests()).isEqualTo(0.2);
        assertThat(DEFAULTS.totalVirtualNodes()).isEqualTo(150);
        assertThat(DEFAULTS.imbalanceThreshold()).isEqualTo(0.1);
        assertThat(DEFAULTS.settleThreshold()).isCloseTo(0.07, within(1e-12));
        assertThat(DEFAULTS.cooldownWindows()).isEqualTo(1);
        assertThat(DEFAULTS.utilizationSmoothing()).isEqualTo(0.5);
        assertThat(DEFAULTS.maxMovesPerEvaluation()).isEqualTo(16);
        assertThat(DEFAULTS.evaluationWindow()).isEqualTo(100);
        assertThat(DEFAULTS.historySize()).isEqualTo(2000);
        assertThat(DEFAULTS.reportExpiry()).isEqualTo(Duration.ofSeconds(10));
        assertThat(DEFAULTS.toBuilder().build().toString()).isEqualTo(DEFAULTS.toString());
        assertThat(DEFAULTS.hashFunction()).isEqualTo(HashAlgorithm.FNV1_64_MIXED);
    }

    @Test
    void configRejectsBadValuesNamingFieldAndValue() {
        var b = AdaptiveVirtualNodesConfig.custom();
        assertThatThrownBy(() -> b.capacityWeights(0.5, 0.6)).hasMessage(
                "capacityCpuWeight + capacityMemoryWeight must be 1, was 0.5 + 0.6");
        assertThatThrownBy(() -> b.capacityWeights(-0.1, 1.1)).hasMessage("capacityCpuWeight must be in [0, 1], was -0.1");
        assertThatThrownBy(() -> b.loadWeights(0.4, 0.4, 0.4)).hasMessage(
                "loadCpuWeight + loadMemoryWeight + loadRequestWeight must be 1, was 0.4 + 0.4 + 0.4");
        assertThatThrownBy(() -> b.loadWeights(0.4, Double.NaN, 0.2)).hasMessage("loadMemoryWeight must be in [0, 1], was NaN");
        assertThatThrownBy(() -> b.totalVirtualNodes(0)).hasMessage("totalVirtualNodes must be >= 1, was 0");
        assertThatThrownBy(() -> b.imbalanceThreshold(0)).hasMessage("imbalanceThreshold must be in (0, 1), was 0.0");
        assertThatThrownBy(() -> b.imbalanceThreshold(1)).hasMessage("imbalanceThreshold must be in (0, 1), was 1.0");
        assertThatThrownBy(() -> b.maxMovesPerEvaluation(0)).hasMessage("maxMovesPerEvaluation must be >= 1, was 0");
        assertThatThrownBy(() -> b.evaluationWindow(0)).hasMessage("evaluationWindow must be >= 1, was 0");
        assertThatThrownBy(() -> b.historySize(0)).hasMessage("historySize must be >= 1, was 0");
        assertThatThrownBy(() -> b.reportExpiry(null)).hasMessage("reportExpiry must be > 0, was null");
        assertThatThrownBy(() -> b.reportExpiry(Duration.ZERO)).hasMessage("reportExpiry must be > 0, was PT0S");
        assertThatThrownBy(() -> b.reportExpiry(Duration.ofMillis(-1))).hasMessage("reportExpiry must be > 0, was PT-0.001S");
        assertThatThrownBy(() -> b.settleThreshold(0)).hasMessage("settleThreshold must be in (0, 1), was 0.0");
        assertThatThrownBy(() -> b.cooldownWindows(-1)).hasMessage("cooldownWindows must be >= 0, was -1");
        assertThatThrownBy(() -> b.utilizationSmoothing(0)).hasMessage("utilizationSmoothing must be in (0, 1], was 0.0");
        assertThatThrownBy(() -> b.utilizationSmoothing(1.5)).hasMessage("utilizationSmoothing must be in (0, 1], was 1.5");
        assertThatThrownBy(() -> AdaptiveVirtualNodesConfig.custom().settleThreshold(0.2).build()).hasMessage(
                "settleThreshold must be <= imbalanceThreshold (0.1), was 0.2");
        assertThatThrownBy(() -> b.hashFunction("sha1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.capacityWeights(0.3, 0.7).loadWeights(0, 0, 1).hashFunction("fnv1-64").build().loadWeights().requests())
                .isEqualTo(1.0);
    }

    @Test
    void theSettleThresholdFollowsTheThresholdUnlessSet() {
        assertThat(AdaptiveVirtualNodesConfig.custom().imbalanceThreshold(0.2).build().settleThreshold())
                .isCloseTo(0.14, within(1e-12));
        assertThat(AdaptiveVirtualNodesConfig.custom().settleThreshold(0.03).imbalanceThreshold(0.2).build()
                .settleThreshold()).isEqualTo(0.03);
        AdaptiveVirtualNodesConfig paper = AdaptiveVirtualNodesConfig.custom().paperRule().build();
        assertThat(List.of(paper.settleThreshold(), (double) paper.cooldownWindows(), paper.utilizationSmoothing(),
                (double) paper.maxMovesPerEvaluation())).containsExactly(0.1, 0.0, 1.0, 1.0);
        assertThat(paper.toBuilder().build().settleThreshold()).isEqualTo(0.1);
    }

    // ---- eqs. (1) and (2)

    @Test
    void capacityWeightsAreInverseToStartupUtilization() {
        SortedMap<String, Double> w = VirtualNodeAllocation.capacityWeights(Map.of(
                "a", new AgentUtilization(0.2, 0.2), "b", new AgentUtilization(0.1, 0.3), "c", new AgentUtilization(0.6, 0.2)),
                DEFAULTS);
        // P = 0.2, 0.2, 0.4 -> 1/P = 5, 5, 2.5 -> 0.4, 0.4, 0.2
        assertThat(w.values().stream().mapToDouble(Double::doubleValue).toArray())
                .containsExactly(new double[] {0.4, 0.4, 0.2}, within(1e-12));
    }

    @Test
    void anIdleAgentIsFlooredAtOnePercent() {
        SortedMap<String, Double> w = VirtualNodeAllocation.capacityWeights(Map.of(
                "idle", new AgentUtilization(0, 0), "busy", new AgentUtilization(1, 1)), DEFAULTS);
        assertThat(w.get("idle") / w.get("busy")).isCloseTo(100, within(1e-9));
    }

    @Test
    void largestRemainderSumsToTotalWithAtLeastOneEach() {
        Map<String, Double> w221 = Map.of("a", 2.0, "b", 2.0, "c", 1.0);
        assertThat(VirtualNodeAllocation.allocate(w221, 5).values()).containsExactly(2, 2, 1);
        assertThat(VirtualNodeAllocation.allocate(w221, 15).values()).containsExactly(6, 6, 3);
        assertThat(VirtualNodeAllocation.allocate(w221, 16).values()).containsExactly(7, 6, 3); // tie 0.4/0.4 -> "a"
        assertThat(VirtualNodeAllocation.allocate(w221, 3).values()).containsExactly(1, 1, 1);
        // a tiny weight still gets one node, the others share the rest
        assertThat(VirtualNodeAllocation.allocate(Map.of("a", 1.0, "b", 1.0, "tiny", 0.001), 10).values())
                .containsExactly(5, 4, 1);
        assertThat(VirtualNodeAllocation.allocate(Map.of("x", 1.0, "y", 1.0, "z", 1.0), 150).values())
                .containsExactly(50, 50, 50);
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(w221, 2))
                .hasMessage("totalVirtualNodes must be >= the number of agents (3), was 2");
        assertThatThrownBy(() -> VirtualNodeAllocation.allocate(Map.of("a", 0.0), 2)).hasMessage("weight of a must be finite and > 0, was 0.0");
    }

    // ---- eqs. (3)-(5)

    @Test
    void loadIndexIsEquationThreeInPercent() {
        assertThat(LoadIndex.loadIndex(new AgentUtilization(0.5, 0.25), 0.5, DEFAULTS))
                .isCloseTo(100 * (0.4 * 0.5 + 0.4 * 0.25 + 0.2 * 0.5), within(1e-9));
        // L_ti relative to capacity: a 2:2:1 split over 2:2:1 agents is level
        assertThat(LoadIndex.requestShare(40, 100, 0.4, 3)).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(LoadIndex.requestShare(20, 100, 0.2, 3)).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(LoadIndex.requestShare(0, 0, 0.2, 3)).isZero();
    }

    @Test
    void withoutReportsFromEveryAgentTheIndexIsTheRequestShareAlone() {
        Map<String, Long> requests = Map.of("a", 50L, "b", 30L, "c", 20L);
        Map<String, Double> equal = Map.of("a", 1.0 / 3, "b", 1.0 / 3, "c", 1.0 / 3);
        SortedMap<String, Double> l = LoadIndex.loadIndices(requests, equal,
                Map.of("a", new AgentUtilization(0.9, 0.9)), DEFAULTS);
        assertThat(l.values().stream().mapToDouble(Double::doubleValue).toArray())
                .containsExactly(new double[] {50.0, 30.0, 20.0}, within(1e-9));
        // S = population standard deviation over mean: sqrt(155.56) / 33.33
        assertThat(LoadIndex.imbalanceIndex(l))
                .isEqualTo(LoadStatistics.of(50, 30, 20).coefficientOfVariation())
                .isCloseTo(0.374, within(0.0005));
    }

    // ---- one move

    @Test
    void moveOneTakesTheDonorsLastLabelAndGivesTheReceiverItsNext() {
        SortedMap<String, Integer> moved = Reallocation.moveOne(Map.of("a", 5, "b", 5, "c", 5), "a", "c");
        assertThat(moved).containsExactly(Map.entry("a", 4), Map.entry("b", 5), Map.entry("c", 6));
        assertThatThrownBy(() -> Reallocation.moveOne(Map.of("a", 1, "b", 5), "a", "b"))
                .hasMessage("virtualNodes of a must stay >= 1, was 1");
        assertThatThrownBy(() -> Reallocation.moveOne(Map.of("a", 2, "b", 5), "a", "a"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMoveReassignsOnlyTheTwoChangedArcs() {
        HashRing before = HashRing.of(Map.of("a", 5, "b", 5, "c", 5), HashAlgorithm.FNV1_64_MIXED);
        HashRing after = before.withVirtualNodes(Reallocation.moveOne(before.virtualNodes(), "a", "c"));
        // Rings that differ only by the two labels: keys owned through any other point keep their owner.
        HashRing withoutBoth = before.withVirtualNodes(Map.of("a", 4, "b", 5, "c", 5));
        int moved = 0;
        for (int i = 0; i < 20_000; i++) {
            String key = "k" + i;
            if (!before.agentFor(key).equals(after.agentFor(key))) {
                moved++;
                boolean wasOnRemovedArc = before.agentFor(key).equals("a") && !withoutBoth.agentFor(key).equals("a");
                boolean nowOnAddedArc = after.agentFor(key).equals("c") && !withoutBoth.agentFor(key).equals("c");
                assertThat(wasOnRemovedArc || nowOnAddedArc).as(key).isTrue();
            }
        }
        assertThat(moved).isPositive().isLessThan(20_000 * 3 / 15);
    }

    @Test
    void noMoveWhileSIsWithinTheThreshold() {
        HashRing ring = HashRing.of(Map.of("a", 5, "b", 5, "c", 5), HashAlgorithm.FNV1_64_MIXED);
        long[] balanced = positionsOwned(ring, Map.of("a", 100, "b", 95, "c", 105));
        Evaluation e = Reallocation.evaluate(ring, equalShares(), WindowSnapshot.of(balanced), DEFAULTS);
        assertThat(e.imbalanceIndex()).isLessThan(0.1);
        assertThat(e.moves()).isEmpty();
        assertThat(e.ring()).isSameAs(ring);
    }

    @Test
    void theMostLoadedAgentGivesANodeToTheLeastLoadedWhenItHelps() {
        HashRing ring = HashRing.of(Map.of("a", 5, "b", 5, "c", 5), HashAlgorithm.FNV1_64_MIXED);
        // uniform keys: replay on the candidate ring decides; a hot "a" reported by CPU
        long[] positions = positionsOf(ring, 3000);
        Map<String, AgentUtilization> cpu = Map.of("a", new AgentUtilization(0.9, 0.9), "b", new AgentUtilization(0.3, 0.3),
                "c", new AgentUtilization(0.2, 0.2));
        Evaluation e = Reallocation.evaluate(ring, equalShares(), new WindowSnapshot(positions, cpu), PAPER);
        assertThat(e.usedUtilization()).isTrue();
        assertThat(e.imbalanceIndex()).isGreaterThan(0.1);
        assertThat(e.moves()).hasSize(1);
        Evaluation.Move move = e.moves().get(0);
        assertThat(move.from()).isEqualTo("a");
        assertThat(move.predictedImbalanceAfter()).isLessThan(move.imbalanceBefore());
        assertThat(e.ring().virtualNodes().get("a")).isEqualTo(4);
        assertThat(e.ring().size()).isEqualTo(15);
    }

    @Test
    void aPredictionScalesEachLoadIndexWithItsRequests() {
        HashRing ring = HashRing.of(Map.of("a", 5, "b", 5, "c", 5), HashAlgorithm.FNV1_64_MIXED);
        long[] positions = positionsOf(ring, 3000);
        Map<String, AgentUtilization> measured = Map.of("a", new AgentUtilization(0.9, 0.5),
                "b", new AgentUtilization(0.3, 0.2), "c", new AgentUtilization(0.2, 0.2));
        Evaluation e = Reallocation.evaluate(ring, equalShares(), new WindowSnapshot(positions, measured), PAPER);
        assertThat(e.moves()).hasSize(1);

        SortedMap<String, Long> before = Reallocation.owners(ring, positions);
        SortedMap<String, Long> after = Reallocation.owners(e.ring(), positions);
        Map<String, Double> predicted = new TreeMap<>();
        e.loadIndices().forEach((agent, load) -> predicted.put(agent, load * after.get(agent) / before.get(agent)));
        double expected = LoadIndex.imbalanceIndex(predicted);
        assertThat(e.moves().get(0).predictedImbalanceAfter()).isCloseTo(expected, within(1e-12));
    }

    @Test
    void withoutAGuardMovesStartAboveTheThresholdAndGoOnToTheSettleThreshold() {
        HashRing ring = HashRing.of(Map.of("a", 50, "b", 50, "c", 50), HashAlgorithm.FNV1_64_MIXED);
        long[] mild = positionsOwned(ring, Map.of("a", 1090, "b", 1000, "c", 910));
        Evaluation within = Reallocation.evaluate(ring, equalShares(), WindowSnapshot.of(mild), DEFAULTS);
        assertThat(within.imbalanceIndex()).isBetween(0.07, 0.1);
        assertThat(within.moves()).isEmpty();

        long[] skewed = positionsOwned(ring, Map.of("a", 1300, "b", 900, "c", 800));
        Evaluation e = Reallocation.evaluate(ring, equalShares(), WindowSnapshot.of(skewed), DEFAULTS);
        assertThat(e.imbalanceIndex()).isGreaterThan(0.1);
        assertThat(e.moves()).hasSizeGreaterThan(1).hasSizeLessThanOrEqualTo(16);
        assertThat(e.predictedImbalanceIndex()).isLessThanOrEqualTo(0.07);
        assertThat(e.moves().subList(0, e.moves().size() - 1))
                .allSatisfy(m -> assertThat(m.predictedImbalanceAfter()).isGreaterThan(0.07));
    }

    @Test
    void anAgentWithOneVirtualNodeIsNeverADonor() {
        HashRing ring = HashRing.of(Map.of("a", 1, "b", 1), HashAlgorithm.FNV1_64_MIXED);
        long[] skewed = positionsOwned(ring, Map.of("a", 90, "b", 10));
        Evaluation e = Reallocation.evaluate(ring, Map.of("a", 0.5, "b", 0.5), WindowSnapshot.of(skewed), DEFAULTS);
        assertThat(e.imbalanceIndex()).isGreaterThan(0.1);
        assertThat(e.moves()).isEmpty();
    }

    @Test
    void aHotKeyIsNotBouncedBetweenAgents() {
        HashRing ring = HashRing.of(Map.of("a", 5, "b", 5, "c", 5), HashAlgorithm.FNV1_64_MIXED);
        long hot = ring.hash("hot");
        long[] positions = new long[300];
        java.util.Arrays.fill(positions, hot);
        AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.custom().maxMovesPerEvaluation(5).build();
        Evaluation e = Reallocation.evaluate(ring, equalShares(), WindowSnapshot.of(positions), config);
        // S = sqrt(2) whoever holds the key: only moves that leave the hot key where it is may happen
        assertThat(e.imbalanceIndex()).isCloseTo(Math.sqrt(2), within(1e-9));
        assertThat(e.ring().agentAt(hot)).isEqualTo(ring.agentAt(hot));
        assertThat(e.moves()).allSatisfy(m -> assertThat(m.predictedImbalanceAfter()).isEqualTo(m.imbalanceBefore()));
    }

    // ---- the state object

    @Test
    void recordAsksForAnEvaluationEveryWindow() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().evaluationWindow(3).build());
        assertThat(avn.ring()).isNull();
        assertThat(avn.evaluate()).isEmpty();
        avn.setAgents(List.of("a", "b", "c"));
        assertThat(avn.virtualNodes().values()).containsExactly(50, 50, 50);
        assertThat(List.of(avn.record(1), avn.recordWithoutKey(), avn.record(2), avn.record(3))).containsExactly(
                false, false, true, false);
        assertThat(avn.windowRequests()).isEqualTo(4);
        Evaluation e = avn.evaluate().orElseThrow();
        assertThat(e.requests()).isEqualTo(3);
        assertThat(avn.windowRequests()).isZero();
        assertThatThrownBy(() -> avn.report("a", 1.5, 0)).hasMessage("cpu must be a fraction in [0, 1], was 1.5");
        assertThatThrownBy(() -> avn.setAgents(Map.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(2).build())
                .setAgents(List.of("a", "b", "c"))).hasMessage("totalVirtualNodes must be >= the number of agents (3), was 2");
    }

    @Test
    void reportsAreUsedOnlyOnceEveryAgentHasOne() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(DEFAULTS);
        avn.setAgents(List.of("a", "b"));
        avn.record(avn.ring().hash("x"));
        avn.report("a", 0.5, 0.5);
        assertThat(avn.evaluate().orElseThrow().usedUtilization()).isFalse();
        avn.report("b", 0.2, 0.4);
        avn.report("unknown", 0.2, 0.4);
        assertThat(avn.evaluate().orElseThrow().usedUtilization()).isTrue(); // "a" keeps its last report
    }

    @Test
    void aReportOlderThanTheExpiryCountsAsNoReport() {
        long[] now = {0};
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(DEFAULTS, () -> now[0]);
        avn.setAgents(List.of("a", "b"));
        long x = avn.ring().hash("x");
        avn.record(x);
        avn.report("a", 0.5, 0.5);
        avn.report("b", 0.2, 0.4);
        now[0] = Duration.ofSeconds(10).toNanos();
        assertThat(avn.evaluate().orElseThrow().usedUtilization()).isTrue(); // 10 s old: still current

        now[0] = Duration.ofSeconds(12).toNanos();
        avn.report("b", 0.2, 0.4);
        Evaluation expired = avn.evaluate().orElseThrow();
        assertThat(expired.usedUtilization()).isFalse(); // a's report is 12 s old
        // the request share alone: the one key's owner has L = 100 * 1 / (2 * 0.5), the other 0
        assertThat(expired.loadIndices()).containsEntry(avn.ring().agentAt(x), 100.0).containsValue(0.0);

        now[0] = Duration.ofSeconds(13).toNanos();
        avn.report("a", 0.6, 0.6);
        assertThat(avn.evaluate().orElseThrow().usedUtilization()).isTrue();
    }

    @Test
    void reportsAreSmoothedAcrossWindows() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().evaluationWindow(10).build());
        avn.setAgents(List.of("a", "b"));
        avn.report("a", 0.2, 0.2);
        avn.report("b", 0.2, 0.2);
        assertThat(avn.evaluate().orElseThrow().imbalanceIndex()).isZero();
        // window 2: "a" reports 0.4 and 0.8 (mean 0.6); smoothed: 0.5 * 0.6 + 0.5 * 0.2 = 0.4
        avn.report("a", 0.4, 0.2);
        avn.report("a", 0.8, 0.2);
        // no keyed requests: the request share term is 0
        Evaluation e = avn.evaluate().orElseThrow();
        assertThat(e.loadIndices().get("a")).isCloseTo(100 * (0.4 * 0.4 + 0.4 * 0.2), within(1e-9));
        assertThat(e.loadIndices().get("b")).isCloseTo(100 * (0.4 * 0.2 + 0.4 * 0.2), within(1e-9));
    }

    @Test
    void aMoveRestartsTheSmoothingAndStartsACooldown() {
        AdaptiveVirtualNodes avn = HotAgentWindow.reported();
        Evaluation first = avn.evaluate().orElseThrow();
        assertThat(first.moves()).isNotEmpty();
        assertThat(avn.guardPhase()).isEqualTo(MoveGuard.Phase.COOLDOWN);
        assertThat(avn.reallocations()).isEqualTo(first.moves().size());

        // after the move only the new window counts: "a" at 0.5, not 0.5 * 0.5 + 0.5 * 0.9
        avn.report("a", 0.5, 0.5);
        avn.report("b", 0.5, 0.5);
        avn.report("c", 0.5, 0.5);
        Evaluation second = avn.evaluate().orElseThrow();
        assertThat(second.moves()).isEmpty();
        SortedMap<String, Long> requests = Reallocation.owners(avn.ring(), positionsOf(avn.ring(), 2000));
        double shareA = requests.get("a") / 2000.0;
        assertThat(second.loadIndices().get("a")).isCloseTo(100 * (0.4 * 0.5 + 0.4 * 0.5 + 0.2 * shareA), within(1e-9));
    }

    @Test
    void concurrentRecordsAreAllCountedAndTriggerOncePerWindow() throws Exception {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(
                AdaptiveVirtualNodesConfig.custom().evaluationWindow(100).historySize(100_000).build());
        avn.setAgents(List.of("a", "b", "c"));
        AtomicInteger triggers = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            int thread = t;
            pool.execute(() -> {
                for (int i = 0; i < 2500; i++) {
                    if (avn.record(avn.ring().hash(thread + ":" + i))) {
                        triggers.incrementAndGet();
                    }
                }
            });
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(triggers.get()).isEqualTo(100);
        assertThat(avn.evaluate().orElseThrow().requests()).isEqualTo(10_000);
    }

    @Test
    void explicitCountsAndSharesStartOverAndDropTheLastEvaluation() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().evaluationWindow(3).build());
        avn.setAgents(List.of("a", "b", "c"));
        long hot = avn.ring().hash("hot");
        avn.record(hot);
        avn.record(hot);
        avn.evaluate(false).orElseThrow();
        avn.record(hot);

        avn.setAgents(Map.of("a", 5, "b", 5, "c", 3), Map.of("a", 1.0, "b", 1.0, "c", 2.0));

        assertThat(avn.virtualNodes()).containsExactlyEntriesOf(new TreeMap<>(Map.of("a", 5, "b", 5, "c", 3)));
        assertThat(avn.capacityShares()).containsExactlyEntriesOf(new TreeMap<>(Map.of("a", 0.25, "b", 0.25, "c", 0.5)));
        assertThat(avn.windowRequests()).isZero();
        assertThat(avn.lastEvaluation()).isEmpty();
        assertThat(avn.imbalanceIndex()).isZero();
        assertThatThrownBy(() -> avn.setAgents(Map.of("a", 5), Map.of("b", 1.0)))
                .hasMessage("virtualNodes and capacityShares must name the same agents, was {a=5} and {b=1.0}");
    }

    @Test
    void imbalanceIndexIsThatOfTheLastEvaluation() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().evaluationWindow(3).build());
        assertThat(avn.imbalanceIndex()).isZero();
        avn.setAgents(List.of("a", "b", "c"));
        assertThat(avn.imbalanceIndex()).isZero();
        long hot = avn.ring().hash("hot");
        for (int i = 0; i < 3; i++) {
            avn.record(hot);
        }
        Evaluation e = avn.evaluate(false).orElseThrow();
        // All requests on one of three equal agents: S = sqrt(2).
        assertThat(e.imbalanceIndex()).isCloseTo(Math.sqrt(2), within(1e-9));
        assertThat(avn.imbalanceIndex()).isEqualTo(e.imbalanceIndex());
        assertThat(avn).hasToString("AdaptiveVirtualNodes{a=50, b=50, c=50} S=" + e.imbalanceIndex()
                + " reallocations=" + e.moves().size());
        assertThat(avn.reallocations()).isEqualTo(e.moves().size()).isPositive();
    }

    @Test
    void aMembershipChangeEndsTheCooldownOfTheLastMoves() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().evaluationWindow(3).build());
        avn.setAgents(List.of("a", "b", "c"));
        assertThat(avn.guardPhase()).isEqualTo(MoveGuard.Phase.SETTLED);
        long hot = avn.ring().hash("hot");
        for (int i = 0; i < 3; i++) {
            avn.record(hot);
        }
        Evaluation e = avn.evaluate(false).orElseThrow();
        assertThat(e.moves()).isNotEmpty();
        // The hot key stays where it is whatever moves: the prediction is the last move's, S unchanged.
        assertThat(e.predictedImbalanceIndex()).isEqualTo(e.moves().get(e.moves().size() - 1).predictedImbalanceAfter())
                .isCloseTo(Math.sqrt(2), within(1e-9));
        assertThat(avn.guardPhase()).isEqualTo(MoveGuard.Phase.COOLDOWN);
        avn.updateAgents(List.of("a", "b", "c", "d"));
        assertThat(avn.guardPhase()).isEqualTo(MoveGuard.Phase.SETTLED);
    }

    @Test
    void utilizationsAreFractions() {
        assertThat(new AgentUtilization(0, 1)).isEqualTo(new AgentUtilization(0.0, 1.0));
        assertThatThrownBy(() -> new AgentUtilization(1.5, 0.5)).hasMessage("cpu must be a fraction in [0, 1], was 1.5");
        assertThatThrownBy(() -> new AgentUtilization(0.5, -0.1)).hasMessage("memory must be a fraction in [0, 1], was -0.1");
        assertThatThrownBy(() -> new AgentUtilization(Double.NaN, 0.5)).hasMessage("cpu must be a fraction in [0, 1], was NaN");
    }

    @Test
    void toStringShowsTheCountsTheIndexAndTheReallocations() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(DEFAULTS);
        assertThat(avn).hasToString("AdaptiveVirtualNodes{} S=0.0 reallocations=0");
        avn.setAgents(Map.of("a", 2, "b", 1), Map.of("a", 1.0, "b", 1.0));
        assertThat(avn).hasToString("AdaptiveVirtualNodes{a=2, b=1} S=0.0 reallocations=0");
    }

    @Test
    void aKeylessRequestCompletesAWindowAsAKeyedOneDoes() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().evaluationWindow(2).build());
        avn.setAgents(List.of("a", "b"));
        assertThat(List.of(avn.recordWithoutKey(), avn.recordWithoutKey(), avn.record(1), avn.recordWithoutKey()))
                .containsExactly(false, true, false, true);
        assertThat(avn.windowRequests()).isEqualTo(4);
    }

    @Test
    void theLeaderOfReplicasCompletesAWindowWhenItsCountIsAMultipleOfWindowOverReplicas() {
        // Window 6: every 3rd request for 2 replicas, every 2nd for 3; the count runs on.
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().evaluationWindow(6).build());
        avn.setAgents(List.of("a", "b"));
        assertThat(List.of(avn.recordWithoutKey(2), avn.record(1, 2), avn.recordWithoutKey(2),
                avn.recordWithoutKey(3), avn.recordWithoutKey(3), avn.record(2, 3)))
                .containsExactly(false, false, true, true, false, true);
    }

    @Test
    void agentsWithGivenVirtualNodesTakeTheirCapacitySharesNormalized() {
        AdaptiveVirtualNodes agents = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(30).build());
        agents.setAgents(Map.of("p", 4, "q", 2), Map.of("p", 3.0, "q", 1.0));
        assertThat(agents.virtualNodes()).containsExactlyEntriesOf(new TreeMap<>(Map.of("p", 4, "q", 2)));
        assertThat(agents.capacityShares()).containsExactlyEntriesOf(new TreeMap<>(Map.of("p", 0.75, "q", 0.25)));
    }

    @Test
    void everyLockedOperationLeavesTheStateFreeForAnotherThread() throws Exception {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().evaluationWindow(2).build());
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            List<Runnable> operations = List.of(
                    () -> avn.setAgents(List.of("a", "b", "c")),
                    () -> avn.updateAgents(List.of("a", "b", "c", "d")),
                    () -> avn.setAgents(Map.of("a", 3, "b", 3), Map.of("a", 1.0, "b", 1.0)),
                    () -> avn.installVirtualNodes(Map.of("a", 4, "b", 2)),
                    () -> avn.installVirtualNodes(Map.of("a", 4, "b", 2)),
                    () -> avn.evaluate(),
                    () -> avn.guardPhase());
            for (Runnable operation : operations) {
                operation.run();
                assertThat(other.submit(avn::guardPhase).get(10, TimeUnit.SECONDS)).isNotNull();
            }
        } finally {
            other.shutdownNow();
        }
    }

    private static long[] positionsOf(HashRing ring, int keys) {
        long[] positions = new long[keys];
        for (int i = 0; i < keys; i++) {
            positions[i] = ring.hash("key-" + i);
        }
        return positions;
    }

    private static Map<String, Double> equalShares() {
        return Map.of("a", 1.0 / 3, "b", 1.0 / 3, "c", 1.0 / 3);
    }

    /** Positions of distinct keys such that each agent owns the given number of them on {@code ring}. */
    private static long[] positionsOwned(HashRing ring, Map<String, Integer> wanted) {
        Map<String, Integer> left = new TreeMap<>(wanted);
        long[] positions = new long[wanted.values().stream().mapToInt(Integer::intValue).sum()];
        int n = 0;
        for (int i = 0; n < positions.length; i++) {
            long p = ring.hash("key-" + i);
            String owner = ring.agentAt(p);
            if (left.getOrDefault(owner, 0) > 0) {
                left.merge(owner, -1, Integer::sum);
                positions[n++] = p;
            }
        }
        return positions;
    }
}
