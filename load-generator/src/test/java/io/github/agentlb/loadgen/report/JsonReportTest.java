package io.github.agentlb.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.TestConfigs;
import io.github.agentlb.loadgen.scenario.Result;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonReportTest {

    @TempDir
    Path dir;

    @Test
    void aFigureNotObservedIsNullAndTheLoadSaysWhatWasSent() throws Exception {
        RunStatistics errors = RunStatistics.of(List.of(RequestOutcome.error("r1", 1, 404, 1),
                RequestOutcome.error("r2", 2, 404, 1)), List.of("A1"), 1_000);
        RunStatistics empty = RunStatistics.of(List.of(), List.of("A1"), 0);
        // Configured for the default 2000 requests, as a --duration run is; 2 were sent.
        Result r = new Result("uniform", "x", "x", "http://h:1", false, TestConfigs.defaults(), 1, errors,
                List.of(new Result.Phase("after", "restart A1", 1, empty, Map.of())), Map.of(), List.of(), 2, null,
                null, List.of(), List.of());

        JsonNode json = new ObjectMapper().readTree(JsonReport.write(r, dir).toFile());

        for (String p : List.of("/stickiness", "/cv", "/max_over_mean", "/latency/p50_ms", "/latency/p95_ms",
                "/latency/mean_ms", "/agents/A1/p99_ms", "/phases/after/p50_ms", "/phases/after/p99_ms",
                "/phases/after/max_ms", "/phases/after/duration_ms")) {
            assertThat(json.at(p).isNull()).as(p + " in " + json).isTrue();
        }
        assertThat(json.at("/answered_users").asInt()).isZero();
        assertThat(json.at("/load/requests").asInt()).isEqualTo(2);
    }

    /** As the console and report.md: a run nothing answered has no pacing verdict, `kept_pace` null. */
    @Test
    void aRunNothingAnsweredHasNoPacingVerdict() throws Exception {
        RunStatistics errors = RunStatistics.of(List.of(RequestOutcome.error("r1", 1, 404, 1)), List.of(), 1_000);
        PaceReport pace = PaceReport.counted(Pacing.CLOSED_COUNTED, new PacingCheck().result(0.1, 2, 1.0));
        Result r = new Result("uniform", "x", "x", "http://h:1", false, TestConfigs.defaults(), 1, errors, List.of(),
                Map.of(), List.of(), 1, null, pace, List.of(), List.of());
        assertThat(pace.selfCheck().keptPace()).isTrue();

        JsonNode json = new ObjectMapper().readTree(JsonReport.write(r, dir).toFile());

        assertThat(json.at("/pace/self_check/kept_pace").isNull()).as(json.toString()).isTrue();
        assertThat(json.at("/pace/self_check/sends").asInt()).isZero();
    }
}
