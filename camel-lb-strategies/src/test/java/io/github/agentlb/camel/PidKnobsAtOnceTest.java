package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link PidWeightedLB}'s knobs, as its Javadoc says: checked when set, applied at once, before or after the start. */
class PidKnobsAtOnceTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    @Test
    void aKnobIsCheckedWhenSetAndAppliedAtOnce() {
        PidWeightedLB pid = new PidWeightedLB();
        assertThatThrownBy(() -> pid.setKp(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kp must be finite and >= 0, was -1.0");
        pid.setKp(2.5);
        assertThat(pid.balancerConfig().pid().kp()).isEqualTo(2.5);

        ScriptedChild.startedAgents(pid, CAMEL.get(), () -> 0L, ScriptedChild::naming, "A1", "A2");
        pid.setKp(0.5);
        assertThat(pid.balancerConfig().pid().kp()).isEqualTo(0.5);
        assertThatThrownBy(() -> pid.setKp(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kp must be finite and >= 0, was -1.0");
        assertThat(pid.getKp()).isEqualTo(0.5);
        pid.stop();
    }
}
