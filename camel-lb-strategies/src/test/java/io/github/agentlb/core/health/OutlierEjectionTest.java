package io.github.agentlb.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OutlierEjectionTest {

    @Test
    void aShareOfZeroDisablesEjectionAndTheDetectorThenNeverEjects() {
        OutlierEjection none = OutlierEjection.custom().maxEjectedShare(0).build();
        assertThat(none.isEnabled()).isFalse();
        assertThat(OutlierEjection.disabled().isEnabled()).isFalse();
        assertThat(OutlierEjection.custom().maxEjectedShare(Double.MIN_VALUE).build().isEnabled()).isTrue();
        assertThat(OutlierEjection.ofDefaults().maxEjectedShare()).isEqualTo(1.0);

        OutlierDetector detector = new OutlierDetector(none, () -> 0L);
        detector.setAgents(List.of("A1", "A2"));
        assertThat(detector.onFailure("A1")).isNull();
        assertThat(detector.isEjected("A1")).isFalse();
        assertThat(detector.config()).isSameAs(none);
    }

    @Test
    void equalByValueWithTheSameHashCodeAndText() {
        OutlierEjection one = OutlierEjection.custom().consecutiveFailures(3).baseEjectionTime(Duration.ofSeconds(2))
                .maxEjectionTime(Duration.ofSeconds(60)).maxEjectedShare(0.5).build();

        assertThat(one.toBuilder().build()).isEqualTo(one).hasSameHashCodeAs(one).hasToString(one.toString());
        assertThat(one).isNotEqualTo(OutlierEjection.ofDefaults()).isNotEqualTo("x");
        assertThat(one.toString()).contains("consecutiveFailures=3").contains("PT2S").contains("PT1M").contains("0.5");
        assertThat(one.toBuilder().consecutiveFailures(4).build()).isNotEqualTo(one);
        assertThat(one.toBuilder().baseEjectionTime(Duration.ofSeconds(3)).build()).isNotEqualTo(one);
        assertThat(one.toBuilder().maxEjectionTime(Duration.ofSeconds(61)).build()).isNotEqualTo(one);
        assertThat(one.toBuilder().maxEjectedShare(0.25).build()).isNotEqualTo(one);
    }

    @Test
    void resettingTheAgentsKeepsCountingAnEjectedSurvivor() {
        AtomicLong clock = new AtomicLong();
        OutlierDetector detector = new OutlierDetector(OutlierEjection.ofDefaults(), clock::get);
        detector.setAgents(List.of("A1", "A2", "A3"));
        detector.onFailure("A1");

        detector.setAgents(List.of("A1", "A2", "A3"));

        assertThat(detector.hasEjections()).isTrue();
        assertThat(detector.isEjected("A1")).isTrue();
        assertThat(detector.isEjected("A2")).isFalse();
        assertThat(detector.isEjected("unknown")).isFalse();
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(detector.admit("A1")).isEqualTo(OutlierDetector.Admission.TRIAL);
        assertThat(detector.onSuccess("A1")).isTrue();
        assertThat(detector.hasEjections()).isFalse();
        assertThat(detector.onSuccess("A1")).isFalse();
        assertThat(detector.onSuccess("unknown")).isFalse();
    }

    @Test
    void theCanonicalConstructorChecksAsTheSettersAndBuildDo() {
        assertThatThrownBy(() -> new OutlierEjection(0, 5, Duration.ofSeconds(10), Duration.ofSeconds(300), 1.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("consecutiveFailures must be >= 1, was 0");
        assertThatThrownBy(() -> new OutlierEjection(1, 5, Duration.ofSeconds(10), Duration.ofSeconds(5), 1.0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT10S), was PT5S");
        assertThat(new OutlierEjection(1, 5, Duration.ofSeconds(10), Duration.ofSeconds(10), 1.0).maxEjectionTime())
                .isEqualTo(Duration.ofSeconds(10));
    }
}
