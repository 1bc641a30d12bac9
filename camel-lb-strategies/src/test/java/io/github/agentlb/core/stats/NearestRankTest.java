package io.github.agentlb.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NearestRankTest {

    @Test
    void theValueOfRankCeilPercentTimesCount() {
        long[] hundred = new long[100];
        for (int i = 0; i < 100; i++) {
            hundred[i] = 100 - i; // 100..1, any order
        }
        assertThat(NearestRank.of(hundred, 100, 99)).isEqualTo(99);
        assertThat(NearestRank.of(hundred, 100, 97)).isEqualTo(97);
        assertThat(NearestRank.of(hundred, 100, 0)).isEqualTo(1);
        assertThat(NearestRank.of(hundred, 100, 100)).isEqualTo(100);
        assertThat(NearestRank.of(new long[] {20, 10, 99}, 2, 99)).as("only the first count").isEqualTo(20);
        assertThat(hundred[0]).as("the sample unchanged").isEqualTo(100);
    }

    @Test
    void aCountOutOfRangeIsRefused() {
        assertThatThrownBy(() -> NearestRank.of(new long[3], 0, 50)).hasMessage("count must be in 1..3, was 0");
        assertThatThrownBy(() -> NearestRank.of(new long[3], 4, 50)).hasMessage("count must be in 1..3, was 4");
    }
}
