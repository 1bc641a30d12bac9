package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LoadSnapshotTest {

    private static final AgentConfig CAP2 = AgentConfig.custom().capacity(2).cpuBase(0.1).memoryBase(0.2).build();

    @Test
    void idle() {
        LoadSnapshot s = LoadSnapshot.of(0, 0, CAP2);
        assertThat(s.utilization()).isZero();
        assertThat(s.cpu()).isCloseTo(0.1, within(1e-12));
        assertThat(s.memory()).isCloseTo(0.2, within(1e-12));
    }

    @Test
    void halfLoaded() {
        LoadSnapshot s = LoadSnapshot.of(1, 0, CAP2);
        assertThat(s.utilization()).isEqualTo(0.5);
        assertThat(s.cpu()).isCloseTo(0.1 + 0.9 * 0.5, within(1e-12));
    }

    @Test
    void queueingExceedsOneButCpuSaturatesAtOne() {
        LoadSnapshot s = LoadSnapshot.of(2, 1, CAP2);
        assertThat(s.utilization()).isEqualTo(1.5);
        assertThat(s.cpu()).isEqualTo(1.0);
        assertThat(s.memory()).isCloseTo(0.2 + LoadSnapshot.MEMORY_PER_QUEUED_REQUEST, within(1e-12));
    }

    @Test
    void memoryIsClampedToOne() {
        assertThat(LoadSnapshot.of(2, 10_000, CAP2).memory()).isEqualTo(1.0);
    }

    @Test
    void unlimitedCapacityUsesNominalCapacity() {
        AgentConfig unlimited = AgentConfig.ofDefaults();
        assertThat(LoadSnapshot.of(5, 0, unlimited).utilization()).isEqualTo(0.5);
        assertThat(LoadSnapshot.of(25, 0, unlimited).utilization()).isEqualTo(2.5);
        assertThat(LoadSnapshot.of(25, 0, unlimited).memory()).isCloseTo(0.2, within(1e-12));
    }

    @Test
    void formatsPlainDecimalsWithDot() {
        assertThat(LoadSnapshot.format(1.5)).isEqualTo("1.5000");
        assertThat(LoadSnapshot.format(0.00001)).isEqualTo("0.0000");
        assertThat(LoadSnapshot.format(1.0 / 3)).isEqualTo("0.3333");
    }
}
