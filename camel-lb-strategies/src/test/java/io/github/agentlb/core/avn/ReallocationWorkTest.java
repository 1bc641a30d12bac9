package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.ring.HashRing;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** What an evaluation costs, counted (never timed), and that bounding it changed no decision where the search is full. */
class ReallocationWorkTest {

    private static final AdaptiveVirtualNodesConfig DEFAULTS = AdaptiveVirtualNodesConfig.ofDefaults();

    @Test
    void anEvaluationAt300AgentsJudgesAtMost64CandidatesPerMoveByTheirArcsAlone() {
        HashRing ring = HashRing.uniform(agents(300), 50, HashAlgorithm.FNV1_64_MIXED);
        long[] positions = new SplittableRandom(42).longs(2000).toArray();

        Evaluation e = Reallocation.evaluate(ring, equalShares(ring), WindowSnapshot.of(positions), DEFAULTS);

        // 2000 keys over 300 agents: about 6.7 each, so S is far above 0.1 and all 16 moves are made.
        assertThat(e.imbalanceIndex()).isGreaterThan(0.3);
        assertThat(e.moves()).hasSize(16);
        assertThat(e.predictedImbalanceIndex()).isLessThan(e.imbalanceIndex());
        assertThat(e.ring().size()).isEqualTo(15_000);
        // The full search tried up to 300 * 299 / 2 = 44,850 pairs per move, each replaying 2000 positions.
        // At most 64 per move; this seeded window judges 534 in all.
        assertThat(e.work().candidateMoves()).isEqualTo(534);
        // One replay of the history, then only the positions on each candidate's two arcs
        // (2 * 2000 / 15000 = 0.27 per candidate on average).
        assertThat(e.work().lookups()).isEqualTo(2013L);
    }

    @Test
    void upToNineAgentsTheMovesAreThoseOfTheFullSearchWithFullReplays() {
        SplittableRandom random = new SplittableRandom(5);
        for (int agents : new int[] {2, 3, 5, 9}) {
            for (int trial = 0; trial < 10; trial++) {
                HashRing ring = HashRing.uniform(agents(agents), 50, HashAlgorithm.FNV1_64_MIXED);
                long[] positions = skewed(random, 300 + random.nextInt(2000));
                Evaluation e = Reallocation.evaluate(ring, equalShares(ring), WindowSnapshot.of(positions), DEFAULTS);
                assertThat(e.moves()).as("%d agents, trial %d", agents, trial)
                        .isEqualTo(fullSearch(ring, equalShares(ring), positions, DEFAULTS));
            }
        }
    }

    /** Half the positions from a few hot keys, so some agents carry far more than others. */
    private static long[] skewed(SplittableRandom random, int size) {
        long[] hot = random.longs(5).toArray();
        long[] positions = new long[size];
        for (int i = 0; i < size; i++) {
            positions[i] = i % 2 == 0 ? hot[random.nextInt(hot.length)] : random.nextLong();
        }
        return positions;
    }

    /**
     * The evaluation as it was before it was bounded: every donor (L_i descending) against every
     * receiver (L_i ascending), each judged by replaying every position on a ring built for it;
     * without utilization reports, so {@code L_i' = L_i * L_ti' / L_ti}.
     */
    private static List<Evaluation.Move> fullSearch(HashRing ring, Map<String, Double> shares, long[] positions,
            AdaptiveVirtualNodesConfig config) {
        SortedMap<String, Long> measured = Reallocation.owners(ring, positions);
        SortedMap<String, Double> measuredLoads = LoadIndex.loadIndices(measured, shares, Map.of(), config);
        double imbalance = LoadIndex.imbalanceIndex(measuredLoads);
        int allowed = imbalance > config.imbalanceThreshold() ? config.maxMovesPerEvaluation() : 0;
        List<Evaluation.Move> moves = new ArrayList<>();
        HashRing current = ring;
        SortedMap<String, Long> requests = measured;
        SortedMap<String, Double> loads = measuredLoads;
        while (imbalance > config.settleThreshold() && moves.size() < allowed) {
            Comparator<Map.Entry<String, Double>> byLoad = Map.Entry.comparingByValue();
            HashRing from = current;
            SortedMap<String, Double> at = loads;
            List<String> donors = at.entrySet().stream().filter(e -> from.virtualNodes().get(e.getKey()) > 1)
                    .sorted(byLoad.reversed().thenComparing(Map.Entry.comparingByKey())).map(Map.Entry::getKey).toList();
            List<String> receivers = at.entrySet().stream()
                    .sorted(byLoad.thenComparing(Map.Entry.comparingByKey())).map(Map.Entry::getKey).toList();
            HashRing chosen = null;
            HashRing neutral = null;
            String[] pair = null;
            String[] neutralPair = null;
            for (String donor : donors) {
                for (String receiver : receivers) {
                    if (chosen != null || !(at.get(donor) > at.get(receiver))) {
                        continue;
                    }
                    HashRing candidate = from.withVirtualNodes(Reallocation.moveOne(from.virtualNodes(), donor, receiver));
                    SortedMap<String, Long> replayed = Reallocation.owners(candidate, positions);
                    double s = LoadIndex.imbalanceIndex(predict(measured, measuredLoads, replayed, shares));
                    if (s < imbalance - 1e-12) {
                        chosen = candidate;
                        pair = new String[] {donor, receiver};
                    } else if (neutral == null && replayed.equals(requests)) {
                        neutral = candidate;
                        neutralPair = new String[] {donor, receiver};
                    }
                }
            }
            if (chosen == null) {
                chosen = neutral;
                pair = neutralPair;
            }
            if (chosen == null) {
                break;
            }
            requests = Reallocation.owners(chosen, positions);
            loads = predict(measured, measuredLoads, requests, shares);
            double after = LoadIndex.imbalanceIndex(loads);
            moves.add(new Evaluation.Move(pair[0], pair[1], imbalance, after));
            imbalance = after;
            current = chosen;
        }
        return moves;
    }

    private static SortedMap<String, Double> predict(SortedMap<String, Long> measured, SortedMap<String, Double> loads,
            SortedMap<String, Long> requests, Map<String, Double> shares) {
        long total = requests.values().stream().mapToLong(Long::longValue).sum();
        int agents = requests.size();
        SortedMap<String, Double> predicted = new TreeMap<>();
        loads.forEach((agent, load) -> {
            double before = LoadIndex.requestShare(measured.get(agent), total, shares.get(agent), agents);
            double after = LoadIndex.requestShare(requests.get(agent), total, shares.get(agent), agents);
            predicted.put(agent, before > 0 ? load * after / before : load + 100 * after);
        });
        return predicted;
    }

    private static List<String> agents(int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            ids.add("http://agent-" + i + ":8080");
        }
        return ids;
    }

    private static Map<String, Double> equalShares(HashRing ring) {
        Map<String, Double> shares = new TreeMap<>();
        ring.agents().forEach(agent -> shares.put(agent, 1.0 / ring.agents().size()));
        return shares;
    }
}
