package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class PidTraceTest {

    /** Three samples of a trace: A3 first seen in the third, no utilization in the first. */
    public static PidTrace threeSamples() {
        PidTrace trace = new PidTrace("heterogeneous");
        trace.record(0.0, Map.of("A1", 1.0, "A2", 1.0), Map.of("A1", Double.NaN, "A2", Double.NaN));
        trace.record(0.25, Map.of("A1", 1.2, "A2", 0.8), Map.of("A1", 0.5, "A2", 1.25));
        trace.markWarmupEnd(0.3);
        trace.record(0.5, Map.of("A1", 1.1, "A2", 0.7, "A3", 1.2), Map.of("A1", 0.6, "A3", 0.7));
        return trace;
    }

    @Test
    void keepsOneValuePerSampleAndAgentWithNaNWhereThereWasNone() {
        PidTrace trace = threeSamples();

        assertThat(trace.seconds()).hasSize(3);
        assertThat(trace.seconds()).containsExactly(0.0, 0.25, 0.5);
        assertThat(trace.weights().keySet()).containsExactly("A1", "A2", "A3");
        assertThat(trace.weights().get("A2")).containsExactly(1.0, 0.8, 0.7);
        assertThat(trace.weights().get("A3")).containsExactly(Double.NaN, Double.NaN, 1.2);
        assertThat(trace.utilizations().get("A2")).containsExactly(Double.NaN, 1.25, Double.NaN);
        assertThat(trace.warmupEndSeconds()).isEqualTo(0.3);
    }

    @Test
    void csvHasAHeaderAndOneLinePerSampleWithEmptyFieldsForNaN() {
        assertThat(threeSamples().toCsv()).isEqualTo(
                "t_s,weight_A1,weight_A2,weight_A3,utilization_A1,utilization_A2,utilization_A3\n"
                        + "0.000,1.0000,1.0000,,,,\n"
                        + "0.250,1.2000,0.8000,,0.5000,1.2500,\n"
                        + "0.500,1.1000,0.7000,1.2000,0.6000,,0.7000\n");
    }

    @Test
    void rejectsASampleBeforeThePreviousOne() {
        PidTrace trace = threeSamples();

        assertThatThrownBy(() -> trace.record(0.4, Map.of(), Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("atSeconds");
    }
}
