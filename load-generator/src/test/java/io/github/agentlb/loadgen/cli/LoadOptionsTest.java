package io.github.agentlb.loadgen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LoadOptionsTest {

    @Test
    void durationsParseWithOrWithoutAUnit() {
        assertThat(LoadOptions.parse("--duration", "10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(LoadOptions.parse("--duration", "45")).isEqualTo(Duration.ofSeconds(45));
        assertThat(LoadOptions.parse("--duration", "250ms")).isEqualTo(Duration.ofMillis(250));
    }
}
