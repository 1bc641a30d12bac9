package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
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
        assertThat(config.agentNames()).containsExactly(entry("http://localhost:8081", "A1"),
                entry("http://localhost:8082", "A2"), entry("http://localhost:8083", "A3"));
        assertThat(config.connectTimeoutMs()).isEqualTo(1000);
        assertThat(config.requestTimeoutMs()).isZero();
        assertThat(config.firstByteTimeoutMs()).isEqualTo(60_000);
        assertThat(config.idleTimeoutMs()).isEqualTo(60_000);
        assertThat(config.maxBodyBytes()).isEqualTo(16 * 1024 * 1024);
        assertThat(config.clientTimeoutMs()).isEqualTo(60_000);
    }

    /** HOST=::1 made the proxy's URI http://::1:port, which Camel refused with a stack trace ("hostname can't be null"). */
    @Test
    void anIpv6HostIsKeptInBracketsAsUrlsWriteIt() {
        assertThat(ProxyConfig.builder().host("::1").build().host()).isEqualTo("[::1]");
        assertThat(ProxyConfig.builder().host("[::1]").build().host()).isEqualTo("[::1]");
        assertThat(ProxyConfig.builder().host("127.0.0.1").build().host()).isEqualTo("127.0.0.1");
    }

    /** The start-up line names every agent, named or not (it dropped the unnamed ones when some were named). */
    @Test
    void theStartUpLineNamesEveryAgent() {
        assertThat(ProxyConfig.builder().agentUrls("A1=http://127.0.0.1:14001", "http://127.0.0.1:14002").build().describe())
                .contains("agents=[A1=http://127.0.0.1:14001, http://127.0.0.1:14002]");
    }

    /** A fleet of 200 made the start-up line 8.8 KB: it lists 20 agents and how many more, as the fleet's lines do. */
    @Test
    void theStartUpLineListsTwentyAgentsAndHowManyMore() {
        String[] urls = java.util.stream.IntStream.rangeClosed(1, 200).mapToObj(i -> "http://127.0.0.1:" + (14000 + i))
                .toArray(String[]::new);
        assertThat(ProxyConfig.builder().agentUrls(urls).build().describe())
                .contains("agents=[http://127.0.0.1:14001, ", "http://127.0.0.1:14020, and 180 more] ")
                .doesNotContain("http://127.0.0.1:14021");
    }

    @Test
    void agentsGivenUnnamedAreNamedByTheirUrlsAndNamedOnesByTheirNames() {
        assertThat(ProxyConfig.builder().agentUrls("http://localhost:8081", "http://localhost:8082").build().agentNames())
                .isEmpty();
        assertThat(ProxyConfig.builder().agentUrls("B1=http://localhost:8081").build().agentNames())
                .containsExactly(entry("http://localhost:8081", "B1"));
    }

    /** Checks that {@code knob}, applied to a fresh builder, is refused with exactly this message. */
    private static void assertRefused(Consumer<ProxyConfig.Builder> knob, String message) {
        assertThatThrownBy(() -> knob.accept(ProxyConfig.builder())).hasMessage(message);
    }

    @Test
    void badValuesNameTheFieldAndTheValue() {
        assertThatThrownBy(() -> ProxyConfig.builder().strategy("random"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strategy")
                .hasMessageContaining("random").hasMessageContaining("[rr, ch, pid, avn, lr]");
        assertRefused(b -> b.port(70000), "port must be in 0..65535, was 70000");
        assertRefused(b -> b.connectTimeoutMs(0), "connectTimeoutMs must be >= 1, was 0");
        assertRefused(b -> b.requestTimeoutMs(-1), "requestTimeoutMs must be >= 0 (0 = none), was -1");
        assertRefused(b -> b.firstByteTimeoutMs(0), "firstByteTimeoutMs must be >= 1, was 0");
        assertRefused(b -> b.idleTimeoutMs(0), "idleTimeoutMs must be >= 1, was 0");
        assertRefused(b -> b.maxBodyBytes(-1), "maxBodyBytes must be >= 0, was -1");
        assertRefused(b -> b.clientTimeoutMs(0), "clientTimeoutMs must be >= 1, was 0");
        assertRefused(b -> b.host(" "), "host must not be blank, was ' '");
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
    void aMalformedAgentUrlIsNamedWithWhatIsWrong() {
        for (String url : List.of("http://127.0.0.1:99999", "http://h:65536", "http://h:0")) {
            assertRefused(b -> b.agentUrls("N1=" + url), "agent URL's port must be in 1..65535, was '" + url + "'");
        }
        for (String url : List.of("http://127.0.0.1:-1", "http://:8080", "http://h:", "http://h:2147483648",
                "http://user@h:80", "http://a_b:80", "ftp://h:80")) {
            assertRefused(b -> b.agentUrls(url), "agent URL must look like http://host:port, was '" + url + "'");
        }
        assertRefused(b -> b.agentUrls("http://a b:8080"),
                "agent URL must look like http://host:port, was 'http://a b:8080' (illegal character in authority)");
        assertRefused(b -> b.agentUrls("http://[::1"), "agent URL must look like http://host:port, was 'http://[::1'"
                + " (expected closing bracket for IPv6 address)");
        assertThat(ProxyConfig.builder().agentUrls("http://[::1]:80", "http://H:0081/").build().agentUrls())
                .containsExactly("http://[::1]:80", "http://H:81");
        assertRefused(b -> b.agentUrls("http://h:81", "http://h:0081"), "agentUrls must be distinct, http://h:81 appears twice");
    }

    @Test
    void toBuilderCopiesEveryField() {
        ProxyConfig config = ProxyConfig.builder().port(1).host("127.0.0.1").agentUrls("http://b:2").strategy("ch")
                .connectTimeoutMs(3).requestTimeoutMs(4).build();

        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
    }

    @Test
    void toBuilderRoundTripsNamedAndUnnamedAgents() {
        ProxyConfig config = ProxyConfig.builder().port(2).host(" 127.0.0.1 ").strategy(" CH ")
                .agentUrls("B1=http://b:1/", "http://c:2", "B3=http://d:3").connectTimeoutMs(5).requestTimeoutMs(6)
                .firstByteTimeoutMs(7).idleTimeoutMs(8).maxBodyBytes(9).clientTimeoutMs(10).build();

        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
        assertThat(config.agentNames()).containsExactly(entry("http://b:1", "B1"), entry("http://d:3", "B3"));
        assertThat(ProxyConfig.ofDefaults().toBuilder().build().agentNames()).isEqualTo(ProxyConfig.DEFAULT_AGENT_NAMES);
    }

    @Test
    void theCanonicalConstructorChecksAndNormalizesAsTheSettersDo() {
        ProxyConfig d = ProxyConfig.ofDefaults();

        assertThat(new ProxyConfig(d.port(), d.agentUrls(), d.agentNames(), d.strategy(), d.host(),
                d.connectTimeoutMs(), d.requestTimeoutMs(), d.firstByteTimeoutMs(), d.idleTimeoutMs(),
                d.maxBodyBytes(), d.clientTimeoutMs())).isEqualTo(d);
        ProxyConfig normalized = new ProxyConfig(d.port(), List.of("http://b:1/", "http://c:2"),
                Map.of("http://b:1/", "B1"), "LR", " 127.0.0.1", d.connectTimeoutMs(), d.requestTimeoutMs(),
                d.firstByteTimeoutMs(), d.idleTimeoutMs(), d.maxBodyBytes(), d.clientTimeoutMs());
        assertThat(normalized).isEqualTo(ProxyConfig.builder().agentUrls("B1=http://b:1", "http://c:2")
                .strategy("lr").host("127.0.0.1").build());
        assertThatThrownBy(() -> new ProxyConfig(d.port(), d.agentUrls(), d.agentNames(), d.strategy(), d.host(),
                0, d.requestTimeoutMs(), d.firstByteTimeoutMs(), d.idleTimeoutMs(), d.maxBodyBytes(),
                d.clientTimeoutMs())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connectTimeoutMs must be >= 1, was 0");
        assertThatThrownBy(() -> new ProxyConfig(d.port(), List.of("http://b:1"), Map.of("http://c:2", "C"),
                d.strategy(), d.host(), d.connectTimeoutMs(), d.requestTimeoutMs(), d.firstByteTimeoutMs(),
                d.idleTimeoutMs(), d.maxBodyBytes(), d.clientTimeoutMs())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentNames must name agents of agentUrls [http://b:1], was {http://c:2=C}");
        assertThatThrownBy(() -> new ProxyConfig(d.port(), d.agentUrls(), Map.of(d.agentUrls().get(0), "A 1"),
                d.strategy(), d.host(), d.connectTimeoutMs(), d.requestTimeoutMs(), d.firstByteTimeoutMs(),
                d.idleTimeoutMs(), d.maxBodyBytes(), d.clientTimeoutMs())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent name must be a non-blank word, was 'A 1'");
    }
}
