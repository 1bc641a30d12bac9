package io.github.agentlb.core.pid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Joining, leaving, restarting and set weights, with the numbers the default gains give. */
class PidWeightsMembershipTest {

    private static final long SECOND = 1_000_000_000L;
    private static final double EPS = 1e-9;

    private final long[] clock = {0};
    private final PidWeights weights = new PidWeights(PidWeightsConfig.ofDefaults(), () -> clock[0]);

    private void step(Map<String, Double> reports) {
        reports.forEach(weights::report);
        clock[0] += SECOND;
        weights.controlStep();
    }

    /** A1 and A2 at 1.2, A3 at 0.6: mean 1. */
    private void unequalWeights() {
        weights.setAgents(List.of("A1", "A2", "A3"));
        weights.setWeights(Map.of("A1", 2.0, "A2", 2.0, "A3", 1.0));
        assertThat(weights.weights().get("A1")).isCloseTo(1.2, within(EPS));
        assertThat(weights.weights().get("A3")).isCloseTo(0.6, within(EPS));
    }

    @Test
    void aNewcomerTakesTheMeanOfTheAgentsThatStayNotOfThoseThatLeave() {
        unequalWeights();

        weights.setAgents(List.of("A1", "A2", "A4"));

        // A4 joins at 1.2 (A1's and A2's mean, A3's 0.6 gone): all equal, normalized to 1
        assertThat(weights.weights()).containsOnlyKeys("A1", "A2", "A4");
        weights.weights().values().forEach(w -> assertThat(w).isCloseTo(1.0, within(EPS)));
    }

