package io.github.agentlb.loadgen.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LoadTestConfigTest {

    @Test
    void toBuilderRoundTripsANonDefaultConfig() {
        LoadTestConfig config = LoadTestConfig.custom().requests(300).users(40).concurrency(7).seed(-3).timeoutMs(250)
                .progressEvery(30).warmup(0).hotShare(0.25).build();

        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
        assertThat(config.toBuilder().seed(4).build().seed()).isEqualTo(4);
    }

    @Test
    void everySetterChecksAtOnce() {
        LoadTestConfig.Builder b = LoadTestConfig.custom();

        assertThatThrownBy(() -> b.requests(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("requests must be >= 1, was 0");
        assertThatThrownBy(() -> b.concurrency(1001)).hasMessage("concurrency must be in 1..1000, was 1001");
        assertThatThrownBy(() -> b.timeoutMs(0)).hasMessage("timeoutMs must be >= 1, was 0");
        assertThatThrownBy(() -> b.progressEvery(0)).hasMessage("progressEvery must be >= 1, was 0");
        assertThatThrownBy(() -> b.warmup(-1)).hasMessage("warmup must be >= 0, was -1");
        assertThatThrownBy(() -> b.hotShare(1)).hasMessage("hotShare must be >= 0 and < 1, was 1.0");
        assertThat(b.build()).isEqualTo(LoadTestConfig.ofDefaults());
        assertThatThrownBy(() -> b.users(0).build()).hasMessage("users must be in 1..2000 (requests), was 0");
    }

    @Test
    void theCanonicalConstructorChecksAsTheSettersDo() {
        LoadTestConfig d = LoadTestConfig.ofDefaults();

        assertThat(new LoadTestConfig(d.requests(), d.users(), d.concurrency(), d.seed(), d.timeoutMs(),
                d.progressEvery(), d.warmup(), d.hotShare())).isEqualTo(d);
        assertThatThrownBy(() -> new LoadTestConfig(d.requests(), d.users(), d.concurrency(), d.seed(), d.timeoutMs(),
                0, d.warmup(), d.hotShare())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("progressEvery must be >= 1, was 0");
        assertThatThrownBy(() -> new LoadTestConfig(d.requests(), d.users(), d.concurrency(), d.seed(), d.timeoutMs(),
                d.progressEvery(), d.warmup(), 0.95)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("users must be in 1..100 (requests not sent by the hot user), was 200");
    }
}
