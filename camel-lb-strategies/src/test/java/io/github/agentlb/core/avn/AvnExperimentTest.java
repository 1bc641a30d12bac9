package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.agentlb.core.hash.HashAlgorithm;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The paper's experiments and the 200-user test, reproduced by seeded simulations
 * ({@link AvnExperiments}). Prints the tables of docs/avn-experiment.md:
 * {@code mvn -q -B -pl camel-lb-strategies -am verify -Dtest=AvnExperimentTest -Dsurefire.failIfNoSpecifiedTests=false -Dmaven.test.redirectTestOutputToFile=false}.
 */
class AvnExperimentTest {

    @Test
    void experimentA_weights221_totals5to20() {
        List<AvnExperiments.InitRow> rows = new ArrayList<>();
        for (int total : new int[] {5, 10, 15, 20}) {
            rows.add(AvnExperiments.initialization(total));
        }
        System.out.println("Experiment a: weights 2:2:1, 10,000 task keys\n" + AvnExperiments.initTable(rows));
        StringBuilder aggregate = new StringBuilder("| N | mean S over 100 agent-name sets | sets with S < 0.1 |\n|---|---|---|\n");
        double[] meanS = new double[4];
        double[] balanced = new double[4];
        int[] totals = {5, 10, 15, 20, 60, 150};
        for (int i = 0; i < totals.length; i++) {
            double mean = AvnExperiments.meanImbalance(totals[i], 100, HashAlgorithm.FNV1_64_MIXED);
            double fraction = AvnExperiments.fractionBalanced(totals[i], 100, HashAlgorithm.FNV1_64_MIXED);
            aggregate.append(String.format(Locale.ROOT, "| %d | %.3f | %.0f%% |%n", totals[i], mean, 100 * fraction));
            if (i < 4) {
                meanS[i] = mean;
                balanced[i] = fraction;
            }
        }
        System.out.println(aggregate);

        assertThat(rows.stream().map(r -> Map.copyOf(r.virtualNodes())).toList()).containsExactly(
                Map.of("10.0.0.1", 2, "10.0.0.2", 2, "10.0.0.3", 1), Map.of("10.0.0.1", 4, "10.0.0.2", 4, "10.0.0.3", 2),
                Map.of("10.0.0.1", 6, "10.0.0.2", 6, "10.0.0.3", 3), Map.of("10.0.0.1", 8, "10.0.0.2", 8, "10.0.0.3", 4));
        assertThat(rows.stream().mapToDouble(AvnExperiments.InitRow::imbalanceIndex).toArray())
                .containsExactly(new double[] {0.267, 0.331, 0.405, 0.179}, within(0.0005));
        // Bare FNV-1 puts the labels 10.0.0.x:i on one short arc: one agent takes every key.
        assertThat(rows).extracting(AvnExperiments.InitRow::imbalanceIndexPlainFnv)
                .allSatisfy(s -> assertThat(s).isCloseTo(Math.sqrt(2), within(0.001)));
        // More virtual nodes help on average, but 15 or 20 points rarely reach S < 0.1.
        assertThat(meanS).isSortedAccordingTo((a, b) -> Double.compare(b, a));
        assertThat(meanS).containsExactly(new double[] {0.524, 0.409, 0.353, 0.309}, within(0.0005));
        assertThat(balanced).containsExactly(0.01, 0.02, 0.02, 0.08);
    }

    @Test
    void experimentB_weightedStartAgainstUniformStart() {
        AvnExperiments.Growth weighted = AvnExperiments.growingLoad(true, 8);
        AvnExperiments.Growth uniform = AvnExperiments.growingLoad(false, 8);
        List<AvnExperiments.GrowthSweep> sweep = AvnExperiments.growthSweep(100, 8);
        System.out.println("Experiment b, agents 10.0.0.1-3\n" + AvnExperiments.growthTable(weighted) + "\n"
                + AvnExperiments.growthTable(uniform) + "\nExperiment b over 100 agent-name sets\n"
                + AvnExperiments.growthSweepTable(sweep));

        assertThat(weighted.trials().get(0).virtualNodes()).containsValues(6, 6, 3);
        assertThat(uniform.trials().get(0).virtualNodes()).containsValues(5, 5, 5);
        // On this one layout the paper's order is reversed: the uniform start's first move happens to land well.
        assertThat(weighted.reallocations()).isEqualTo(2);
        assertThat(uniform.reallocations()).isEqualTo(1);
        // Over 100 layouts the weighted start needs fewer moves, as the paper reports.
        assertThat(sweep.get(0).totalMoves()).isEqualTo(164);
        assertThat(sweep.get(1).totalMoves()).isEqualTo(225);
        assertThat(sweep.get(0).totalMoves()).isLessThanOrEqualTo(sweep.get(1).totalMoves());
        assertThat(sweep.get(0).fewerMovesThanOther()).isEqualTo(59);
        assertThat(sweep.get(1).fewerMovesThanOther()).isEqualTo(25);
    }

