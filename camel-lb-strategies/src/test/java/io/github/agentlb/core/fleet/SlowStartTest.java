package io.github.agentlb.core.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SlowStartTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aLinearRampKeepsTheElapsedPartOfTheWindowAboveItsMinimum() {
        SlowStart ramp = new SlowStart(Duration.ofSeconds(10), 1.0, 0.1);

        assertThat(ramp.isEnabled()).isTrue();
        assertThat(ramp.factor(0)).isEqualTo(0.1);
        assertThat(ramp.factor(-5 * SECOND)).isEqualTo(0.1);
        assertThat(ramp.factor(SECOND / 2)).isEqualTo(0.1);
        assertThat(ramp.factor(SECOND)).isCloseTo(0.1, within(1e-12));
        assertThat(ramp.factor(2 * SECOND)).isCloseTo(0.2, within(1e-12));
        assertThat(ramp.factor(5 * SECOND)).isCloseTo(0.5, within(1e-12));
        assertThat(ramp.factor(10 * SECOND - 1)).isLessThan(1.0).isGreaterThan(0.999);
        assertThat(ramp.factor(10 * SECOND)).isEqualTo(1.0);
        assertThat(ramp.factor(Long.MAX_VALUE)).isEqualTo(1.0);
    }

    @Test
    void aggressionAboveOneGivesMoreEarlyAsEnvoysFormulaSays() {
        SlowStart ramp = new SlowStart(Duration.ofSeconds(10), 2.0, 0.01);

        // f(t) = (t / window)^(1 / aggression): (1/4)^(1/2) = 0.5, (1/100)^(1/2) = 0.1
        assertThat(ramp.factor(10 * SECOND / 4)).isCloseTo(0.5, within(1e-12));
        assertThat(ramp.factor(SECOND / 10)).isCloseTo(0.1, within(1e-12));
        assertThat(new SlowStart(Duration.ofSeconds(10), 0.5, 0.01).factor(5 * SECOND)).isCloseTo(0.25, within(1e-12));
    }

    @Test
    void aZeroWindowIsOffAndKeepsEveryShare() {
        assertThat(SlowStart.DISABLED.isEnabled()).isFalse();
        assertThat(SlowStart.DISABLED.factor(0)).isEqualTo(1.0);
        assertThat(SlowStart.DEMO.withWindow(Duration.ZERO).factor(0)).isEqualTo(1.0);
        assertThat(SlowStart.DEMO).isEqualTo(new SlowStart(Duration.ofSeconds(30), 1.0, 0.1));
    }

    @Test
    void copiesChangeOneValue() {
        SlowStart ramp = SlowStart.DEMO.withWindow(Duration.ofSeconds(5)).withAggression(3).withMinWeightShare(0.5);

        assertThat(ramp).isEqualTo(new SlowStart(Duration.ofSeconds(5), 3, 0.5));
    }

    @Test
    void badValuesNameTheSettingAndTheValue() {
        assertThatThrownBy(() -> new SlowStart(null, 1, 0.1)).isInstanceOf(NullPointerException.class)
                .hasMessage("window");
        assertThatThrownBy(() -> new SlowStart(Duration.ofSeconds(-1), 1, 0.1))
                .hasMessage("slowStartWindow must be >= 0, was PT-1S");
        assertThatThrownBy(() -> new SlowStart(Duration.ofSeconds(1), 0, 0.1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("slowStartAggression");
        assertThatThrownBy(() -> new SlowStart(Duration.ofSeconds(1), Double.NaN, 0.1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("slowStartAggression");
        assertThatThrownBy(() -> new SlowStart(Duration.ofSeconds(1), 1, 0))
                .hasMessage("slowStartMinWeightShare must be in (0, 1], was 0.0");
        assertThatThrownBy(() -> new SlowStart(Duration.ofSeconds(1), 1, 1.5))
                .hasMessage("slowStartMinWeightShare must be in (0, 1], was 1.5");
        assertThat(new SlowStart(Duration.ZERO, 1, 1).minWeightShare()).isEqualTo(1.0);
    }
}
