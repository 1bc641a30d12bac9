package io.github.agentlb.core.hedge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hedge delay's exact values: nearest-rank percentiles per agent, the lowest wins, the fixed delay until known. */
class HedgeDelayTest {

    private static final HedgePolicy P97 = HedgePolicy.DISABLED.withEnabled(true);
    private static final long MS = 1_000_000L;

    @Test
    void theFixedDelayUntilAnAgentHasItsMinimumOfTimes() {
        HedgeDelay delay = new HedgeDelay();
        for (int i = 1; i < HedgeDelay.MIN_SAMPLES; i++) {
            delay.record("a", i * MS, 97);
        }
        assertThat(delay.delayNanos(P97)).isEqualTo(Duration.ofSeconds(1).toNanos());
        delay.record("a", 10 * MS, 97);
        assertThat(delay.delayNanos(P97)).as("p97 of 1..10 ms, nearest rank: the 10th").isEqualTo(10 * MS);
        assertThat(delay.delayNanos(P97.withPercentile(0))).as("percentile 0: always the fixed delay")
                .isEqualTo(Duration.ofSeconds(1).toNanos());
    }

    @Test
    void theLowestAgentPercentileSoASlowAgentCannotRaiseIt() {
        HedgeDelay delay = new HedgeDelay();
        for (int i = 1; i <= 99; i++) {
            delay.record("fast", i * MS, 97);
            delay.record("slow", 5 * i * MS, 97);
        }
        // Computed at the 10th time, then every 20th: the 90th is the last here (p97 of 90 is the 88th).
        assertThat(delay.delayNanos(P97)).as("fast's p97 of 1..90 ms").isEqualTo(88 * MS);
        assertThat(delay.delayNanos(P97.withPercentile(50))).as("recomputed at another percentile, all 99 times")
                .isEqualTo(50 * MS);
        delay.retain(List.of("slow"));
        assertThat(delay.delayNanos(P97)).as("fast gone: slow's p97 of its 99 times").isEqualTo(485 * MS);
    }

    @Test
    void theWindowKeepsTheLastThousandTimes() {
        HedgeDelay delay = new HedgeDelay();
        for (int i = 0; i < HedgeDelay.WINDOW; i++) {
            delay.record("a", 1_000 * MS, 97);
        }
        for (int i = 0; i < HedgeDelay.WINDOW; i++) {
            delay.record("a", 100 * MS, 97);
        }
        assertThat(delay.delayNanos(P97)).isEqualTo(100 * MS);
    }

    @Test
    void badValuesNameFieldAndValue() {
        assertThatThrownBy(() -> P97.withDelay(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hedgeDelay must be > 0, was PT-0.001S");
        assertThatThrownBy(() -> P97.withPercentile(Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hedgePercentile must be 0 or in (0, 100), was NaN");
        assertThatThrownBy(() -> P97.withMaxHedges(11)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxHedges must be in 1..10, was 11");
        assertThat(HedgePolicy.DISABLED.toString()).isEqualTo("HedgePolicy[off]");
        assertThat(P97.toString()).isEqualTo("HedgePolicy[after p97.0 of first-byte times (1000 ms until known), at most 1]");
    }
}
