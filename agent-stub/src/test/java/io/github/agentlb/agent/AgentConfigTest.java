package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentConfigTest {

    @Test
    void defaults() {
        AgentConfig c = AgentConfig.ofDefaults();
        assertThat(c.agentId()).isEqualTo("A1");
        assertThat(c.host()).isEqualTo("127.0.0.1");
        assertThat(c.port()).isEqualTo(8081);
        assertThat(c.delayMinMs()).isEqualTo(50);
        assertThat(c.delayMaxMs()).isEqualTo(150);
        assertThat(c.speed()).isEqualTo(1.0);
        assertThat(c.capacity()).isZero();
        assertThat(c.unlimitedCapacity()).isTrue();
        assertThat(c.cpuBase()).isEqualTo(0.1);
        assertThat(c.memoryBase()).isEqualTo(0.2);
        assertThat(c.seed()).isEqualTo(2064L); // "A1".hashCode()
    }

    @Test
    void seedDefaultsToAgentIdHashAndCanBeSet() {
        assertThat(AgentConfig.custom().agentId("A2").build().seed()).isEqualTo(2065L);
        assertThat(AgentConfig.custom().agentId("A2").seed(7).build().seed()).isEqualTo(7L);
    }

    @Test
    void rejectsBadValuesNamingFieldAndValue() {
        assertThatThrownBy(() -> AgentConfig.custom().delayMinMs(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delayMinMs must be in 0..3600000, was -1");
        assertThatThrownBy(() -> AgentConfig.custom().delayMaxMs(-5))
                .hasMessage("delayMaxMs must be in 0..3600000, was -5");
        assertThatThrownBy(() -> AgentConfig.custom().delayMinMs(200).delayMaxMs(100).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delayMinMs must be <= delayMaxMs (100), was 200");
        assertThatThrownBy(() -> AgentConfig.custom().speed(0))
                .hasMessage("speed must be > 0 and finite, was 0.0");
        assertThatThrownBy(() -> AgentConfig.custom().speed(Double.NaN))
                .hasMessage("speed must be > 0 and finite, was NaN");
        assertThatThrownBy(() -> AgentConfig.custom().capacity(-1))
                .hasMessage("capacity must be >= 0 (0 = unlimited), was -1");
        assertThatThrownBy(() -> AgentConfig.custom().port(65536))
                .hasMessage("port must be in 0..65535, was 65536");
        assertThatThrownBy(() -> AgentConfig.custom().port(-1))
                .hasMessage("port must be in 0..65535, was -1");
        assertThatThrownBy(() -> AgentConfig.custom().cpuBase(1.5))
                .hasMessage("cpuBase must be in [0, 1], was 1.5");
        assertThatThrownBy(() -> AgentConfig.custom().memoryBase(-0.1))
                .hasMessage("memoryBase must be in [0, 1], was -0.1");
        assertThatThrownBy(() -> AgentConfig.custom().agentId(" "))
                .hasMessage("agentId must not be blank, was ' '");
    }

    @Test
    void acceptsBoundaryValues() {
        AgentConfig c = AgentConfig.custom().port(0).delayMs(0, 0).capacity(0).cpuBase(1).memoryBase(0).build();
        assertThat(c.port()).isZero();
        assertThat(AgentConfig.custom().port(65535).build().port()).isEqualTo(65535);
    }

    @Test
    void readsEnvironment() {
        AgentConfig c = AgentConfig.fromEnvironment(Map.of(
                "AGENT_ID", "A2", "PORT", "8082", "DELAY_MIN_MS", "10", "DELAY_MAX_MS", "20",
                "SPEED", "0.5", "CAPACITY", "4", "CPU_BASE", "0.3", "MEMORY_BASE", "0.4", "SEED", "99",
                "HOST", "0.0.0.0"));
        assertThat(c).isEqualTo(AgentConfig.custom().agentId("A2").port(8082).delayMs(10, 20).speed(0.5)
                .capacity(4).cpuBase(0.3).memoryBase(0.4).seed(99).host("0.0.0.0").build());
    }

    @Test
    void absentOrBlankVariablesKeepDefaults() {
        assertThat(AgentConfig.fromEnvironment(Map.of("PORT", " ", "UNRELATED", "x")))
                .isEqualTo(AgentConfig.ofDefaults());
    }

    @Test
    void environmentErrorsNameTheVariable() {
        assertThatThrownBy(() -> AgentConfig.fromEnvironment(Map.of("PORT", "eighty")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("PORT: PORT must be an integer, was 'eighty'");
        assertThatThrownBy(() -> AgentConfig.fromEnvironment(Map.of("SPEED", "-2")))
                .hasMessage("SPEED: speed must be > 0 and finite, was -2.0");
        assertThatThrownBy(() -> AgentConfig.fromEnvironment(Map.of("DELAY_MIN_MS", "300")))
                .hasMessage("delayMinMs must be <= delayMaxMs (150), was 300 (from environment)");
    }

    @Test
    void withPortKeepsEverythingElse() {
        AgentConfig c = AgentConfig.custom().agentId("B").capacity(3).port(0).build();
        AgentConfig p = c.withPort(1234);
        assertThat(p.port()).isEqualTo(1234);
        assertThat(p.toBuilder().port(0).build()).isEqualTo(c);
    }
}
