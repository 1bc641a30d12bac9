package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.config.Pacing;
import org.junit.jupiter.api.Test;

/** A run that no request was answered in gets no verdict on pacing, least of all "kept pace". */
class PaceReportTest {

    @Test
    void noAnswerMeansNoPacingVerdict() {
        PaceReport report = PaceReport.counted(Pacing.CLOSED_COUNTED, new PacingCheck().result(0.1, 2, 0.5));

        assertThat(report.selfCheckLines(1)).singleElement().asString().startsWith("Self-check: the generator kept pace");
        assertThat(report.selfCheckLines(0)).containsExactly(
                "Self-check: no request was answered, so this run measured nothing of the system.");
    }
}
