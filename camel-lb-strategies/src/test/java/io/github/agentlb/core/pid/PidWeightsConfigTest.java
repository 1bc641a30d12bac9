package io.github.agentlb.core.pid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PidWeightsConfigTest {

    private static PidWeightsConfig everyFieldSet() {
        return PidWeightsConfig.custom().kp(2).ki(0.5).kd(0.25).integralLimit(0.3).maxStep(0.4)
                .controlPeriod(Duration.ofMillis(250)).minWeight(0.2).maxWeight(5)
                .reportExpiry(Duration.ofSeconds(3)).nominalCapacity(8).failureUtilization(1.5)
                .scheduleResolution(100).build();
    }

    @Test
    void defaults() {
        PidWeightsConfig c = PidWeightsConfig.ofDefaults();

        assertThat(c.toString()).isEqualTo("PidWeightsConfig[kp=1.0, ki=0.1, kd=0.1, integralLimit=0.2, maxStep=0.5,"
                + " controlPeriod=PT1S, minWeight=0.1, maxWeight=10.0, reportExpiry=PT10S, nominalCapacity=10.0,"
                + " failureUtilization=2.0, scheduleResolution=1000]");
    }

    @Test
    void everySetterIsKeptAndToBuilderCopiesEveryField() {
        PidWeightsConfig c = everyFieldSet();
        String expected = "PidWeightsConfig[kp=2.0, ki=0.5, kd=0.25, integralLimit=0.3, maxStep=0.4,"
                + " controlPeriod=PT0.25S, minWeight=0.2, maxWeight=5.0, reportExpiry=PT3S, nominalCapacity=8.0,"
                + " failureUtilization=1.5, scheduleResolution=100]";

        assertThat(c.toString()).isEqualTo(expected);
        assertThat(c.toBuilder().build().toString()).isEqualTo(expected);
        assertThat(new double[] {c.kp(), c.ki(), c.kd(), c.integralLimit(), c.maxStep(), c.minWeight(),
                c.maxWeight(), c.nominalCapacity(), c.failureUtilization()})
                .containsExactly(2, 0.5, 0.25, 0.3, 0.4, 0.2, 5, 8, 1.5);
        assertThat(c.controlPeriod()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.reportExpiry()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.scheduleResolution()).isEqualTo(100);
    }

    @Test
    void theControllerTakesTheGainsAndMaxStepAsSymmetricOutputLimits() {
        PidController.Config controller = everyFieldSet().controllerConfig();

        assertThat(controller.toString()).isEqualTo(
                "PidController.Config[kp=2.0, ki=0.5, kd=0.25, integralLimit=0.3, outputMin=-0.4, outputMax=0.4]");
    }

    @Test
    void maxStepIsStrictlyBetweenZeroAndOne() {
        assertThat(PidWeightsConfig.custom().maxStep(Double.MIN_VALUE).build().maxStep()).isEqualTo(Double.MIN_VALUE);
        assertThat(PidWeightsConfig.custom().maxStep(Math.nextDown(1.0)).build().maxStep()).isEqualTo(Math.nextDown(1.0));
        assertThatThrownBy(() -> PidWeightsConfig.custom().maxStep(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxStep must be > 0 and < 1, was 0.0");
        assertThatThrownBy(() -> PidWeightsConfig.custom().maxStep(1)).hasMessage("maxStep must be > 0 and < 1, was 1.0");
        assertThatThrownBy(() -> PidWeightsConfig.custom().maxStep(Double.NaN)).hasMessage("maxStep must be > 0 and < 1, was NaN");
    }

    @Test
    void minWeightIsAboveZeroAndAtMostOne() {
        assertThat(PidWeightsConfig.custom().minWeight(1).build().minWeight()).isEqualTo(1.0);
        assertThat(PidWeightsConfig.custom().minWeight(Double.MIN_VALUE).build().minWeight()).isEqualTo(Double.MIN_VALUE);
        assertThatThrownBy(() -> PidWeightsConfig.custom().minWeight(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minWeight must be > 0 and <= 1, was 0.0");
        assertThatThrownBy(() -> PidWeightsConfig.custom().minWeight(Math.nextUp(1.0)))
                .hasMessage("minWeight must be > 0 and <= 1, was 1.0000000000000002");
    }

    @Test
    void theOtherSettersNameFieldAndValue() {
        PidWeightsConfig.Builder b = PidWeightsConfig.custom();

        assertThatThrownBy(() -> b.kp(-1)).hasMessage("kp must be finite and >= 0, was -1.0");
        assertThatThrownBy(() -> b.ki(-1)).hasMessage("ki must be finite and >= 0, was -1.0");
        assertThatThrownBy(() -> b.kd(-1)).hasMessage("kd must be finite and >= 0, was -1.0");
        assertThatThrownBy(() -> b.integralLimit(-1)).hasMessage("integralLimit must be finite and >= 0, was -1.0");
        assertThatThrownBy(() -> b.controlPeriod(Duration.ZERO)).hasMessage("controlPeriod must be > 0, was PT0S");
        assertThatThrownBy(() -> b.maxWeight(0.5)).hasMessage("maxWeight must be finite and >= 1, was 0.5");
        assertThatThrownBy(() -> b.reportExpiry(null)).hasMessage("reportExpiry must be > 0, was null");
        assertThatThrownBy(() -> b.nominalCapacity(0)).hasMessage("nominalCapacity must be finite and > 0, was 0.0");
        assertThatThrownBy(() -> b.failureUtilization(-1)).hasMessage("failureUtilization must be finite and >= 0, was -1.0");
        assertThatThrownBy(() -> b.scheduleResolution(0)).hasMessage("scheduleResolution must be >= 1, was 0");
    }

    @Test
    void theCanonicalConstructorChecksAsTheSettersDo() {
        PidWeightsConfig d = PidWeightsConfig.ofDefaults();

        assertThat(new PidWeightsConfig(d.kp(), d.ki(), d.kd(), d.integralLimit(), d.maxStep(), d.controlPeriod(),
                d.minWeight(), d.maxWeight(), d.reportExpiry(), d.nominalCapacity(), d.failureUtilization(),
                d.scheduleResolution())).isEqualTo(d);
        assertThatThrownBy(() -> new PidWeightsConfig(d.kp(), d.ki(), d.kd(), d.integralLimit(), 1.0, d.controlPeriod(),
                d.minWeight(), d.maxWeight(), d.reportExpiry(), d.nominalCapacity(), d.failureUtilization(),
                d.scheduleResolution())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxStep must be > 0 and < 1, was 1.0");
    }
}
