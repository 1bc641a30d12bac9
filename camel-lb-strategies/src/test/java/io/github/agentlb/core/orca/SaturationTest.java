package io.github.agentlb.core.orca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SaturationTest {

    private static final long MS = 1_000_000L;

    @Test
    void defaultsAreTheGatewayApiInferenceExtensions() {
        Saturation defaults = Saturation.ofDefaults();
        assertThat(defaults.enabled()).isTrue();
        assertThat(defaults.queueDepth()).isEqualTo(5);
        assertThat(defaults.kvCacheUsage()).isEqualTo(0.8);
        assertThat(defaults.staleness()).isEqualTo(Duration.ofMillis(200));
        assertThat(Saturation.disabled().enabled()).isFalse();
        assertThat(Saturation.disabled().staleness()).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void aboveEitherThresholdIsSaturatedAtTheThresholdIsNot() {
        Saturation gate = Saturation.ofDefaults();
        assertThat(gate.isSaturated(LoadReports.parse("TEXT named_metrics.num_requests_waiting=5"), 0)).isFalse();
        assertThat(gate.isSaturated(LoadReports.parse("TEXT named_metrics.num_requests_waiting=6"), 0)).isTrue();
        assertThat(gate.isSaturated(LoadReports.parse("TEXT named_metrics.kv_cache_usage_perc=0.8"), 0)).isFalse();
        assertThat(gate.isSaturated(LoadReports.parse("TEXT named_metrics.kv_cache_usage_perc=0.81"), 0)).isTrue();
        assertThat(gate.isSaturated(LoadReports.parse("TEXT named_metrics.kv_cache_utilization=0.98"), 0)).isTrue();
        assertThat(gate.isSaturated(LoadReports.parse("TEXT cpu_utilization=1.5"), 0)).isFalse();
        assertThat(gate.isSaturated(LoadReport.EMPTY, 0)).isFalse();
        assertThat(gate.isSaturated(null, 0)).isFalse();
    }

    @Test
    void aStaleReportSaysNothing() {
        LoadReport full = LoadReports.parse("TEXT named_metrics.kv_cache_usage_perc=0.95");
        Saturation gate = Saturation.ofDefaults();
        assertThat(gate.isSaturated(full, 200 * MS)).isTrue();
        assertThat(gate.isSaturated(full, 200 * MS + 1)).isFalse();
        assertThat(Saturation.disabled().isSaturated(full, 0)).isFalse();
    }

    @Test
    void builderChecksEachValueNamingFieldAndValue() {
        assertThatThrownBy(() -> Saturation.custom().queueDepth(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("queueDepth must be >= 0, was -1");
        assertThatThrownBy(() -> Saturation.custom().kvCacheUsage(1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("kvCacheUsage must be in 0..1, was 1.5");
        assertThatThrownBy(() -> Saturation.custom().kvCacheUsage(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("kvCacheUsage must be in 0..1, was NaN");
        assertThatThrownBy(() -> Saturation.custom().staleness(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("staleness must be > 0, was PT0S");
        assertThatThrownBy(() -> new Saturation(true, 5, -0.1, Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("kvCacheUsage must be in 0..1, was -0.1");
        Saturation custom = Saturation.custom().queueDepth(0).kvCacheUsage(0.5).staleness(Duration.ofSeconds(1)).build();
        assertThat(custom.toBuilder().build()).isEqualTo(custom);
        assertThat(custom.isSaturated(LoadReports.parse("TEXT named_metrics.num_requests_waiting=1"), 999 * MS)).isTrue();
    }
}