    @Test
    void experimentC_twoHundredUsers() {
        List<String> requests = AvnExperiments.userRequests(42);
        AvnExperiments.UserTest ch = AvnExperiments.consistentHashing(AvnExperiments.SEED_AGENTS, requests);
        AvnExperiments.UserTest avn = AvnExperiments.adaptive("avn (defaults)", AdaptiveVirtualNodesConfig.ofDefaults(),
                AvnExperiments.SEED_AGENTS, requests);
        AvnExperiments.UserTest avn15 = AvnExperiments.adaptive("avn (N = 15)",
                AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).build(), AvnExperiments.SEED_AGENTS, requests);
        List<AvnExperiments.Sweep> sweeps = List.of(
                AvnExperiments.sweep("ch (150 vnodes/agent, MD5)", null, 20, 5),
                AvnExperiments.sweep("avn (defaults)", AdaptiveVirtualNodesConfig.ofDefaults(), 20, 5),
                AvnExperiments.sweep("avn (N = 15)", AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).build(), 20, 5));
        List<String> warmup = AvnExperiments.loadGeneratorRequests(100, 100, 43);
        List<String> measured = AvnExperiments.loadGeneratorRequests(2000, 200, 42);
        AvnExperiments.UserTest liveCh = AvnExperiments.consistentHashing(AvnExperiments.LIVE_AGENTS, measured);
        AvnExperiments.UserTest liveAvn = AvnExperiments.adaptive("avn (defaults)", AdaptiveVirtualNodesConfig.ofDefaults(),
                AvnExperiments.LIVE_AGENTS, warmup, measured);
        AvnExperiments.UserTest livePaper = AvnExperiments.adaptive("avn (paper's rule)",
                AdaptiveVirtualNodesConfig.custom().paperRule().build(), AvnExperiments.LIVE_AGENTS, warmup, measured);
        System.out.println("Experiment c: 200 users x 10, shuffle seed 42\n"
                + AvnExperiments.userTestTable(List.of(ch, avn, avn15))
                + "\nExperiment c, the load generator's agents A1-A3 and order, after its warm-up\n"
                + AvnExperiments.userTestTable(List.of(liveCh, liveAvn, livePaper))
                + "\nExperiment c over 20 agent-name sets x 5 shuffles\n" + AvnExperiments.sweepTable(sweeps));

        assertThat(ch.requests()).containsValues(660L, 610L, 730L);
        assertThat(ch.cv()).isCloseTo(0.074, within(0.0005));
        assertThat(avn.requests()).containsValues(716L, 600L, 684L);
        assertThat(avn.cv()).isCloseTo(0.073, within(0.0005)).isLessThanOrEqualTo(0.10);
        assertThat(avn.stickiness()).isEqualTo(0.975).isGreaterThanOrEqualTo(0.95);
        assertThat(avn.reallocations()).isEqualTo(2);
        assertThat(avn.finalVirtualNodes().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(150);

        // The load generator's ring and order: ch reproduces its live counts exactly; avn, without
        // utilization reports, never leaves the starting ring (S of the users seen stays <= 0.1).
        assertThat(liveCh.requests()).containsValues(640L, 660L, 700L);
        assertThat(liveAvn.requests()).containsValues(720L, 650L, 630L);
        assertThat(liveAvn.reallocations()).isZero();
        assertThat(liveAvn.stickiness()).isEqualTo(1.0);
        assertThat(liveAvn.cv()).isCloseTo(0.058, within(0.0005));

        assertThat(sweeps).extracting(AvnExperiments.Sweep::meetingBoth).containsExactly(55, 67, 24);
        assertThat(sweeps.get(1).meanCv()).isLessThan(sweeps.get(0).meanCv());
        assertThat(sweeps.get(1).meanStickiness()).isGreaterThanOrEqualTo(0.95);
    }
}
