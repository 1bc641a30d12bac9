package io.github.agentlb.core.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Full-jitter exponential backoff (Envoy's retry back-off intervals): the ceilings, golden waits for
 * two seeds, the spread of the draws, and the checks of its fields.
 */
class RetryBackoffTest {

    private static final long MS = 1_000_000L;

    @Test
    void theCeilingDoublesFromTheBaseIntervalUpToTheMaxInterval() {
        RetryBackoff envoy = RetryBackoff.ENVOY;
        assertThat(envoy.ceilingNanos(1)).isEqualTo(25 * MS);
        assertThat(envoy.ceilingNanos(2)).isEqualTo(50 * MS);
        assertThat(envoy.ceilingNanos(3)).isEqualTo(100 * MS);
        assertThat(envoy.ceilingNanos(4)).isEqualTo(200 * MS);
        assertThat(envoy.ceilingNanos(5)).isEqualTo(250 * MS);
        assertThat(envoy.ceilingNanos(64)).as("no overflow").isEqualTo(250 * MS);
        assertThat(envoy.ceilingNanos(Integer.MAX_VALUE)).isEqualTo(250 * MS);
        RetryBackoff wide = envoy.withMaxInterval(Duration.ofDays(365 * 200));
        assertThat(wide.ceilingNanos(30)).as("25 ms x 2^29 fits").isEqualTo(25 * MS << 29);
        assertThat(wide.ceilingNanos(40)).as("25 ms x 2^39 would overflow").isEqualTo(Duration.ofDays(365 * 200).toNanos());
    }

    @Test
    void goldenWaitsForTwoSeeds() {
        RetryBackoff envoy = RetryBackoff.ENVOY;
        long[] waits = new long[6];
        for (int n = 1; n <= 6; n++) {
            waits[n - 1] = envoy.delayNanos(n, n - 1);
        }
        // SplitMix64 outputs 0..5 of seed 0x5DEECE66D, scaled to [0, ceiling): computed apart from this class.
        assertThat(waits).containsExactly(19_541_187L, 15_709_355L, 45_039_451L, 108_030_359L, 55_941_460L, 206_869_963L);
        RetryBackoff seeded = envoy.withSeed(42);
        assertThat(new long[] {seeded.delayNanos(1, 0), seeded.delayNanos(1, 1), seeded.delayNanos(1, 2),
                seeded.delayNanos(1, 3), seeded.delayNanos(1, 4)})
                .containsExactly(18_539_121L, 3_997_759L, 6_965_028L, 8_604_767L, 950_754L);
    }

    @Test
    void waitsSpreadEvenlyBelowTheCeiling() {
        RetryBackoff envoy = RetryBackoff.ENVOY;
        int draws = 100_000;
        int[] tenths = new int[10];
        double sum = 0;
        for (int i = 0; i < draws; i++) {
            long wait = envoy.delayNanos(2, i);
            assertThat(wait).isBetween(0L, 50 * MS - 1);
            tenths[(int) (wait / (5 * MS))]++;
            sum += wait;
        }
        assertThat(sum / draws / MS).as("mean, ms").isCloseTo(25.0, org.assertj.core.data.Offset.offset(0.25));
        for (int count : tenths) {
            assertThat(count).as("each tenth of [0, 50 ms) holds 10%% +- 0.5%%").isBetween(9_500, 10_500);
        }
    }

    @Test
    void offWaitsNothingAndIsTheDefault() {
        assertThat(RetryBackoff.DISABLED.enabled()).isFalse();
        assertThat(RetryBackoff.DISABLED.delayNanos(3, 7)).isZero();
        assertThat(RetryBackoff.DISABLED.withBaseInterval(Duration.ofMillis(10)).enabled()).as("an interval turns it on").isTrue();
        assertThat(RetryBackoff.DISABLED.baseInterval()).isEqualTo(Duration.ofMillis(25));
        assertThat(RetryBackoff.DISABLED.maxInterval()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void badFieldsAreRefusedNamingFieldAndValue() {
        assertThatThrownBy(() -> RetryBackoff.ENVOY.withBaseInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("retryBackoffBaseInterval must be > 0, was PT0S");
        assertThatThrownBy(() -> RetryBackoff.ENVOY.withMaxInterval(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("retryBackoffMaxInterval must be > 0, was PT-0.001S");
        assertThatThrownBy(() -> RetryBackoff.ENVOY.withMaxInterval(Duration.ofMillis(10)).checkRelation())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBackoffMaxInterval must be >= retryBackoffBaseInterval (PT0.025S), was PT0.01S");
        assertThatThrownBy(() -> RetryBackoff.ENVOY.ceilingNanos(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("n must be >= 1, was 0");
    }
}
