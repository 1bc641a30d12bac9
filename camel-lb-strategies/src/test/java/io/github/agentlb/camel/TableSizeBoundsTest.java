package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import org.junit.jupiter.api.Test;

/**
 * Knobs whose value sizes a table the balancer allocates have an upper bound: a value past it is
 * refused naming the knob, the bound and the value, before anything is allocated.
 */
class TableSizeBoundsTest {

    @Test
    void historySizeIsAtMostAMillion() {
        AdaptiveVirtualNodeLB avn = new AdaptiveVirtualNodeLB();
        assertThatThrownBy(() -> avn.setHistorySize(Integer.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("historySize must be <= 1000000, was 2147483647");
        assertThatThrownBy(() -> avn.setHistorySize(300_000_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("historySize must be <= 1000000, was 300000000");
        assertThatThrownBy(() -> avn.setHistorySize(1_000_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("historySize must be <= 1000000, was 1000001");
        assertThat(avn.getHistorySize()).isEqualTo(AdaptiveVirtualNodesConfig.DEFAULT_HISTORY_SIZE);
        avn.setHistorySize(1_000_000);
        assertThat(avn.getHistorySize()).isEqualTo(1_000_000);
        assertThatThrownBy(() -> AdaptiveVirtualNodesConfig.custom().historySize(1_000_001))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("historySize must be <= 1000000, was 1000001");
        assertThat(AdaptiveVirtualNodesConfig.MAX_HISTORY_SIZE).isEqualTo(1_000_000);
    }

    @Test
    void scheduleResolutionIsAtMostAHundredThousand() {
        PidWeightedLB pid = new PidWeightedLB();
        assertThatThrownBy(() -> pid.setScheduleResolution(Integer.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("scheduleResolution must be <= 100000, was 2147483647");
        assertThatThrownBy(() -> pid.setScheduleResolution(100_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("scheduleResolution must be <= 100000, was 100001");
        assertThat(pid.getScheduleResolution()).isEqualTo(1000);
        pid.setScheduleResolution(100_000);
        assertThat(pid.getScheduleResolution()).isEqualTo(100_000);
        assertThatThrownBy(() -> PidWeightsConfig.custom().scheduleResolution(100_001))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("scheduleResolution must be <= 100000, was 100001");
        assertThatThrownBy(() -> new SmoothWeightedRoundRobin(100_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("resolution must be <= 100000, was 100001");
        assertThat(PidWeightsConfig.MAX_SCHEDULE_RESOLUTION).isEqualTo(SmoothWeightedRoundRobin.MAX_RESOLUTION)
                .isEqualTo(100_000);
    }
}
