package io.github.agentlb.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each check at its boundary: the value on the limit passes and is returned, the next one fails naming field and value. */
class CheckTest {

    @Test
    void atLeastAcceptsTheMinimumAndRejectsOneBelow() {
        assertThat(Check.atLeast("n", 3, 3)).isEqualTo(3);
        assertThat(Check.atLeast("n", 4, 3)).isEqualTo(4);
        assertThatThrownBy(() -> Check.atLeast("n", 2, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("n must be >= 3, was 2");
    }

    @Test
    void atLeastOfALongAcceptsTheMinimumAndRejectsOneBelow() {
        assertThat(Check.atLeast("ms", 0L, 0L)).isZero();
        assertThat(Check.atLeast("ms", 5_000_000_000L, 1L)).isEqualTo(5_000_000_000L);
        assertThatThrownBy(() -> Check.atLeast("ms", -1L, 0L))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ms must be >= 0, was -1");
        assertThatThrownBy(() -> Check.atLeast("ms", Long.MIN_VALUE, 1L))
                .hasMessage("ms must be >= 1, was -9223372036854775808");
    }

    @Test
    void inRangeAcceptsBothEndsAndRejectsOneOutsideEither() {
        assertThat(Check.inRange("port", 0, 0, 65535)).isZero();
        assertThat(Check.inRange("port", 65535, 0, 65535)).isEqualTo(65535);
        assertThat(Check.inRange("port", 8000, 0, 65535)).isEqualTo(8000);
        assertThatThrownBy(() -> Check.inRange("port", -1, 0, 65535))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("port must be in 0..65535, was -1");
        assertThatThrownBy(() -> Check.inRange("port", 65536, 0, 65535)).hasMessage("port must be in 0..65535, was 65536");
    }

    @Test
    void finitePositiveRejectsZeroNaNAndInfinity() {
        assertThat(Check.finitePositive("x", Double.MIN_VALUE)).isEqualTo(Double.MIN_VALUE);
        assertThat(Check.finitePositive("x", 2.5)).isEqualTo(2.5);
        assertThatThrownBy(() -> Check.finitePositive("x", 0.0)).hasMessage("x must be finite and > 0, was 0.0");
        assertThatThrownBy(() -> Check.finitePositive("x", -1)).hasMessage("x must be finite and > 0, was -1.0");
        assertThatThrownBy(() -> Check.finitePositive("x", Double.NaN)).hasMessage("x must be finite and > 0, was NaN");
        assertThatThrownBy(() -> Check.finitePositive("x", Double.POSITIVE_INFINITY))
                .hasMessage("x must be finite and > 0, was Infinity");
    }

    @Test
    void finiteNonNegativeAcceptsZeroAndRejectsBelowNaNAndInfinity() {
        assertThat(Check.finiteNonNegative("x", 0.0)).isZero();
        assertThat(Check.finiteNonNegative("x", 7.0)).isEqualTo(7.0);
        assertThatThrownBy(() -> Check.finiteNonNegative("x", -Double.MIN_VALUE))
                .hasMessage("x must be finite and >= 0, was -4.9E-324");
        assertThatThrownBy(() -> Check.finiteNonNegative("x", Double.NaN)).hasMessage("x must be finite and >= 0, was NaN");
        assertThatThrownBy(() -> Check.finiteNonNegative("x", Double.POSITIVE_INFINITY))
                .hasMessage("x must be finite and >= 0, was Infinity");
    }

    @Test
    void finiteAtLeastAcceptsTheMinimumAndWritesAWholeMinimumWithoutDecimals() {
        assertThat(Check.finiteAtLeast("c", 1.0, 1.0)).isEqualTo(1.0);
        assertThat(Check.finiteAtLeast("c", 1.5, 1.0)).isEqualTo(1.5);
        assertThatThrownBy(() -> Check.finiteAtLeast("c", 0.5, 1.0)).hasMessage("c must be finite and >= 1, was 0.5");
        assertThatThrownBy(() -> Check.finiteAtLeast("c", 0.5, 1.25)).hasMessage("c must be finite and >= 1.25, was 0.5");
        assertThatThrownBy(() -> Check.finiteAtLeast("c", 0.5, 1e16)).hasMessage("c must be finite and >= 1.0E16, was 0.5");
        assertThatThrownBy(() -> Check.finiteAtLeast("c", -2e15, -1e15)).hasMessage("c must be finite and >= -1.0E15, was -2.0E15");
        assertThatThrownBy(() -> Check.finiteAtLeast("c", -3, -2)).hasMessage("c must be finite and >= -2, was -3.0");
        assertThatThrownBy(() -> Check.finiteAtLeast("c", Double.NaN, 1)).hasMessage("c must be finite and >= 1, was NaN");
        assertThatThrownBy(() -> Check.finiteAtLeast("c", Double.POSITIVE_INFINITY, 1))
                .hasMessage("c must be finite and >= 1, was Infinity");
    }

    @Test
    void fractionAcceptsBothEndsAndNothingOutside() {
        assertThat(Check.fraction("f", 0.0)).isZero();
        assertThat(Check.fraction("f", 1.0)).isEqualTo(1.0);
        assertThat(Check.fraction("f", 0.5)).isEqualTo(0.5);
        assertThatThrownBy(() -> Check.fraction("f", -0.01)).hasMessage("f must be in 0..1, was -0.01");
        assertThatThrownBy(() -> Check.fraction("f", 1.01)).hasMessage("f must be in 0..1, was 1.01");
        assertThatThrownBy(() -> Check.fraction("f", Double.NaN)).hasMessage("f must be in 0..1, was NaN");
    }

    @Test
    void positiveDurationRejectsNullZeroAndNegative() {
        assertThat(Check.positive("t", Duration.ofNanos(1))).isEqualTo(Duration.ofNanos(1));
        assertThatThrownBy(() -> Check.positive("t", null)).hasMessage("t must be > 0, was null");
        assertThatThrownBy(() -> Check.positive("t", Duration.ZERO)).hasMessage("t must be > 0, was PT0S");
        assertThatThrownBy(() -> Check.positive("t", Duration.ofMillis(-1))).hasMessage("t must be > 0, was PT-0.001S");
    }

    @Test
    void notBlankRejectsNullEmptyAndWhiteSpace() {
        assertThat(Check.notBlank("id", " a ")).isEqualTo(" a ");
        assertThatThrownBy(() -> Check.notBlank("id", null)).hasMessage("id must not be blank, was 'null'");
        assertThatThrownBy(() -> Check.notBlank("id", "")).hasMessage("id must not be blank, was ''");
        assertThatThrownBy(() -> Check.notBlank("id", " \t")).hasMessage("id must not be blank, was ' \t'");
    }

    @Test
    void notNullReturnsTheValueAndRejectsNullNamingTheField() {
        Object value = new Object();
        assertThat(Check.notNull("thing", value)).isSameAs(value);
        assertThatThrownBy(() -> Check.notNull("thing", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("thing must not be null, was null");
    }
}
