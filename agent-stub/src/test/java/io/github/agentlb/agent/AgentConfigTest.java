package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.agent.llm.LlmShape;
import java.util.function.Consumer;
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

    /** Checks that {@code knob}, applied to a fresh builder, is refused with exactly this message. */
    private static void assertRefused(Consumer<AgentConfig.Builder> knob, String message) {
        assertThatThrownBy(() -> knob.accept(AgentConfig.custom()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void rejectsBadValuesNamingFieldAndValue() {
        assertRefused(b -> b.delayMinMs(-1), "delayMinMs must be in 0..3600000, was -1");
        assertRefused(b -> b.delayMaxMs(-5), "delayMaxMs must be in 0..3600000, was -5");
        assertRefused(b -> b.delayMinMs(200).delayMaxMs(100).build(), "delayMinMs must be <= delayMaxMs (100), was 200");
        assertRefused(b -> b.speed(0), "speed must be > 0 and finite, was 0.0");
        assertRefused(b -> b.speed(Double.NaN), "speed must be > 0 and finite, was NaN");
        assertRefused(b -> b.capacity(-1), "capacity must be >= 0 (0 = unlimited), was -1");
        assertRefused(b -> b.port(65536), "port must be in 0..65535, was 65536");
        assertRefused(b -> b.port(-1), "port must be in 0..65535, was -1");
        assertRefused(b -> b.cpuBase(1.5), "cpuBase must be in [0, 1], was 1.5");
        assertRefused(b -> b.memoryBase(-0.1), "memoryBase must be in [0, 1], was -0.1");
        assertRefused(b -> b.agentId(" "), "agentId must not be blank, was ' '");
    }

    @Test
    void acceptsBoundaryValues() {
        AgentConfig c = AgentConfig.custom().port(0).delayMs(0, 0).capacity(0).cpuBase(1).memoryBase(0).build();
        assertThat(c.port()).isZero();
        assertThat(AgentConfig.custom().port(65535).build().port()).isEqualTo(65535);
    }

    @Test
    void withPortKeepsEverythingElse() {
        AgentConfig c = AgentConfig.custom().agentId("B").capacity(3).port(0).build();
        AgentConfig p = c.withPort(1234);
        assertThat(p.port()).isEqualTo(1234);
        assertThat(p.toBuilder().port(0).build()).isEqualTo(c);
    }

    @Test
    void toBuilderRoundTripsANonDefaultConfig() {
        AgentConfig c = AgentConfig.custom().agentId("B7").host("localhost").port(0).delayMs(5, 9).speed(2.5)
                .capacity(4).cpuBase(0.3).memoryBase(0.4).seed(-11).chat(new ChatShape(3, 50.0, 12))
                .llm(LlmShape.custom().maxRunning(2).build()).build();

        assertThat(c.toBuilder().build()).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(c.toBuilder().agentId("B8").build().seed()).isEqualTo(-11L);
    }

    @Test
    void theCanonicalConstructorChecksAsTheSettersDo() {
        AgentConfig d = AgentConfig.ofDefaults();

        assertThat(new AgentConfig(d.agentId(), d.host(), d.port(), d.delayMinMs(), d.delayMaxMs(), d.speed(),
                d.capacity(), d.cpuBase(), d.memoryBase(), d.seed(), d.chat(), d.llm())).isEqualTo(d);
        assertThatThrownBy(() -> new AgentConfig(d.agentId(), d.host(), d.port(), d.delayMinMs(), d.delayMaxMs(),
                d.speed(), -1, d.cpuBase(), d.memoryBase(), d.seed(), d.chat(), d.llm()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity must be >= 0 (0 = unlimited), was -1");
        assertThatThrownBy(() -> new AgentConfig(d.agentId(), d.host(), d.port(), 200, 100, d.speed(), d.capacity(),
                d.cpuBase(), d.memoryBase(), d.seed(), d.chat(), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("llm must not be null, was null");
        assertThatThrownBy(() -> new AgentConfig(d.agentId(), d.host(), d.port(), 200, 100, d.speed(), d.capacity(),
                d.cpuBase(), d.memoryBase(), d.seed(), d.chat(), d.llm()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delayMinMs must be <= delayMaxMs (100), was 200");
    }
}
