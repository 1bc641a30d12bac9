package io.github.agentlb.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void readsTheShortFormsIsoAndZero() {
        assertThat(Durations.parse("f", "250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(Durations.parse("f", "10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("f", "2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("f", "1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("f", "PT1.5S")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("f", " PT10S ")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("f", "0")).isZero();
        assertThat(Durations.parse("f", "0s")).isZero();
    }

    @Test
    void refusesAnythingElseNamingFieldAndValue() {
        for (String bad : new String[] {"", " ", "abc", "-5s", "5 s", "PT-1S", "10", "1d", "5S", "1.5s"}) {
            assertThatThrownBy(() -> Durations.parse("failoverDeadline", bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("failoverDeadline must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was '" + bad + "'");
        }
        assertThatThrownBy(() -> Durations.parse("maxRest", null)).hasMessage(
                "maxRest must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was 'null'");
        assertThat(Durations.read("abc")).isEmpty();
    }

    @Test
    void shortFormsTakeAsManyDigitsAsFitAndSayWhenTooLong() {
        assertThat(Durations.parse("f", "1000000000000ms")).isEqualTo(Duration.ofMillis(1_000_000_000_000L));
        assertThat(Durations.parse("f", "9223372036854ms")).isEqualTo(Duration.ofMillis(9_223_372_036_854L));
        assertThat(Durations.parse("f", "0000000000000000000000000000010s")).isEqualTo(Duration.ofSeconds(10));
        for (String tooLong : new String[] {"9223372036855ms", "99999999999999999999h", "9223372036854775808s",
                "9999999999999999999999999999999999s", "PT9999999999999999999S"}) {
            assertThatThrownBy(() -> Durations.parse("queueTimeout", tooLong)).as(tooLong)
                    .hasMessageStartingWith("queueTimeout must be at most PT2562047H47M16.854775807S");
        }
    }

    @Test
    void refusesATimeNoClockCountsInNanoseconds() {
        for (String tooLong : new String[] {"9999999h", "PT3000000H", "99999999999s", "PT2562047H47M16.854775808S"}) {
            assertThatThrownBy(() -> Durations.parse("queueTimeout", tooLong)).as(tooLong)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("queueTimeout must be at most PT2562047H47M16.854775807S (Long.MAX_VALUE ns, about 292 years),"
                            + " was '" + tooLong + "'");
        }
        assertThat(Durations.parse("queueTimeout", "PT2562047H47M16.854775807S").toNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(Durations.parse("queueTimeout", "2562047h").toNanos()).isPositive();
    }
}
