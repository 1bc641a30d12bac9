package io.github.agentlb.agent.llm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** ORCA headers in vLLM's TEXT and JSON layouts. */
class OrcaReportTest {

    private static final LlmModel.Load LOAD = new LlmModel.Load(0.25, 2, 4);

    @Test
    void textIsNamedMetricsJoinedByCommaAndSpace() {
        assertThat(OrcaReport.header("TEXT", LOAD)).isEqualTo("TEXT named_metrics.kv_cache_usage_perc=0.25, "
                + "named_metrics.num_requests_waiting=2.0, named_metrics.num_requests_running=4.0");
        assertThat(OrcaReport.header("text", LOAD)).startsWith("TEXT named_metrics.");
    }

    @Test
    void jsonIsOneNamedMetricsObject() {
        assertThat(OrcaReport.header("JSON", LOAD)).isEqualTo("JSON {\"named_metrics\":{\"kv_cache_usage_perc\":0.25,"
                + "\"num_requests_waiting\":2.0,\"num_requests_running\":4.0}}");
        assertThat(OrcaReport.header(" json", new LlmModel.Load(0, 0, 0))).isEqualTo("JSON {\"named_metrics\":"
                + "{\"kv_cache_usage_perc\":0.0,\"num_requests_waiting\":0.0,\"num_requests_running\":0.0}}");
    }

    @Test
    void noHeaderWithoutAKnownFormat() {
        assertThat(OrcaReport.header(null, LOAD)).isNull();
        assertThat(OrcaReport.header("", LOAD)).isNull();
        assertThat(OrcaReport.header("BINARY", LOAD)).isNull();
    }
}