    @Test
    void setWeightsNormalizesToAMeanOfOneAndKeepsTheAgentsNotGiven() {
        unequalWeights();

        weights.setWeights(Map.of("A3", 1.2));

        weights.weights().values().forEach(w -> assertThat(w).isCloseTo(1.0, within(EPS)));
        assertThat(weights.schedule().slotCounts()).containsExactly(
                Map.entry("A1", 1), Map.entry("A2", 1), Map.entry("A3", 1));
        assertThatThrownBy(() -> weights.setWeights(Map.of("A1", 0.0))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weight of A1 must be finite and > 0, was 0.0");
        assertThatThrownBy(() -> weights.setWeights(java.util.Collections.singletonMap("A1", null)))
                .hasMessage("weight of A1 must be finite and > 0, was NaN");
    }

    @Test
    void setWeightsResetsTheControllersOfTheAgentsGivenOnly() {
        weights.setAgents(List.of("A1", "A2"));
        step(Map.of("A1", 0.4, "A2", 0.8));
        weights.setWeights(Map.of("A1", 1.0, "A2", 1.0));

        step(Map.of("A1", 0.4, "A2", 0.8));
        // setpoint 0.6, both controllers fresh: P + I = 0.2 + 0.02 = 0.22 and -0.22, no D
        double ratio = 1.22 / 0.78;
        assertThat(weights.weights().get("A1") / weights.weights().get("A2")).isCloseTo(ratio, within(EPS));

        weights.setWeights(Map.of("A2", weights.weights().get("A2")));
        step(Map.of("A1", 0.4, "A2", 0.8));
        // A1 keeps its integral: 0.2 + 0.04 = 0.24; A2 starts over: -0.22
        assertThat(weights.weights().get("A1") / weights.weights().get("A2"))
                .isCloseTo(ratio * 1.24 / 0.78, within(EPS));
    }

    @Test
    void aRestartedAgentStartsAtTheOthersMeanWithAFreshController() {
        weights.setAgents(List.of("A1", "A2", "A3"));
        step(Map.of("A1", 0.4, "A2", 0.4, "A3", 1.0));
        assertThat(weights.weights().get("A3")).isLessThan(weights.weights().get("A1"));

        weights.restart("A3");

        weights.weights().values().forEach(w -> assertThat(w).isCloseTo(1.0, within(EPS)));
        step(Map.of("A1", 0.4, "A2", 0.4, "A3", 1.0));
        // setpoint 0.6. A1: P 0.2, I 0.02 + 0.02, D 0: 0.24. A3 from a reset controller: P -0.4, I -0.04, no D.
        assertThat(weights.weights().get("A3") / weights.weights().get("A1")).isCloseTo(0.56 / 1.24, within(EPS));
    }

    @Test
    void aRestartForgetsTheAgentsReports() {
        weights.setAgents(List.of("A1", "A2"));
        weights.report("A2", 0.9);

        weights.restart("A2");
        step(Map.of("A1", 0.5));

        assertThat(weights.utilizations().get("A2")).isNaN();
        assertThat(weights.utilizations().get("A1")).isEqualTo(0.5);
    }

    @Test
    void restartingFromUnequalWeightsUsesTheOthersMeanAndAnUnknownAgentIsIgnored() {
        unequalWeights();
        weights.restart("unknown");
        assertThat(weights.weights().get("A3")).isCloseTo(0.6, within(EPS));

        weights.restart("A3");

        weights.weights().values().forEach(w -> assertThat(w).isCloseTo(1.0, within(EPS)));
        PidWeights single = new PidWeights(PidWeightsConfig.ofDefaults(), () -> 0L);
        single.setAgents(List.of("only"));
        single.restart("only");
        assertThat(single.weights()).containsExactly(Map.entry("only", 1.0));
    }

    @Test
    void aRestartKeepsTheOtherAgentsWeights() {
        weights.setAgents(List.of("A1", "A2", "A3"));
        weights.setWeights(Map.of("A1", 3.0, "A2", 1.0, "A3", 0.5));

        weights.restart("A3");

        // 2, 2/3 and 1/3 before; A3 takes 4/3, the mean of the others; normalized: 1.5, 0.5, 1
        assertThat(weights.weights().get("A1")).isCloseTo(1.5, within(EPS));
        assertThat(weights.weights().get("A2")).isCloseTo(0.5, within(EPS));
        assertThat(weights.weights().get("A3")).isCloseTo(1.0, within(EPS));
    }

    @Test
    void aStaleAgentSitsAtTheMeanOfTheUpdatedWeightsNotAtOne() {
        unequalWeights();

        // A3 never reports. A1 and A2 sit at the setpoint: their weights stay 1.2, A3 takes 1.2 too.
        step(Map.of("A1", 0.5, "A2", 0.5));

        weights.weights().values().forEach(w -> assertThat(w).isCloseTo(1.0, within(EPS)));
        assertThat(weights.utilizations().get("A3")).isNaN();
    }

    @Test
    void aStaleAgentsControllerIsResetSoItsReturnHasNoHistory() {
        weights.setAgents(List.of("A1", "A2"));
        step(Map.of("A1", 0.4, "A2", 0.8));
        for (int i = 0; i < 10; i++) {
            step(Map.of("A1", 0.4));
        }
        assertThat(weights.utilizations().get("A2")).isNaN();
        weights.setWeights(Map.of("A1", 1.0));

        step(Map.of("A1", 0.4, "A2", 0.8));

        // A1's controller was just reset by setWeights: 0.22. A2's by going stale: -0.22; with its
        // old integral (-0.02) and its old measurement (0.8, D = 0) it would be -0.24.
        assertThat(weights.weights().get("A1") / weights.weights().get("A2")).isCloseTo(1.22 / 0.78, within(EPS));
    }

    @Test
    void accessorsAndNullChecks() {
        assertThat(weights.config().toString()).isEqualTo(PidWeightsConfig.ofDefaults().toString());
        assertThatThrownBy(() -> new PidWeights(null, () -> 0L)).isInstanceOf(NullPointerException.class).hasMessage("config");
        assertThatThrownBy(() -> new PidWeights(PidWeightsConfig.ofDefaults(), null))
                .isInstanceOf(NullPointerException.class).hasMessage("nanoClock");
        assertThatThrownBy(() -> weights.setAgents(java.util.Arrays.asList("A1", null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("agent id must not be null");
    }
}
