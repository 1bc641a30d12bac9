package io.github.agentlb.loadgen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LoadOptionsTest {

    @Test
    void durationsParseWithOrWithoutAUnit() {
        assertThat(LoadOptions.parse("--duration", "10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(LoadOptions.parse("--duration", "45")).isEqualTo(Duration.ofSeconds(45));
        assertThat(LoadOptions.parse("--duration", "250ms")).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void strategiesAreReadAsTheDemoProxysStrategyIsWhateverTheirCase() {
        // --scenario Uniform and the proxy's STRATEGY=RR were taken; --strategy RR was refused as unknown.
        LoadOptions options = new LoadOptions();
        new CommandLine(options).parseArgs("--strategy", "RR, Ch");
        assertThat(options.validatedStrategies()).containsExactly("rr", "ch");
    }
}
