package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import io.github.agentlb.loadgen.report.PidConvergenceChart;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;

class PidTraceTest {

    @TempDir
    Path dir;

    private static PidTrace threeSamples() {
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

        assertThat(trace.size()).isEqualTo(3);
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

    @Test
    void chartIsAValidPngWithAWeightAndAUtilizationSeriesPerAgent() throws Exception {
        PidTrace trace = threeSamples();

        Path png = PidConvergenceChart.write(trace, dir);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(PidConvergenceChart.WIDTH);
        assertThat(image.getHeight()).isEqualTo(2 * PidConvergenceChart.PANEL_HEIGHT);
        assertThat(Files.readString(dir.resolve(PidConvergenceChart.CSV_FILE))).isEqualTo(trace.toCsv());
        List<XYChart> panels = PidConvergenceChart.build(trace);
        assertThat(panels).hasSize(2);
        assertThat(panels.get(0).getSeriesMap().keySet()).containsExactly("A1", "A2", "A3");
        assertThat(panels.get(1).getSeriesMap().keySet())
                .containsExactly("A1", "A2", "A3", PidConvergenceChart.SETPOINT_SERIES);
        assertThat(PidConvergenceChart.build(new PidTrace("uniform"))).allSatisfy(p -> assertThat(p.getSeriesMap()).hasSize(1));
    }

    @Test
    void setpointIsTheMeanOfTheFiniteUtilizationsAtEachSample() {
        PidTrace trace = threeSamples();

        List<Double> setpoint = PidConvergenceChart.setpoint(trace.utilizations().values(), trace.size());

        assertThat(setpoint).hasSize(3);
        assertThat(setpoint.get(0)).isNaN();
        assertThat(setpoint.get(1)).isCloseTo((0.5 + 1.25) / 2, offset(1e-12));
        assertThat(setpoint.get(2)).isCloseTo((0.6 + 0.7) / 2, offset(1e-12));
    }
}
