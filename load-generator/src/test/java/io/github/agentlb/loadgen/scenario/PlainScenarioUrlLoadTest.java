package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.TestConfigs;
import io.github.agentlb.loadgen.config.Pacing;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PlainScenarioUrlLoadTest {

    @Test
    void aUrlRunsLoadCarriesTheWarmUpItRuns() {
        LoadTestConfig load = TestConfigs.of(200, 20);
        Pacing open = new Pacing(50, null, Pacing.DEFAULT_INTERVAL);

        assertThat(PlainScenario.urlLoad(load, open).warmup()).isEqualTo(1500); // 30 s at 50 req/s
        assertThat(PlainScenario.urlLoad(load, new Pacing(0, null, Duration.ofSeconds(10)))).isSameAs(load);
    }
}
