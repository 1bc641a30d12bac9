package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DelayChooserTest {

    private static List<Integer> baseDelays(DelayChooser chooser, int n) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(chooser.nextBaseDelayMs());
        }
        return out;
    }

    @Test
    void seededSequenceIsFixed() {
        // Golden values: java.util.Random(42).nextInt(101) + 50; the algorithm is specified.
        assertThat(baseDelays(new DelayChooser(50, 150, 1.0, 42), 6))
                .containsExactly(65, 109, 54, 139, 61, 106);
    }

    @Test
    void sameSeedSameSequenceOtherSeedOtherSequence() {
        List<Integer> a = baseDelays(new DelayChooser(50, 150, 1.0, 7), 50);
        assertThat(baseDelays(new DelayChooser(50, 150, 1.0, 7), 50)).isEqualTo(a);
        assertThat(baseDelays(new DelayChooser(50, 150, 1.0, 8), 50)).isNotEqualTo(a);
    }

    @Test
    void delaysStayWithinBoundsAndReachBoth() {
        List<Integer> d = baseDelays(new DelayChooser(10, 12, 1.0, 1), 300);
        assertThat(d).allSatisfy(v -> assertThat(v).isBetween(10, 12));
        assertThat(d).contains(10, 11, 12);
    }

    @Test
    void speedDividesTheDelay() {
        DelayChooser full = new DelayChooser(50, 150, 1.0, 42);
        DelayChooser half = new DelayChooser(50, 150, 0.5, 42);
        DelayChooser fast = new DelayChooser(50, 150, 4.0, 42);
        assertThat(full.nextDelayNanos()).isEqualTo(65_000_000L);
        assertThat(half.nextDelayNanos()).isEqualTo(130_000_000L);
        assertThat(fast.nextDelayNanos()).isEqualTo(16_250_000L);
    }

    @Test
    void zeroDelay() {
        DelayChooser zero = new DelayChooser(0, 0, 1.0, 3);
        assertThat(zero.nextDelayNanos()).isZero();
        assertThat(zero.nextDelayNanos()).isZero();
    }

    @Test
    void usesTheConfigSeed() {
        AgentConfig config = AgentConfig.custom().agentId("A9").seed(42).build();
        assertThat(baseDelays(DelayChooser.of(config), 3)).containsExactly(65, 109, 54);
    }

    @Test
    void rejectsBadBounds() {
        assertThatThrownBy(() -> new DelayChooser(5, 4, 1.0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delayMinMs must be <= delayMaxMs (4), was 5");
        assertThatThrownBy(() -> new DelayChooser(0, 4, -1.0, 0))
                .hasMessage("speed must be > 0 and finite, was -1.0");
    }
}
