package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.loadgen.stats.FailurePhases.Phase;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PhaseSplitTest {

    @Test
    void aChangeOpensItsPhaseAndEqualChangeTimesLeaveAPhaseEmpty() {
        PhaseSplit<Phase> split = new PhaseSplit<>(Phase.class, 10, 10);
        assertThat(split.phaseOf(9)).isEqualTo(Phase.BEFORE);
        assertThat(split.phaseOf(10)).isEqualTo(Phase.AFTER);
        assertThat(split.durations(0, 25)).isEqualTo(Map.of(Phase.BEFORE, 10L, Phase.DOWN, 0L, Phase.AFTER, 15L));
        assertThat(split.durations(12, 8)).isEqualTo(Map.of(Phase.BEFORE, 0L, Phase.DOWN, 0L, Phase.AFTER, 0L));
    }

    @Test
    void oneChangeTimePerPhaseAfterTheFirstInOrder() {
        assertThatThrownBy(() -> new PhaseSplit<>(Phase.class, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("need 2 change times for 3 phases, were 1");
        assertThatThrownBy(() -> new PhaseSplit<>(Phase.class, 2, 1))
                .hasMessage("change times must be in order, were [2, 1]");
    }
}
