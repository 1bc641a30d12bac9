package io.github.agentlb.core.orca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Ranges, equality, hashing and printing of one load report. */
class LoadReportTest {

    private static LoadReport full() {
        Map<String, Double> named = new LinkedHashMap<>();
        named.put("kv_cache_usage_perc", 0.4);
        named.put("num_requests_waiting", 2.0);
        return new LoadReport(0.3, 0.8, 0.5, 10.0, 1.0, named);
    }

    @Test
    void reportsWithTheSameFieldsAreEqualAndHashAlike() {
        LoadReport a = full();
        LoadReport b = full();
        assertThat(a).isEqualTo(b).isNotSameAs(b);
        assertThat(a.hashCode()).isEqualTo(b.hashCode());
        assertThat(LoadReport.EMPTY).isEqualTo(new LoadReport(Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Map.of()));
    }

    @Test
    void reportsDifferingInAnyOneFieldAreUnequalAndHashApart() {
        LoadReport base = full();
        Map<String, Double> otherNamed = new LinkedHashMap<>(base.namedMetrics());
        otherNamed.put("num_requests_waiting", 3.0);
        LoadReport[] others = {
            new LoadReport(0.31, 0.8, 0.5, 10.0, 1.0, base.namedMetrics()),
            new LoadReport(0.3, 0.81, 0.5, 10.0, 1.0, base.namedMetrics()),
            new LoadReport(0.3, 0.8, 0.51, 10.0, 1.0, base.namedMetrics()),
            new LoadReport(0.3, 0.8, 0.5, 10.5, 1.0, base.namedMetrics()),
            new LoadReport(0.3, 0.8, 0.5, 10.0, 1.5, base.namedMetrics()),
            new LoadReport(0.3, 0.8, 0.5, 10.0, 1.0, otherNamed),
            new LoadReport(0.3, 0.8, 0.5, 10.0, 1.0, Map.of()),
            LoadReport.EMPTY,
        };
        for (LoadReport other : others) {
            assertThat(base).isNotEqualTo(other);
            assertThat(other).isNotEqualTo(base);
            assertThat(base.hashCode()).isNotEqualTo(other.hashCode());
        }
        assertThat(base).isNotEqualTo("LoadReport").isNotEqualTo(null);
    }

    @Test
    void hashCodeCombinesTheFieldsInOrderWithThePrimeThirtyOne() {
        LoadReport report = full();
        int expected = Double.hashCode(0.3);
        expected = 31 * expected + Double.hashCode(0.8);
        expected = 31 * expected + Double.hashCode(0.5);
        expected = 31 * expected + Double.hashCode(10.0);
        expected = 31 * expected + Double.hashCode(1.0);
        expected = 31 * expected + report.namedMetrics().hashCode();
        assertThat(report.hashCode()).isEqualTo(expected);
        assertThat(LoadReport.EMPTY.hashCode()).isNotZero();
    }

    @Test
    void toStringPrintsEveryReportedFieldInProtoOrderThenTheNamedMetrics() {
        assertThat(full()).hasToString("LoadReport{cpu_utilization=0.3, mem_utilization=0.8, "
                + "application_utilization=0.5, rps_fractional=10.0, eps=1.0, "
                + "named_metrics.kv_cache_usage_perc=0.4, named_metrics.num_requests_waiting=2.0}");
        assertThat(new LoadReport(Double.NaN, 0.8, Double.NaN, Double.NaN, 2.0, Map.of()))
                .hasToString("LoadReport{mem_utilization=0.8, eps=2.0}");
        assertThat(new LoadReport(Double.NaN, Double.NaN, 0.5, 3.0, Double.NaN, Map.of()))
                .hasToString("LoadReport{application_utilization=0.5, rps_fractional=3.0}");
    }

    @Test
    void namedMetricsAreACopyThatCannotBeChanged() {
        Map<String, Double> named = new LinkedHashMap<>();
        named.put("a", 1.0);
        LoadReport report = new LoadReport(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, named);
        named.put("b", 2.0);
        assertThat(report.namedMetrics()).containsExactly(Map.entry("a", 1.0));
        assertThat(report.isEmpty()).isFalse();
        assertThat(report.namedMetric("b")).isNaN();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> report.namedMetrics().put("c", 3.0))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "'cpu_utilization must be NaN (not reported) or finite and >= 0, was -0.1', -0.1, NaN, NaN, NaN, NaN",
        "'cpu_utilization must be NaN (not reported) or finite and >= 0, was Infinity', Infinity, NaN, NaN, NaN, NaN",
        "'mem_utilization must be NaN (not reported) or in 0..1, was 1.01', NaN, 1.01, NaN, NaN, NaN",
        "'application_utilization must be NaN (not reported) or finite and >= 0, was -1.0', NaN, NaN, -1, NaN, NaN",
        "'rps_fractional must be NaN (not reported) or finite and >= 0, was -2.0', NaN, NaN, NaN, -2, NaN",
        "'eps must be NaN (not reported) or finite and >= 0, was -Infinity', NaN, NaN, NaN, NaN, -Infinity",
    })
    void aFieldOutOfItsRangeIsRefusedNamingItAndTheValue(String message, double cpu, double mem, double application,
            double rps, double eps) {
        assertThatThrownBy(() -> new LoadReport(cpu, mem, application, rps, eps, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void theEndsOfEachRangeAreAccepted() {
        LoadReport ends = new LoadReport(0, 1, 0, 0, 0, Map.of("kv_cache_usage_perc", 0.0));
        assertThat(ends.memUtilization()).isEqualTo(1);
        assertThat(new LoadReport(0, 0, 5, Double.MAX_VALUE, 0, Map.of()).applicationUtilization()).isEqualTo(5);
    }

    @Test
    void aNamedMetricMustHaveANameAndAFiniteValueAtLeastZeroNotNaN() {
        assertThatThrownBy(() -> new LoadReport(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Map.of("", 1.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a named metric's name must not be empty, was \"\"");
        assertThatThrownBy(() -> new LoadReport(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Map.of("queue", -1.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("named_metrics.queue must be finite and >= 0, was -1.0");
        assertThatThrownBy(() -> new LoadReport(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Map.of("queue", Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("named_metrics.queue must be finite and >= 0, was NaN");
    }

    @ParameterizedTest(name = "running {0}, waiting {1}, own {2}: {3} beyond")
    @CsvSource({
            // vLLM's running count reported: the agent's requests less this balancer's own.
            "4, 2, 3, 3.0",
            "4, , 3, 1.0",
            "2, 0, 5, 0.0",   // never negative (own requests the agent has not seen yet, or ended there)
            // Without it, the queue alone, as other balancers put it there; nothing when neither was reported.
            ", 2, 3, 2.0",
            ", , 3, 0.0"})
    void requestsBeyondABalancersOwnCountTheOtherBalancers(Double running, Double waiting, int own, double beyond) {
        Map<String, Double> metrics = new LinkedHashMap<>();
        if (running != null) {
            metrics.put(LoadReport.NUM_REQUESTS_RUNNING, running);
        }
        if (waiting != null) {
            metrics.put(LoadReport.NUM_REQUESTS_WAITING, waiting);
        }
        LoadReport report = new LoadReport(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, metrics);
        assertThat(report.requestsBeyond(own)).isEqualTo(beyond);
    }
}
