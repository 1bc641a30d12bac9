package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UtilizationSeriesTest {

    private static final long MS = 1_000_000;

    private static UtilizationSeries series(long[] atMs, double[] values) {
        UtilizationSeries s = new UtilizationSeries();
        for (int i = 0; i < atMs.length; i++) {
            s.add(atMs[i] * MS, values[i]);
        }
        return s;
    }

    @Test
    void evenlySpacedSamplesAverageToTheMeanOfAllButTheLast() {
        // each sample holds for 100 ms until the next: (0.5 + 1.0 + 1.5) * 100 / 300
        UtilizationSeries s = series(new long[] {0, 100, 200, 300}, new double[] {0.5, 1.0, 1.5, 9.0});

        assertThat(s.samples()).isEqualTo(4);
        assertThat(s.timeAverage()).isEqualTo(1.0);
    }

    @Test
    void aLateSampleWeighsByTheTimeItHeld() {
        // 0.2 for 100 ms, 0.8 for 300 ms (the sampler ran late), 0.4 for 100 ms: (20 + 240 + 40) / 500
        UtilizationSeries s = series(new long[] {0, 100, 400, 500}, new double[] {0.2, 0.8, 0.4, 0.0});

        assertThat(s.timeAverage()).isCloseTo(0.6, offset(1e-12));
    }

    @Test
    void fewerThanTwoInstantsGiveThePlainMean() {
        assertThat(new UtilizationSeries().timeAverage()).isZero();
        assertThat(series(new long[] {7}, new double[] {0.3}).timeAverage()).isEqualTo(0.3);
        assertThat(series(new long[] {7, 7}, new double[] {0.2, 0.6}).timeAverage()).isCloseTo(0.4, offset(1e-12));
    }

    @Test
    void rejectsSamplesOutOfOrderOrNotFinite() {
        UtilizationSeries s = series(new long[] {100}, new double[] {0.5});

        assertThatThrownBy(() -> s.add(50 * MS, 0.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nanos must not go back");
        assertThatThrownBy(() -> s.add(200 * MS, Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("utilization must be finite and >= 0, was NaN");
        assertThatThrownBy(() -> s.add(200 * MS, -0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(s.samples()).isEqualTo(1);
    }

    @Test
    void summaryGivesEachAgentsAverageAndMaxOverMean() {
        Map<String, UtilizationSeries> byAgent = new LinkedHashMap<>();
        long[] at = {0, 100, 200, 300, 400};
        byAgent.put("A3", series(at, new double[] {1.0, 1.5, 1.0, 1.5, 0}));          // 1.25
        byAgent.put("A1", series(at, new double[] {0.5, 0.5, 0.5, 0.5, 0}));          // 0.5
        byAgent.put("A2", series(new long[] {0, 200, 400}, new double[] {0.25, 0.75, 0})); // 0.5

        UtilizationSeries.Summary summary = UtilizationSeries.summary(byAgent);

        assertThat(summary.byAgent()).containsExactly(Map.entry("A1", 0.5), Map.entry("A2", 0.5), Map.entry("A3", 1.25));
        // mean 0.75, max 1.25
        assertThat(summary.maxOverMean()).isCloseTo(1.25 / 0.75, offset(1e-12));
        assertThat(summary.samples()).isEqualTo(3);
    }

    @Test
    void idleAgentsHaveMaxOverMeanZeroNotNaN() {
        UtilizationSeries.Summary idle = UtilizationSeries.summary(Map.of("A1", series(new long[] {0, 100}, new double[] {0, 0})));

        assertThat(idle.maxOverMean()).isZero();
        assertThatThrownBy(() -> UtilizationSeries.summary(Map.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
