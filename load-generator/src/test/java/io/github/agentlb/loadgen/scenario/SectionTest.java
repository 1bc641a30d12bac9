package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.util.List;
import org.junit.jupiter.api.Test;

class SectionTest {

    @Test
    void aFigureNotObservedIsNaOnTheConsoleAndInMarkdown() {
        assertThat(Section.format("H %d p50/p99 %.1f/%.1f ms, p95 %.3f", 0, Double.NaN, Double.NaN, Double.NaN))
                .isEqualTo("H 0 p50/p99 n/a/n/a ms, p95 n/a");
        RunStatistics none = RunStatistics.of(List.of(RequestOutcome.error("r1", 1, 404, 1)), List.of(), 1);
        assertThat(ClusterRun.answered(none, "=")).isEqualTo("n/a");
        assertThat(Section.TableBuilder.cell(none.stickiness())).isEqualTo("n/a");
    }
}
