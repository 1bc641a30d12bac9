package io.github.agentlb.core.pid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PidWeightsTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1000 * MS;
    private static final double EPS = 1e-9;

    private final long[] clock = {0};
    private PidWeights weights = new PidWeights(PidWeightsConfig.ofDefaults(), () -> clock[0]);

    private void step(Map<String, Double> reports) {
        reports.forEach(weights::report);
        clock[0] += SECOND;
        weights.controlStep();
    }

    private void stepAt(long nanos, Map<String, Double> reports) {
        reports.forEach(weights::report);
        clock[0] = nanos;
        weights.controlStep();
    }

    private static double mean(Map<String, Double> m) {
        return m.values().stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    @Test
    void agentsStartAtEqualWeights() {
        weights.setAgents(List.of("A3", "A1", "A2"));

        assertThat(weights.weights()).containsExactly(
                Map.entry("A1", 1.0), Map.entry("A2", 1.0), Map.entry("A3", 1.0));
        assertThat(weights.utilizations().values()).allMatch(u -> u.isNaN());
    }

    @Test
    void underLoadedAgentsGainWeightAndOverLoadedOnesLoseIt() {
        weights.setAgents(List.of("A1", "A2", "A3"));

        step(Map.of("A1", 0.4, "A2", 0.4, "A3", 1.0));

        // setpoint 0.6: errors 0.2, 0.2, -0.4; out = kp*e + ki*e*dt = 1.1*e (no D on step one)
        double w1 = 1 + 1.1 * 0.2;
        double w3 = 1 - 1.1 * 0.4;
        double mean = (2 * w1 + w3) / 3;
        assertThat(weights.weights().get("A1")).isCloseTo(w1 / mean, within(EPS));
        assertThat(weights.weights().get("A3")).isCloseTo(w3 / mean, within(EPS));
        assertThat(mean(weights.weights())).isCloseTo(1.0, within(EPS));
        assertThat(weights.utilizations()).containsEntry("A3", 1.0);
    }

    @Test
    void newAgentStartsAtTheMeanWeight() {
        weights.setAgents(List.of("A1", "A2", "A3"));
        step(Map.of("A1", 0.4, "A2", 0.5, "A3", 1.0));
        Map<String, Double> before = weights.weights();

        weights.setAgents(List.of("A1", "A2", "A3", "A4"));

        assertThat(weights.weights().get("A4")).isCloseTo(1.0, within(EPS));
        assertThat(mean(weights.weights())).isCloseTo(1.0, within(EPS));
        assertThat(weights.weights().get("A1") / weights.weights().get("A3"))
                .isCloseTo(before.get("A1") / before.get("A3"), within(EPS));
    }

    @Test
    void removedAgentIsForgottenAndIgnored() {
        weights.setAgents(List.of("A1", "A2"));
        weights.setAgents(List.of("A1"));

        weights.report("A2", 0.5);
        weights.requestStarted("A2");
        weights.requestFinished("A2", SECOND);

        assertThat(weights.weights()).containsOnlyKeys("A1");
        assertThat(weights.select()).isEqualTo("A1");
    }

    @Test
    void staleReportsExpireAndTheAgentReturnsToTheMeanWeight() {
        weights.setAgents(List.of("A1", "A2", "A3"));
        step(Map.of("A1", 0.2, "A2", 0.5, "A3", 0.9));
        assertThat(weights.weights().get("A3")).isLessThan(0.8);

        // 10 s is the default expiry: A3's report is exactly 10 s old after nine more steps.
        for (int i = 0; i < 9; i++) {
            step(Map.of("A1", 0.3, "A2", 0.5));
        }
        assertThat(weights.utilizations().get("A3")).isEqualTo(0.9);

        step(Map.of("A1", 0.3, "A2", 0.5));

        assertThat(weights.utilizations().get("A3")).isNaN();
        assertThat(weights.weights().get("A3")).isCloseTo(1.0, within(EPS));
        assertThat(mean(weights.weights())).isCloseTo(1.0, within(EPS));
    }

    @Test
    void theMeanOfThePeriodsReportsIsTheProcessVariable() {
        weights.setAgents(List.of("A1", "A2"));
        weights.report("A1", 0.2);
        weights.report("A1", 0.5);
        weights.report("A1", 0.8);

        step(Map.of("A2", 0.8));

        // A1: mean 0.5; setpoint 0.65; errors +0.15, -0.15; out = 1.1 * e on the first step.
        assertThat(weights.utilizations().get("A1")).isCloseTo(0.5, within(EPS));
        assertThat(weights.utilizations().get("A2")).isEqualTo(0.8);
        double w1 = 1 + 1.1 * 0.15;
        double w2 = 1 - 1.1 * 0.15;
        double mean = (w1 + w2) / 2;
        assertThat(weights.weights().get("A1")).isCloseTo(w1 / mean, within(EPS));
        assertThat(weights.weights().get("A2")).isCloseTo(w2 / mean, within(EPS));
    }

    @Test
    void aPeriodWithoutReportsKeepsTheLastMeanAndTheNextPeriodStartsAfresh() {
        weights.setAgents(List.of("A1", "A2"));
        weights.report("A1", 0.2);
        step(Map.of("A1", 0.4, "A2", 0.5));
        assertThat(weights.utilizations().get("A1")).isCloseTo(0.3, within(EPS));

        step(Map.of("A2", 0.5));
        assertThat(weights.utilizations().get("A1")).isCloseTo(0.3, within(EPS));

        step(Map.of("A1", 0.9, "A2", 0.5));
        assertThat(weights.utilizations().get("A1")).isEqualTo(0.9);
    }

    @Test
    void averagedReportsExpireTenSecondsAfterTheLatestOfTheirPeriod() {
        weights.setAgents(List.of("A1", "A2", "A3"));
        clock[0] = 100 * MS;
        weights.report("A3", 0.1);
        clock[0] = 900 * MS;
        weights.report("A3", 0.9);
        stepAt(SECOND, Map.of("A1", 0.2, "A2", 0.5));
        assertThat(weights.utilizations().get("A3")).isCloseTo(0.5, within(EPS));

        stepAt(10_900 * MS, Map.of("A1", 0.3, "A2", 0.5));
        assertThat(weights.utilizations().get("A3")).as("10.0 s after the latest report: fresh")
                .isCloseTo(0.5, within(EPS));

        stepAt(11_000 * MS, Map.of("A1", 0.3, "A2", 0.5));
        assertThat(weights.utilizations().get("A3")).as("10.1 s after it: expired").isNaN();
        assertThat(weights.weights().get("A3")).isCloseTo(1.0, within(EPS));
        assertThat(mean(weights.weights())).isCloseTo(1.0, within(EPS));
    }

    @Test
    void reportsSurviveAStepThatChangesNothing() {
        weights.setAgents(List.of("A1", "A2"));
        step(Map.of("A1", 0.3, "A2", 0.6));
        weights.report("A1", 0.2);

        weights.controlStep();
        step(Map.of("A1", 0.4, "A2", 0.6));

        assertThat(weights.utilizations().get("A1")).isCloseTo(0.3, within(EPS));
    }

    @Test
    void expiredReporterIsNotMeasuredEvenWithTraffic() {
        weights.setAgents(List.of("A1", "A2"));
        step(Map.of("A1", 0.2, "A2", 0.9));
        clock[0] += 20 * SECOND;
        weights.requestStarted("A2");

        step(Map.of("A1", 0.3));

        assertThat(weights.utilizations().get("A2")).isNaN();
    }

    @Test
    void silentAgentsAreMeasuredByInFlightAndLatency() {
        weights = new PidWeights(PidWeightsConfig.custom().nominalCapacity(10).build(), () -> clock[0]);
        weights.setAgents(List.of("A1", "A2", "A3", "A4"));
        // A1: 20 requests of 500 ms finish during the step: mean concurrency 10 -> 1.0.
        for (int i = 0; i < 20; i++) {
            weights.requestStarted("A1");
            weights.requestFinished("A1", SECOND / 2);
        }
        // A2: 5 requests of 200 ms -> concurrency 1 -> 0.1.
        for (int i = 0; i < 5; i++) {
            weights.requestStarted("A2");
            weights.requestFinished("A2", SECOND / 5);
        }
        // A3: 2 requests still in flight -> 0.2.
        weights.requestStarted("A3");
        weights.requestStarted("A3");

        step(Map.of());

        assertThat(weights.utilizations().get("A1")).isCloseTo(1.0, within(EPS));
        assertThat(weights.utilizations().get("A2")).isCloseTo(0.1, within(EPS));
        assertThat(weights.utilizations().get("A3")).isCloseTo(0.2, within(EPS));
        assertThat(weights.utilizations().get("A4")).isNaN();
        assertThat(weights.weights().get("A1")).isLessThan(weights.weights().get("A2"));
    }

    @Test
    void freshReportsWinOverMeasurement() {
        weights.setAgents(List.of("A1"));
        for (int i = 0; i < 50; i++) {
            weights.requestStarted("A1");
        }

        step(Map.of("A1", 0.25));

        assertThat(weights.utilizations().get("A1")).isEqualTo(0.25);
    }

    @Test
    void invalidReportsAreIgnored() {
        weights.setAgents(List.of("A1", "A2"));

        step(Map.of("A1", Double.NaN, "A2", -0.1));
        weights.report("A1", Double.POSITIVE_INFINITY);
        weights.report("nobody", 0.5);
        weights.report(null, 0.5);
        step(Map.of());

        assertThat(weights.utilizations().values()).allMatch(u -> u.isNaN());
        assertThat(weights.weights()).containsEntry("A1", 1.0).containsEntry("A2", 1.0);
    }

    @Test
    void twoStepsZeroMillisecondsApartChangeNothing() {
        weights.setAgents(List.of("A1", "A2", "A3"));
        step(Map.of("A1", 0.3, "A2", 0.6, "A3", 0.9));
        weights.report("A1", 0.9);
        weights.report("A3", 0.1);

        PidWeightsChecks.assertChangesNothing(weights, weights::controlStep);
    }

    @Test
    void weightsStayWithinTheClampAndPositive() {
        weights.setAgents(List.of("A1", "A2", "A3", "A4"));
        for (int i = 0; i < 100; i++) {
            step(Map.of("A1", 50.0, "A2", 0.0, "A3", 0.0, "A4", 0.0));
        }

        assertThat(weights.weights().get("A1")).isCloseTo(0.1, within(EPS));
        assertThat(mean(weights.weights())).isCloseTo(1.0, within(EPS));
        assertThat(weights.weights().values()).allMatch(w -> w > 0 && Double.isFinite(w));
    }

    @Test
    void normalizeFallsBackToEqualWeightsWhenNoneIsUsable() {
        double[] w = {Double.NaN, -1, Double.POSITIVE_INFINITY};
        WeightNormalization.normalize(w, 0.1, 10);
        assertThat(w).containsExactly(1.0, 1.0, 1.0);

        double[] partly = {Double.NaN, 2, 4};
        WeightNormalization.normalize(partly, 0.1, 10);
        assertThat(partly).containsExactly(new double[] {1.0, 2.0 / 3, 4.0 / 3}, within(EPS));
    }

    @Test
    void normalizeClampsRelativeToAMeanOfOne() {
        double[] w = {1000, 1, 1};
        WeightNormalization.normalize(w, 0.1, 10);

        assertThat(w).containsExactly(new double[] {2.8, 0.1, 0.1}, within(EPS));
    }

    @Test
    void theFailoverOrderListsEveryAgentOnceByDescendingWeight() {
        weights.setAgents(List.of("A1", "A2", "A3"));
        step(Map.of("A1", 0.2, "A2", 0.5, "A3", 0.9));

        // A1 was the least loaded, so it gained weight; A3 lost it.
        assertThat(weights.schedule().failoverOrder()).containsExactly("A1", "A2", "A3");
    }

    @Test
    void concurrentSelectionWhileTheControlLoopRuns() throws Exception {
        weights.setAgents(List.of("A1", "A2", "A3", "A4"));
        Set<String> known = Set.of("A1", "A2", "A3", "A4");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                futures.add(pool.submit(() -> {
                    int unknown = 0;
                    for (int i = 0; i < 50_000; i++) {
                        String a = (i % 2 == 0) ? weights.select() : weights.schedule().failoverOrder().get(0);
                        if (!known.contains(a)) {
                            unknown++;
                        }
                        weights.requestStarted(a);
                        weights.requestFinished(a, 1000);
                    }
                    return unknown;
                }));
            }
            for (int i = 0; i < 300; i++) {
                clock[0] += SECOND;
                weights.report("A1", 0.2 + (i % 7) * 0.1);
                weights.report("A2", 0.5);
                weights.controlStep();
            }
            for (Future<Integer> f : futures) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isZero();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(weights.weights().values()).allMatch(w -> w >= 0.1 - EPS && w <= 10 + EPS);
    }

    @Test
    void configRejectsBadValuesNamingFieldAndValue() {
        PidWeightsConfig.Builder b = PidWeightsConfig.custom();

        assertThatThrownBy(() -> b.kp(-0.1)).hasMessage("kp must be finite and >= 0, was -0.1");
        assertThatThrownBy(() -> b.ki(Double.NaN)).hasMessage("ki must be finite and >= 0, was NaN");
        assertThatThrownBy(() -> b.kd(Double.POSITIVE_INFINITY))
                .hasMessage("kd must be finite and >= 0, was Infinity");
        assertThatThrownBy(() -> b.integralLimit(-1)).hasMessage("integralLimit must be finite and >= 0, was -1.0");
        assertThatThrownBy(() -> b.maxStep(1)).hasMessage("maxStep must be > 0 and < 1, was 1.0");
        assertThatThrownBy(() -> b.minWeight(0)).hasMessage("minWeight must be > 0 and <= 1, was 0.0");
        assertThatThrownBy(() -> b.maxWeight(0.5)).hasMessage("maxWeight must be finite and >= 1, was 0.5");
        assertThatThrownBy(() -> b.controlPeriod(Duration.ZERO)).hasMessage("controlPeriod must be > 0, was PT0S");
        assertThatThrownBy(() -> b.reportExpiry(null)).hasMessage("reportExpiry must be > 0, was null");
        assertThatThrownBy(() -> b.nominalCapacity(0)).hasMessage("nominalCapacity must be finite and > 0, was 0.0");
        assertThatThrownBy(() -> b.scheduleResolution(0)).hasMessage("scheduleResolution must be >= 1, was 0");
        assertThatThrownBy(() -> weights.setAgents(Arrays.asList("A1", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent id must not be null");
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        PidWeightsConfig c = PidWeightsConfig.ofDefaults();

        assertThat(c.kp()).isEqualTo(1.0);
        assertThat(c.ki()).isEqualTo(0.1);
        assertThat(c.kd()).isEqualTo(0.1);
        assertThat(c.controlPeriod()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.minWeight()).isEqualTo(0.1);
        assertThat(c.maxWeight()).isEqualTo(10.0);
        assertThat(c.reportExpiry()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
        assertThat(c.controllerConfig().outputMin()).isEqualTo(-c.maxStep());
    }
}
