package io.github.agentlb.agent.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.AgentSettings;
import org.junit.jupiter.api.Test;

/** The model's knobs: off by default, validated by the builder and by the settings bean with the variable's name. */
class LlmShapeTest {

    @Test
    void everyPartIsOffByDefault() {
        assertThat(AgentConfig.ofDefaults().llm()).isEqualTo(LlmShape.DISABLED);
        assertThat(LlmShape.DISABLED.cacheEnabled()).isFalse();
        assertThat(LlmShape.DISABLED.limited()).isFalse();
        assertThat(LlmShape.DISABLED.prefillNanos(1000)).isZero();
        assertThat(new AgentSettings().toConfig().llm()).isEqualTo(LlmShape.DISABLED);
    }

    @Test
    void theBuilderSetsEachKnob() {
        LlmShape shape = LlmShape.custom().blockChars(16).cacheBlocks(500).uncachedBlockMs(1.5).maxRunning(4)
                .maxQueue(8).mintSessions(true).build();

        assertThat(shape).isEqualTo(new LlmShape(16, 500, 1.5, 4, 8, true));
        assertThat(shape.toBuilder().maxQueue(0).build().maxQueue()).isZero();
        assertThat(shape.prefillNanos(3)).isEqualTo(4_500_000L);
        assertThat(AgentConfig.custom().llm(shape).build().toBuilder().build().llm()).isEqualTo(shape);
    }

    @Test
    void badKnobsNameTheFieldAndTheValue() {
        assertThatThrownBy(() -> LlmShape.custom().blockChars(0)).hasMessage("blockChars must be in 1..1000000, was 0");
        assertThatThrownBy(() -> LlmShape.custom().cacheBlocks(-1))
                .hasMessage("cacheBlocks must be in 0..10000000, was -1");
        assertThatThrownBy(() -> LlmShape.custom().uncachedBlockMs(Double.NaN))
                .hasMessage("uncachedBlockMs must be in [0, 60000], was NaN");
        assertThatThrownBy(() -> LlmShape.custom().maxRunning(-2)).hasMessage("maxRunning must be in 0..1000000, was -2");
        assertThatThrownBy(() -> LlmShape.custom().maxQueue(-3)).hasMessage("maxQueue must be in 0..1000000, was -3");
        assertThatThrownBy(() -> AgentConfig.custom().llm(null)).hasMessage("llm must not be null, was null");
    }

    @Test
    void settingsNameTheVariable() {
        AgentSettings settings = new AgentSettings();
        settings.setMaxRunning(-1);
        assertThatThrownBy(settings::toConfig).hasMessage("MAX_RUNNING: maxRunning must be in 0..1000000, was -1");

        AgentSettings other = new AgentSettings();
        other.setUncachedBlockMs(-0.5);
        assertThatThrownBy(other::toConfig).hasMessage("UNCACHED_BLOCK_MS: uncachedBlockMs must be in [0, 60000], was -0.5");

        AgentSettings good = new AgentSettings();
        good.setPrefixBlockChars(32);
        good.setPrefixCacheBlocks(1000);
        good.setUncachedBlockMs(2);
        good.setMaxRunning(8);
        good.setMaxQueue(16);
        good.setMintSessions(true);
        assertThat(good.toConfig().llm()).isEqualTo(new LlmShape(32, 1000, 2, 8, 16, true));
    }
}
