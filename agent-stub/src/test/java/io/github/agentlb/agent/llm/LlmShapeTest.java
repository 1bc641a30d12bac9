package io.github.agentlb.agent.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.AgentSettings;
import java.util.function.Consumer;
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

    /** Checks that {@code knob}, applied to a fresh builder, is refused with exactly this message. */
    private static void assertRefused(Consumer<LlmShape.Builder> knob, String message) {
        assertThatThrownBy(() -> knob.accept(LlmShape.custom())).hasMessage(message);
    }

    /** Checks that settings with {@code knob} applied fail to make a config, with exactly this message. */
    private static void assertSettingRefused(Consumer<AgentSettings> knob, String message) {
        AgentSettings settings = new AgentSettings();
        knob.accept(settings);
        assertThatThrownBy(settings::toConfig).hasMessage(message);
    }

    @Test
    void badKnobsNameTheFieldAndTheValue() {
        assertRefused(b -> b.blockChars(0), "blockChars must be in 1..1000000, was 0");
        assertRefused(b -> b.cacheBlocks(-1), "cacheBlocks must be in 0..10000000, was -1");
        assertRefused(b -> b.uncachedBlockMs(Double.NaN), "uncachedBlockMs must be in [0, 60000], was NaN");
        assertRefused(b -> b.maxRunning(-2), "maxRunning must be in 0..1000000, was -2");
        assertRefused(b -> b.maxQueue(-3), "maxQueue must be in 0..1000000, was -3");
        assertThatThrownBy(() -> AgentConfig.custom().llm(null)).hasMessage("llm must not be null, was null");
    }

    @Test
    void settingsNameTheVariable() {
        assertSettingRefused(s -> s.setMaxRunning(-1), "MAX_RUNNING: maxRunning must be in 0..1000000, was -1");
        assertSettingRefused(s -> s.setUncachedBlockMs(-0.5),
                "UNCACHED_BLOCK_MS: uncachedBlockMs must be in [0, 60000], was -0.5");

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
