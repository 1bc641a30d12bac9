package io.github.agentlb.loadgen.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.scenario.JobScenario;
import io.github.agentlb.loadgen.scenario.ScenarioLoad;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A small fleet run end to end: agents and demo proxy in this JVM on free loopback ports. */
@Tag("e2e")
@Timeout(120)
class FleetScenarioTest {

    private static final int REQUESTS = 320;

    @TempDir
    Path dir;

    @Test
    void agentsJoinDrainAndReturnWithoutAClientError() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        LoadTestConfig config = LoadTestConfig.custom().requests(REQUESTS).users(32).concurrency(8).seed(42)
                .warmup(0).build();
        FleetScenario scenario = new FleetScenario(new ScenarioLoad(AgentConfig.custom().delayMs(20, 60).build(), 42,
                config, new PrintStream(progress, true, StandardCharsets.UTF_8)),
                new SlowStart(Duration.ofMillis(200), 1.0, 0.1));
        for (String strategy : List.of("ch", "rr")) {
            FleetReport r = scenario.run(strategy);
            assertThat(r.requests()).isEqualTo(REQUESTS);
            assertThat(r.clientErrors()).as("%s client errors", strategy).isZero();
            assertThat(r.earlyJoinAnswers()).as("%s: A4 answered before it joined", strategy).isZero();
            assertThat(r.answered(FleetPhase.BEFORE, FleetPhase.JOINING)).isZero();
            assertThat(r.answered(FleetPhase.JOINED, FleetPhase.JOINING)
                    + r.answered(FleetPhase.DRAINED, FleetPhase.JOINING)).as("%s: A4 after its join", strategy)
                    .isPositive();
            assertThat(r.drainedAnswers()).as("%s: A2 chosen while drained", strategy).isZero();
            assertThat(r.answered(FleetPhase.RETURNED, FleetPhase.LEAVING)).as("%s: A2 back", strategy).isPositive();
            assertThat(r.drainMs()).as("%s: A2 left before its return", strategy).isNotNaN();
            if (strategy.equals("ch")) {
                assertThat(r.otherKeysMoved()).as("ch: keys of A1 and A3 stay").isZero();
                assertThat(r.moves().get(FleetPhase.JOINED).moved()).as("ch: A4 took keys").isPositive();
            }
            assertThat(FleetReportWriter.write(r, dir)).allSatisfy(f -> assertThat(dir.resolve(f)).isNotEmptyFile());
        }
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("== ch, fleet scenario", "== rr, fleet scenario");
    }

    @Test
    void theMainJobFindsTheFleetScenario() {
        assertThat(JobScenario.installed()).extracting(JobScenario::label).contains(FleetScenario.LABEL);
    }
}
