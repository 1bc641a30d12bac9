package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.TestConfigs;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlainScenarioUrlLoadTest {

    @Test
    void aUrlRunsLoadCarriesTheWarmUpItRuns() {
        LoadTestConfig load = TestConfigs.of(200, 20);
        Pacing open = new Pacing(50, null, Pacing.DEFAULT_INTERVAL);

        assertThat(PlainScenario.urlLoad(load, open).warmup()).isEqualTo(1500); // 30 s at 50 req/s
        assertThat(PlainScenario.urlLoad(load, new Pacing(0, null, Duration.ofSeconds(10)))).isSameAs(load);
    }

    /** A --url run with a hot share keeps its hot-key figures in its result (its JSON), not only on the console. */
    @Test
    void aUrlRunWithAHotShareHasTheHotKeyFigures() {
        LoadTestConfig load = new LoadTestConfig(5, 2, 1, 42, 1000, 100, 0, 0.4);
        List<RequestOutcome> outcomes = List.of(RequestOutcome.success("r1", 0, "A3", 200, 1),
                RequestOutcome.success("r2", 0, "A3", 200, 1), RequestOutcome.success("r3", 1, "A1", 200, 1),
                RequestOutcome.success("r4", 1, "A1", 200, 1), RequestOutcome.success("r5", 2, "A2", 200, 1));

        Map<String, Object> figures = PlainScenario.urlFigures(load, outcomes);

        assertThat(figures).containsEntry("hot_share", 0.4).containsEntry("hot_user", 0)
                .containsEntry("hot_user_requests", 2L).containsEntry("other_users", 2)
                .containsEntry("others_sticky_users", 2).containsEntry("others_stickiness", 1.0);
        assertThat(figures.get("hot_user_agents")).isEqualTo(Map.of("A3", 2L));
        assertThat(PlainScenario.urlFigures(TestConfigs.of(5, 2), outcomes)).isEmpty();
    }
}
