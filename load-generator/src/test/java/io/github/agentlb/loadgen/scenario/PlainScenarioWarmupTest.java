package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.TestConfigs;
import org.junit.jupiter.api.Test;

/** An open-loop run against a running balancer warms it for at least 30 s at the run's rate. */
class PlainScenarioWarmupTest {

    private static final LoadTestConfig WARM = TestConfigs.defaults().warmupConfig().orElseThrow();

    @Test
    void anOpenLoopWarmUpLastsAtLeastThirtySecondsAtTheRate() {
        LoadTestConfig warm = PlainScenario.warmupOf(WARM, 400, PlainScenario.URL_OPEN_LOOP_WARMUP_SECONDS);
        assertThat(warm.requests()).isEqualTo(12_000);
        assertThat(warm.progressEvery()).isEqualTo(12_000);
        assertThat(warm.warmup()).isZero();
        assertThat(warm.users()).isEqualTo(WARM.users());
        assertThat(PlainScenario.warmupOf(WARM, 2.5, 30).requests()).isEqualTo(WARM.requests()); // 75 < 100: as given
    }

    @Test
    void aClosedLoopOrEmbeddedWarmUpIsAsGiven() {
        assertThat(PlainScenario.warmupOf(WARM, 0, 30)).isSameAs(WARM);
        assertThat(PlainScenario.warmupOf(WARM, 400, 0)).isSameAs(WARM);
    }
}
