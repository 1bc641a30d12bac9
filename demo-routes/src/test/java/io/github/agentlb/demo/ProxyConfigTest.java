package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxyConfigTest {

    @Test
    void defaults() {
        ProxyConfig config = ProxyConfig.ofDefaults();

        assertThat(config.port()).isEqualTo(8000);
        assertThat(config.host()).isEqualTo("0.0.0.0");
        assertThat(config.strategy()).isEqualTo("rr");
        assertThat(config.agentUrls())
                .containsExactly("http://localhost:8081", "http://localhost:8082", "http://localhost:8083");
        assertThat(config.connectTimeoutMs()).isEqualTo(1000);
        assertThat(config.requestTimeoutMs()).isEqualTo(5000);
    }

    @Test
    void readsPortAgentsAndStrategyFromTheEnvironment() {
        ProxyConfig config = ProxyConfig.fromEnvironment(Map.of(
                "PORT", " 18000 ", "AGENTS", "http://127.0.0.1:18081/, ,http://127.0.0.1:18082", "STRATEGY", "CH"));

        assertThat(config.port()).isEqualTo(18000);
        assertThat(config.agentUrls()).containsExactly("http://127.0.0.1:18081", "http://127.0.0.1:18082");
        assertThat(config.strategy()).isEqualTo("ch");
    }

    @Test
    void agentsMayBeNamed() {
        ProxyConfig config = ProxyConfig.fromEnvironment(Map.of(
                "AGENTS", "A1=http://127.0.0.1:18081, http://127.0.0.1:18082,A3 = http://127.0.0.1:18083/"));

        assertThat(config.agentUrls())
                .containsExactly("http://127.0.0.1:18081", "http://127.0.0.1:18082", "http://127.0.0.1:18083");
        assertThat(config.agentNames()).containsExactly(
                Map.entry("http://127.0.0.1:18081", "A1"), Map.entry("http://127.0.0.1:18083", "A3"));
        assertThatThrownBy(() -> ProxyConfig.builder().agentUrls("A1=http://h:1", "A1=http://h:2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("agent names must be distinct, A1 appears twice");
        assertThatThrownBy(() -> ProxyConfig.builder().agentUrls("=http://h:1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("agent name must be a non-blank word, was ''");
    }

    @Test
    void blankVariablesKeepTheDefaults() {
        assertThat(ProxyConfig.fromEnvironment(Map.of("PORT", "", "AGENTS", "  ", "STRATEGY", "")))
                .isEqualTo(ProxyConfig.ofDefaults());
    }

    @Test
    void badValuesNameTheFieldAndTheValue() {
        assertThatThrownBy(() -> ProxyConfig.fromEnvironment(Map.of("PORT", "eighty")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PORT").hasMessageContaining("eighty");
        assertThatThrownBy(() -> ProxyConfig.fromEnvironment(Map.of("STRATEGY", "random")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strategy")
                .hasMessageContaining("random").hasMessageContaining("[rr, ch, pid, avn]");
        assertThatThrownBy(() -> ProxyConfig.builder().port(70000))
                .hasMessage("port must be in 0..65535, was 70000");
        assertThatThrownBy(() -> ProxyConfig.builder().connectTimeoutMs(0))
                .hasMessage("connectTimeoutMs must be >= 1, was 0");
        assertThatThrownBy(() -> ProxyConfig.builder().requestTimeoutMs(-1))
                .hasMessage("requestTimeoutMs must be >= 1, was -1");
        assertThatThrownBy(() -> ProxyConfig.builder().host(" "))
                .hasMessage("host must not be blank, was ' '");
    }

    @Test
    void agentUrlsMustBeDistinctPlainHttpBaseUrls() {
        assertThatThrownBy(() -> ProxyConfig.builder().agentUrls(List.of()))
                .hasMessageContaining("agentUrls must not be empty");
        assertThatThrownBy(() -> ProxyConfig.builder().agentUrls("http://a:1", "http://a:1/"))
                .hasMessage("agentUrls must be distinct, http://a:1 appears twice");
        for (String bad : List.of("localhost:8081", "https://a:1", "http://a", "http://a:1/path", "http://a:1?x=1", "not a url")) {
            assertThatThrownBy(() -> ProxyConfig.builder().agentUrls(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad);
        }
    }

    @Test
    void toBuilderCopiesEveryField() {
        ProxyConfig config = ProxyConfig.builder().port(1).host("127.0.0.1").agentUrls("http://b:2").strategy("ch")
                .connectTimeoutMs(3).requestTimeoutMs(4).build();

        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
    }
}
