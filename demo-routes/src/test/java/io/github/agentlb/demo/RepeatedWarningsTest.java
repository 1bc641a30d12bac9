package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link RepeatedWarnings} on an injected clock: exact. */
class RepeatedWarningsTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final RepeatedWarnings warnings = new RepeatedWarnings(now::get);

    @Test
    void theFirstOfAReasonIsAWarningItsRepeatsWithinTheWindowAreNot() {
        assertThat(warnings.admit("503 A1 refused")).isEqualTo("");
        for (int i = 0; i < 299; i++) {
            now.addAndGet(Duration.ofMillis(30).toNanos());
            assertThat(warnings.admit("503 A1 refused")).as("repeat %d", i).isNull();
        }
    }

    @Test
    void theFirstAfterTheWindowIsAWarningCountingTheRepeatsSinceTheLast() {
        warnings.admit("503 A1 refused");
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        warnings.admit("503 A1 refused");
        warnings.admit("503 A1 refused");
        now.addAndGet(RepeatedWarnings.WINDOW.toNanos() - Duration.ofSeconds(1).toNanos() - 1);
        assertThat(warnings.admit("503 A1 refused")).as("1 ns before the window ends").isNull();
        now.addAndGet(1);

        assertThat(warnings.admit("503 A1 refused")).isEqualTo(" (and 3 more like it since, at DEBUG)");
        assertThat(warnings.admit("503 A1 refused")).as("a new window").isNull();
        now.addAndGet(RepeatedWarnings.WINDOW.toNanos());
        assertThat(warnings.admit("503 A1 refused")).isEqualTo(" (and 1 more like it since, at DEBUG)");
        now.addAndGet(RepeatedWarnings.WINDOW.toNanos());
        assertThat(warnings.admit("503 A1 refused")).as("nothing repeated since").isEqualTo("");
    }

    @Test
    void eachDistinctReasonHasItsFirstWarning() {
        assertThat(warnings.admit("503 A1 refused")).isEqualTo("");
        assertThat(warnings.admit("502 A2 timed out")).isEqualTo("");
        assertThat(warnings.admit("503 A1 refused")).isNull();
        assertThat(warnings.admit("502 A2 timed out")).isNull();
        assertThat(warnings.admit("502 A3 timed out")).isEqualTo("");
    }

    @Test
    void reasonsWhoseWindowEndedAreForgottenSoTheTableStaysBounded() {
        for (int i = 0; i < 10 * RepeatedWarnings.MAX_REASONS; i++) {
            assertThat(warnings.admit("reason " + i)).isEqualTo("");
            now.addAndGet(RepeatedWarnings.WINDOW.toNanos());
        }
        assertThat(warnings.reasons()).isLessThanOrEqualTo(RepeatedWarnings.MAX_REASONS);
    }
}
