package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.core.health.OutlierEjection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxySettingsTest {

    @Test
    void unsetSettingsAreTheDefaults() {
        ProxySettings settings = new ProxySettings();
        RoundRobinLB balancer = settings.configure(new RoundRobinLB());

        assertThat(settings.toConfig()).isEqualTo(ProxyConfig.ofDefaults());
        assertThat(settings.getAgents()).isNull();
        assertThat(balancer.getOutlierEjection()).isEqualTo(OutlierEjection.ofDefaults());
        assertThat(balancer.getMaximumFailoverAttempts()).isEqualTo(-1);
    }

    @Test
    void agentsAreSplitTrimmedAndMayBeNamed() {
        ProxySettings settings = new ProxySettings();
        settings.setAgents("A1=http://127.0.0.1:18081/, ,http://127.0.0.1:18082,A3 = http://127.0.0.1:18083/");
        settings.setStrategy("CH");
        ProxyConfig config = settings.toConfig();

        assertThat(config.agentUrls())
                .containsExactly("http://127.0.0.1:18081", "http://127.0.0.1:18082", "http://127.0.0.1:18083");
        assertThat(config.agentNames()).containsExactly(
                Map.entry("http://127.0.0.1:18081", "A1"), Map.entry("http://127.0.0.1:18083", "A3"));
        assertThat(config.strategy()).isEqualTo("ch");
    }

    @Test
    void ejectionAndFailoverKnobsReachTheBalancer() {
        ProxySettings settings = new ProxySettings();
        settings.setConsecutiveFailures(3);
        settings.setBaseEjectionTimeMs(2_000L);
        settings.setMaxEjectionTimeMs(60_000L);
        settings.setMaxEjectedShare(0.5);
        settings.setMaximumFailoverAttempts(1);
        RoundRobinLB balancer = settings.configure(new RoundRobinLB());

        assertThat(balancer.getOutlierEjection()).isEqualTo(OutlierEjection.custom().consecutiveFailures(3)
                .baseEjectionTime(Duration.ofSeconds(2)).maxEjectionTime(Duration.ofSeconds(60))
                .maxEjectedShare(0.5).build());
        assertThat(balancer.getMaximumFailoverAttempts()).isEqualTo(1);
    }

    @Test
    void badValuesNameTheVariable() {
        ProxySettings badShare = new ProxySettings();
        badShare.setMaxEjectedShare(1.5);
        assertThatThrownBy(() -> badShare.configure(new RoundRobinLB()))
                .hasMessageStartingWith("MAX_EJECTED_SHARE: maxEjectedShare").hasMessageContaining("1.5");
        ProxySettings badTimes = new ProxySettings();
        badTimes.setMaxEjectionTimeMs(1_000L);
        assertThatThrownBy(() -> badTimes.configure(new RoundRobinLB()))
                .hasMessageStartingWith("BASE_EJECTION_TIME_MS, MAX_EJECTION_TIME_MS: maxEjectionTime must be >= baseEjectionTime");
        ProxySettings badAttempts = new ProxySettings();
        badAttempts.setMaximumFailoverAttempts(-2);
        assertThatThrownBy(() -> badAttempts.configure(new RoundRobinLB()))
                .hasMessage("MAXIMUM_FAILOVER_ATTEMPTS: maximumFailoverAttempts must be >= -1, was -2");
        ProxySettings badPort = new ProxySettings();
        badPort.setPort(70000);
        assertThatThrownBy(badPort::toConfig).hasMessage("PORT: port must be in 0..65535, was 70000");
        ProxySettings badAgents = new ProxySettings();
        badAgents.setAgents(" , ");
        assertThatThrownBy(badAgents::toConfig).hasMessageStartingWith("AGENTS: agentUrls must not be empty");
    }
}
