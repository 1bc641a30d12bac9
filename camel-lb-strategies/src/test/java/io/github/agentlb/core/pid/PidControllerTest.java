package io.github.agentlb.core.pid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PidControllerTest {

    private static final double EPS = 1e-12;

    private static PidController controller(double kp, double ki, double kd) {
        return new PidController(PidController.Config.gains(kp, ki, kd));
    }

    @Test
    void proportionalOnlyIsGainTimesError() {
        PidController pid = controller(2, 0, 0);

        assertThat(pid.update(1.0, 0.25, 1.0)).isCloseTo(1.5, within(EPS));
        assertThat(pid.update(1.0, 0.5, 1.0)).isCloseTo(1.0, within(EPS));
        assertThat(pid.update(0.5, 0.75, 1.0)).isCloseTo(-0.5, within(EPS));
    }

    @Test
    void integralAccumulatesErrorTimesDtAndIsClamped() {
        PidController pid = new PidController(PidController.Config.gains(0, 0.5, 0).withIntegralLimit(1.0));

        assertThat(pid.update(1, 0, 1.0)).isCloseTo(0.5, within(EPS));
        assertThat(pid.update(1, 0, 0.5)).isCloseTo(0.75, within(EPS));
        assertThat(pid.update(1, 0, 1.0)).isCloseTo(1.0, within(EPS));
        assertThat(pid.update(1, 0, 1.0)).isCloseTo(1.0, within(EPS));
        // The clamp is the whole windup: the first negative error already pulls the output down.
        assertThat(pid.update(0, 1, 1.0)).isCloseTo(0.5, within(EPS));
        assertThat(pid.integral()).isCloseTo(0.5, within(EPS));
    }

    @Test
    void integralStopsWhileTheOutputIsSaturatedInTheErrorsDirection() {
        PidController pid = new PidController(PidController.Config.gains(10, 1, 0).withOutputLimits(-1, 1));

        assertThat(pid.update(1, 0, 1.0)).isEqualTo(1.0);
        assertThat(pid.update(1, 0, 1.0)).isEqualTo(1.0);
        assertThat(pid.integral()).isZero();
        // Error of the other sign, output inside the limits: integration resumes from zero.
        assertThat(pid.update(0, 0.05, 1.0)).isCloseTo(-0.5 - 0.05, within(EPS));
        assertThat(pid.integral()).isCloseTo(-0.05, within(EPS));
    }

    @Test
    void integralFreezesAtTheFirstStepWhoseUnclampedOutputPassesTheMaxAndResumesWhenTheErrorTurns() {
        PidController pid = new PidController(PidController.Config.gains(0.5, 0.5, 0).withOutputLimits(-1, 1));

        // e = 1: P = 0.5, I' = 0.5, P + I' = 1.0 is at the limit, not past it: integrate.
        assertThat(pid.update(1, 0, 1.0)).isEqualTo(1.0);
        assertThat(pid.integral()).isEqualTo(0.5);
        // P + I' = 0.5 + 1.0 = 1.5 > 1 with e > 0: the integral keeps 0.5.
        assertThat(pid.update(1, 0, 1.0)).isEqualTo(1.0);
        assertThat(pid.integral()).isEqualTo(0.5);
        assertThat(pid.update(1, 0, 1.0)).isEqualTo(1.0);
        assertThat(pid.integral()).isEqualTo(0.5);
        // e = -0.5: P = -0.25, I' = 0.25, P + I' = 0 is inside the limits: integration resumes.
        assertThat(pid.update(0, 0.5, 1.0)).isEqualTo(0.0);
        assertThat(pid.integral()).isEqualTo(0.25);
    }

    @Test
    void integralFreezesAtTheFirstStepWhoseUnclampedOutputPassesTheMinAndResumesWhenTheErrorTurns() {
        PidController pid = new PidController(PidController.Config.gains(0.5, 0.5, 0).withOutputLimits(-1, 1));

        // e = -1: P + I' = -0.5 - 0.5 = -1.0 is at the limit: integrate.
        assertThat(pid.update(0, 1, 1.0)).isEqualTo(-1.0);
        assertThat(pid.integral()).isEqualTo(-0.5);
        // P + I' = -0.5 - 1.0 = -1.5 < -1 with e < 0: frozen.
        assertThat(pid.update(0, 1, 1.0)).isEqualTo(-1.0);
        assertThat(pid.integral()).isEqualTo(-0.5);
        // e = 0.5: P = 0.25, I' = -0.25: resumes.
        assertThat(pid.update(0.5, 0, 1.0)).isEqualTo(0.0);
        assertThat(pid.integral()).isEqualTo(-0.25);
    }

    @Test
    void theDerivativeCountsInTheSumThatDecidesAntiWindup() {
        PidController pid = new PidController(PidController.Config.gains(0, 1, 1).withOutputLimits(-1, 1));

        assertThat(pid.update(1.5, 1.5, 1.0)).isEqualTo(0.0);
        // e = 1, I' = 1, D = -(0.5 - 1.5) / 1 = 1: I' + D = 2 > 1, so the integral stays 0;
        // without D the sum would be 1, at the limit, and the integral would become 1.
        assertThat(pid.update(1.5, 0.5, 1.0)).isEqualTo(1.0);
        assertThat(pid.integral()).isEqualTo(0.0);
    }

    @Test
    void aSaturatedOutputWithTheErrorPullingBackStillIntegrates() {
        PidController pid = new PidController(PidController.Config.gains(0, 1, 4).withOutputLimits(-1, 1));

        assertThat(pid.update(0, 1.0, 1.0)).isEqualTo(-1.0);
        assertThat(pid.integral()).isEqualTo(-1.0);
        // y falls fast: D = -4 * (0.25 - 1) = 3, e = -0.25, I' = -1.25: sum 1.75 > 1, but e < 0
        // pulls back from the max, so the integral takes I'.
        assertThat(pid.update(0, 0.25, 1.0)).isEqualTo(1.0);
        assertThat(pid.integral()).isEqualTo(-1.25);
    }

    @Test
    void negativeIntegralIsClampedAtMinusTheLimit() {
        PidController pid = new PidController(PidController.Config.gains(0, 0.5, 0).withIntegralLimit(0.75));

        assertThat(pid.update(0, 1, 1.0)).isEqualTo(-0.5);
        assertThat(pid.update(0, 1, 1.0)).isEqualTo(-0.75);
        assertThat(pid.integral()).isEqualTo(-0.75);
    }

    @Test
    void derivativeActsOnTheMeasurementSoASetpointJumpGivesNoKick() {
        PidController pid = controller(1, 0, 1);

        assertThat(pid.update(0, 0, 1.0)).isZero();
        // Setpoint jumps by 1: only P answers; an error derivative would add kd * 1 = 1.
        assertThat(pid.update(1, 0, 1.0)).isCloseTo(1.0, within(EPS));
        // Measurement rises by 0.5 in 0.5 s: D = -kd * 0.5 / 0.5 = -1, P = 0.5.
        assertThat(pid.update(1, 0.5, 0.5)).isCloseTo(-0.5, within(EPS));
    }

    @Test
    void derivativeIsZeroOnTheFirstUpdate() {
        PidController pid = controller(0, 0, 5);

        assertThat(pid.update(0, 3, 1.0)).isZero();
        assertThat(pid.update(0, 4, 2.0)).isCloseTo(-2.5, within(EPS));
    }

    @Test
    void outputIsClamped() {
        PidController pid = new PidController(PidController.Config.gains(10, 0, 0).withOutputLimits(-0.5, 0.25));

        assertThat(pid.update(1, 0, 1)).isEqualTo(0.25);
        assertThat(pid.update(0, 1, 1)).isEqualTo(-0.5);
        assertThat(pid.lastOutput()).isEqualTo(-0.5);
    }

    @Test
    void invalidSamplesAreIgnoredAndLeaveTheStateUnchanged() {
        PidController pid = controller(1, 0.5, 1);
        PidController reference = controller(1, 0.5, 1);
        pid.update(1, 0.2, 1);
        reference.update(1, 0.2, 1);

        assertThat(pid.update(1, 0.9, 0)).isZero();
        assertThat(pid.update(1, 0.9, -1)).isZero();
        assertThat(pid.update(1, 0.9, Double.NaN)).isZero();
        assertThat(pid.update(1, 0.9, Double.POSITIVE_INFINITY)).isZero();
        assertThat(pid.update(Double.NaN, 0.9, 1)).isZero();
        assertThat(pid.update(1, Double.NaN, 1)).isZero();
        assertThat(pid.update(1, Double.NEGATIVE_INFINITY, 1)).isZero();
        assertThat(pid.update(Double.POSITIVE_INFINITY, 0.9, 1)).isZero();

        assertThat(pid.integral()).isEqualTo(reference.integral());
        assertThat(pid.lastOutput()).isEqualTo(reference.lastOutput());
        assertThat(pid.update(1, 0.4, 1)).isEqualTo(reference.update(1, 0.4, 1));
    }

    @Test
    void resetForgetsIntegralAndPreviousMeasurement() {
        PidController pid = controller(0, 1, 1);
        pid.update(1, 0, 1);
        pid.update(1, 0, 1);

        pid.reset();

        assertThat(pid.integral()).isZero();
        assertThat(pid.lastOutput()).isZero();
        // No derivative against the pre-reset measurement.
        assertThat(pid.update(0, 10, 1)).isCloseTo(-10, within(EPS));
    }

    @Test
    void configRejectsBadValuesNamingFieldAndValue() {
        PidController.Config b = PidController.Config.ofDefaults();

        assertThatThrownBy(() -> PidController.Config.gains(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kp must be finite and >= 0, was -1.0");
        assertThatThrownBy(() -> PidController.Config.gains(1, Double.NaN, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ki must be finite and >= 0, was NaN");
        assertThatThrownBy(() -> PidController.Config.gains(1, 0, Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kd must be finite and >= 0, was Infinity");
        assertThatThrownBy(() -> b.withIntegralLimit(-0.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("integralLimit must be >= 0, was -0.5");
        assertThatThrownBy(() -> b.withOutputLimits(1, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outputMin must be <= outputMax (-1.0), was 1.0");
        assertThatThrownBy(() -> b.withOutputLimits(Double.NaN, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outputMin must be a number, was NaN");
    }

    @Test
    void defaultsArePureProportionalWithoutLimits() {
        PidController.Config c = PidController.Config.ofDefaults();

        assertThat(c.kp()).isEqualTo(1.0);
        assertThat(c.ki()).isZero();
        assertThat(c.kd()).isZero();
        assertThat(c.integralLimit()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(c.outputMin()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(c.outputMax()).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void theConfigsCanonicalConstructorChecksAsTheSettersDo() {
        assertThatThrownBy(() -> new PidController.Config(1, 0, 0, Double.POSITIVE_INFINITY, 1, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outputMin must be <= outputMax (-1.0), was 1.0");
        assertThatThrownBy(() -> new PidController.Config(-1, 0, 0, 1, -1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kp must be finite and >= 0, was -1.0");
    }

    @Test
    void theControllerKeepsItsConfiguration() {
        PidController.Config config = PidController.Config.gains(2, 0.5, 0.25);
        assertThat(new PidController(config).config()).isSameAs(config);
    }
}
