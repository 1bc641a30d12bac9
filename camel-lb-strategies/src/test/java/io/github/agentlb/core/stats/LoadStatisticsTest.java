package io.github.agentlb.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Summary statistics of a load distribution, with values worked out by hand. */
class LoadStatisticsTest {

    @Test
    void statisticsOfFourAgents() {
        // mean 5; deviations -3, -1, 1, 3; squares 9 + 1 + 1 + 9 = 20; variance 20 / 4 = 5
        LoadStatistics s = LoadStatistics.of(2, 4, 6, 8);
        assertThat(s.count()).isEqualTo(4);
        assertThat(s.sum()).isEqualTo(20.0);
        assertThat(s.min()).isEqualTo(2.0);
        assertThat(s.max()).isEqualTo(8.0);
        assertThat(s.mean()).isEqualTo(5.0);
        assertThat(s.variance()).isEqualTo(5.0);
        assertThat(s.standardDeviation()).isEqualTo(Math.sqrt(5.0));
        assertThat(s.coefficientOfVariation()).isCloseTo(Math.sqrt(5.0) / 5.0, within(1e-15));
        assertThat(s.spread()).isEqualTo(6.0);
        assertThat(s.maxOverMean()).isEqualTo(1.6);
    }

    @Test
    void varianceOfAnUnevenPairIsTheSquaredHalfDistance() {
        // mean 4; deviations -3 and 3; variance (9 + 9) / 2 = 9
        LoadStatistics s = LoadStatistics.of(1, 7);
        assertThat(s.variance()).isEqualTo(9.0);
        assertThat(s.standardDeviation()).isEqualTo(3.0);
        assertThat(s.coefficientOfVariation()).isEqualTo(0.75);
        assertThat(s.spread()).isEqualTo(6.0);
        assertThat(s.maxOverMean()).isEqualTo(1.75);
    }

    @Test
    void evenLoadHasNoSpreadAndMaxOverMeanOne() {
        LoadStatistics s = LoadStatistics.of(List.of(3, 3L, 3.0));
        assertThat(s.spread()).isEqualTo(0.0);
        assertThat(s.variance()).isEqualTo(0.0);
        assertThat(s.coefficientOfVariation()).isEqualTo(0.0);
        assertThat(s.maxOverMean()).isEqualTo(1.0);
    }

    @Test
    void negativeValuesGiveASpreadOfTheirDistance() {
        LoadStatistics s = LoadStatistics.of(-2, 3);
        assertThat(s.spread()).isEqualTo(5.0);
        assertThat(s.mean()).isEqualTo(0.5);
        assertThat(s.maxOverMean()).isEqualTo(6.0);
    }

    @Test
    void zeroMeanGivesZeroRatios() {
        LoadStatistics idle = LoadStatistics.of(0, 0);
        assertThat(idle.maxOverMean()).isEqualTo(0.0);
        assertThat(idle.coefficientOfVariation()).isEqualTo(0.0);
        LoadStatistics balanced = LoadStatistics.of(-1, 1);
        assertThat(balanced.maxOverMean()).isEqualTo(0.0);
        assertThat(balanced.coefficientOfVariation()).isEqualTo(0.0);
        assertThat(balanced.spread()).isEqualTo(2.0);
        assertThat(balanced.variance()).isEqualTo(1.0);
    }

    @Test
    void emptyOrNonFiniteValuesAreRejected() {
        assertThatThrownBy(() -> LoadStatistics.of()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LoadStatistics.of((double[]) null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LoadStatistics.of(1, Double.NaN)).hasMessage("values must be finite, was NaN");
        assertThatThrownBy(() -> LoadStatistics.of(Double.POSITIVE_INFINITY))
                .hasMessage("values must be finite, was Infinity");
    }
}
