package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.avn.Evaluation;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.ring.HashRing;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** What an evaluation of {@code avn} logs. */
class AvnStrategyLogTest {

    private static Evaluation moved(List<Evaluation.Move> moves, Map<String, Integer> after) {
        return new Evaluation(1000, new TreeMap<>(Map.of("A1", 150.0, "A2", 80.0, "A3", 70.0)), 0.24, false, moves,
                HashRing.of(after, HashAlgorithm.FNV1_64_MIXED), new Evaluation.Work(6, 3000));
    }

    /**
     * An evaluation that moves several virtual nodes logs one line: the moves in order, S before the
     * first and predicted after the last, and the counts after all of them (a line per move, each with
     * the final counts, read as the counts after that move).
     */
    @Test
    void anEvaluationLogsOneLineWhateverItsMoves() {
        Map<String, Integer> after = Map.of("A1", 47, "A2", 52, "A3", 51);
        try (CapturedLog log = new CapturedLog(AdaptiveVirtualNodeLB.class.getName())) {
            AvnStrategy.logEvaluation(moved(List.of(new Evaluation.Move("A1", "A3", 0.24, 0.2),
                    new Evaluation.Move("A1", "A2", 0.2, 0.15), new Evaluation.Move("A1", "A3", 0.15, 0.12)), after));
            AvnStrategy.logEvaluation(moved(List.of(new Evaluation.Move("A1", "A3", 0.24, 0.2)), after));

            assertThat(log.lines()).containsExactly(
                    "INFO Reallocated 3 virtual nodes A1 -> A3, A1 -> A2, A1 -> A3: S=0.240 predicted 0.120"
                            + " vnodes={A1=47, A2=52, A3=51}",
                    "INFO Reallocated a virtual node A1 -> A3: S=0.240 predicted 0.200 vnodes={A1=47, A2=52, A3=51}");
        }
    }
}
