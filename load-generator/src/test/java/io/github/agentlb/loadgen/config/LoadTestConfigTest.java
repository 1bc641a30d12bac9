package io.github.agentlb.loadgen.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LoadTestConfigTest {

    @Test
    void aCopyOfANonDefaultConfigIsEqual() {
        LoadTestConfig config = new LoadTestConfig(300, 40, 7, -3, 250, 30, 0, 0.25);
        LoadTestConfig copy = new LoadTestConfig(config.requests(), config.users(), config.concurrency(), config.seed(),
                config.timeoutMs(), config.progressEvery(), config.warmup(), config.hotShare());

        assertThat(copy).isEqualTo(config).hasSameHashCodeAs(config);
        assertThat(new LoadTestConfig(300, 40, 7, 4, 250, 30, 0, 0.25).seed()).isEqualTo(4);
    }

    @Test
    void everyFieldIsCheckedAtConstruction() {
        assertThatThrownBy(() -> new LoadTestConfig(0, 200, 10, 42, 5_000, 500, 100, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("requests must be >= 1, was 0");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 1001, 42, 5_000, 500, 100, 0))
                .hasMessage("concurrency must be in 1..1000, was 1001");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 0, 500, 100, 0))
                .hasMessage("timeoutMs must be >= 1, was 0");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 5_000, 0, 100, 0))
                .hasMessage("progressEvery must be >= 1, was 0");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 5_000, 500, -1, 0))
                .hasMessage("warmup must be >= 0, was -1");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 5_000, 500, 100, 1))
                .hasMessage("hotShare must be >= 0 and < 1, was 1.0");
        assertThat(TestConfigs.of(2000, 200)).isEqualTo(TestConfigs.defaults());
        assertThatThrownBy(() -> TestConfigs.of(2000, 0)).hasMessage("users must be in 1..2000 (requests), was 0");
    }

    @Test
    void theCanonicalConstructorChecksEachField() {
        LoadTestConfig d = TestConfigs.defaults();

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
