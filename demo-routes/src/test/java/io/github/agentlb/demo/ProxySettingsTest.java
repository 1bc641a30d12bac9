package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.camel.http.AgentTimeouts;
import io.github.agentlb.core.health.OutlierEjection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

class ProxySettingsTest {

    /** What {@link ProxySettings#toConfig()} throws for fresh settings with {@code knob} applied, to check. */
    private static AbstractThrowableAssert<?, ? extends Throwable> assertToConfigRefuses(Consumer<ProxySettings> knob) {
        ProxySettings settings = new ProxySettings();
        knob.accept(settings);
        return assertThatThrownBy(settings::toConfig);
    }

    @Test
    void theBaselineRefusesTheEjectionAndFailoverKnobsItHasNot() {
        ProxySettings settings = new ProxySettings();
        settings.refuseBalancerKnobs("camel-rr"); // none given
        settings.setConsecutiveFailures(0);
        settings.setMaximumFailoverAttempts(2);
        assertThatThrownBy(() -> settings.refuseBalancerKnobs("camel-rr")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Bad proxy configuration: CONSECUTIVE_FAILURES, MAXIMUM_FAILOVER_ATTEMPTS: STRATEGY=camel-rr"
                        + " is Camel's own balancer, which has none of these knobs");
    }

    @Test
    void theBaselineRefusesSlowStartToo() {
        ProxySettings settings = new ProxySettings();
        settings.setSlowStartMs(5000);
        assertThatThrownBy(() -> settings.refuseBalancerKnobs("camel-rr")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Bad proxy configuration: SLOW_START_MS: STRATEGY=camel-rr is Camel's own balancer, which has"
                        + " none of these knobs");
        assertThat(new ProxySettings().getSlowStartMs()).isEqualTo(30_000);
    }

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
    void aBadZooKeeperOrBalancerIdIsNamedAtOnce() {
        ProxySettings settings = new ProxySettings();
        settings.setZookeeper("127.0.0.1:notaport");
        assertThatThrownBy(() -> settings.sharedAdaptiveBalancer("avn")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ZOOKEEPER: connectString must be host:port")
                .hasMessageEndingWith("was '127.0.0.1:notaport'");
        settings.setZookeeper("127.0.0.1:2181");
        settings.setBalancerId("a/b");
        assertThatThrownBy(() -> settings.sharedAdaptiveBalancer("avn"))
                .hasMessage("BALANCER_ID: balancerId must not contain '/', was 'a/b'");
    }

    @Test
    void aBalancerIdWithoutZooKeeperIsRefused() {
        ProxySettings settings = new ProxySettings();
        assertThat(settings.sharedAdaptiveBalancer("avn")).isNull();
        settings.setBalancerId("tb");
        assertThatThrownBy(() -> settings.sharedAdaptiveBalancer("avn")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("BALANCER_ID: balancerId names an allocation shared through ZOOKEEPER, which is not set, was 'tb'");
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
        assertToConfigRefuses(s -> s.setPort(70000)).hasMessage("PORT: port must be in 0..65535, was 70000");
        assertToConfigRefuses(s -> s.setAgents(" , ")).hasMessageStartingWith("AGENTS: agentUrls must not be empty");
    }

    @Test
    void theAgentCallKnobsAreValidatedNamingTheVariable() {
        assertToConfigRefuses(s -> s.setFirstByteTimeoutMs(0))
                .hasMessage("FIRST_BYTE_TIMEOUT_MS: firstByteTimeoutMs must be >= 1, was 0");
        assertToConfigRefuses(s -> s.setIdleTimeoutMs(-5))
                .hasMessage("IDLE_TIMEOUT_MS: idleTimeoutMs must be >= 1, was -5");
        assertToConfigRefuses(s -> s.setRequestTimeoutMs(-1))
                .hasMessage("REQUEST_TIMEOUT_MS: requestTimeoutMs must be >= 0 (0 = none), was -1");
        assertToConfigRefuses(s -> s.setMaxBodyBytes(-1))
                .hasMessage("MAX_BODY_BYTES: maxBodyBytes must be >= 0, was -1");
        assertToConfigRefuses(s -> s.setClientTimeoutMs(0))
                .hasMessage("CLIENT_TIMEOUT_MS: clientTimeoutMs must be >= 1, was 0");
        ProxySettings good = new ProxySettings();
        good.setFirstByteTimeoutMs(20_000);
        good.setRequestTimeoutMs(180_000);
        assertThat(good.toConfig().timeouts()).isEqualTo(new AgentTimeouts(1_000, 20_000, 60_000, 180_000));
    }

    @Test
    void theDnsServerIsHostPortOrHostOnPort53() throws Exception {
        assertThat(ProxySettings.nameServer("127.0.0.1:5353")).isEqualTo(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 5353));
        assertThat(ProxySettings.nameServer("127.0.0.1")).isEqualTo(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 53));
        assertThat(ProxySettings.nameServer("[::1]:5353")).isEqualTo(new InetSocketAddress(InetAddress.getByName("::1"), 5353));
        assertThat(ProxySettings.nameServer("::1")).isEqualTo(new InetSocketAddress(InetAddress.getByName("::1"), 53));
        assertThat(ProxySettings.nameServer("[::1]")).isEqualTo(new InetSocketAddress(InetAddress.getByName("::1"), 53));
        assertThat(ProxySettings.nameServer("localhost:53").isUnresolved()).isFalse();
    }

    @Test
    void theDnsServerAndIpv6SettingsAreValidatedNamingTheVariableAndValue() {
        for (String bad : List.of("127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:", ":53", "127.0.0.1:dns", "", "[::1", "[::1]x")) {
            assertThat(dnsSettingsProblem(s -> s.setAgentsDnsServer(bad))).as(bad).isEqualTo("AGENTS_DNS_SERVER: agentsDnsServer "
                    + "must be host:port or host (port 53 by default), the port in 1..65535, was '" + bad + "'");
        }
        assertThat(dnsSettingsProblem(s -> s.setAgentsDnsServer("nonexistent.invalid:53"))).isEqualTo("AGENTS_DNS_SERVER: "
                + "agentsDnsServer's host must be an IP address or a name that resolves, was 'nonexistent.invalid:53'");
        assertThat(dnsSettingsProblem(s -> {
            s.setAgentsDns("_agent._tcp.agents.test");
            s.setAgentsDnsIpv6(false);
        })).isEqualTo("AGENTS_DNS_IPV6: agentsDnsIpv6 applies to an AGENTS_DNS of host:port (A and AAAA records), "
                + "was false for _agent._tcp.agents.test");

        ProxySettings withoutDns = new ProxySettings();
        withoutDns.setAgents("http://127.0.0.1:1");
        withoutDns.setAgentsDnsServer("127.0.0.1:5353");
        assertThatThrownBy(withoutDns::fleetSource).hasMessage("AGENTS_DNS_SERVER: agentsDnsServer is the name server "
                + "AGENTS_DNS is asked of, which is not set, was '127.0.0.1:5353'");
        ProxySettings ipv6WithoutDns = new ProxySettings();
        ipv6WithoutDns.setAgentsDnsIpv6(true);
        assertThatThrownBy(ipv6WithoutDns::fleetSource).hasMessage("AGENTS_DNS_IPV6: agentsDnsIpv6 applies to an "
                + "AGENTS_DNS of host:port (A and AAAA records), which is not set, was true");

        ProxySettings good = new ProxySettings();
        good.setAgentsDns("agents.test:42090");
        good.setAgentsDnsServer("127.0.0.1:45053");
        good.setAgentsDnsIpv6(false);
        assertThat(good.fleetSource().describe()).isEqualTo("dns:agents.test:42090");
    }

    /** The message of what {@link ProxySettings#fleetSource()} throws for {@code AGENTS_DNS=agents.test:42090} and {@code knob}. */
    private static String dnsSettingsProblem(Consumer<ProxySettings> knob) {
        ProxySettings settings = new ProxySettings();
        settings.setAgentsDns("agents.test:42090");
        knob.accept(settings);
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(settings::fleetSource);
        assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
        return thrown.getMessage();
    }

    /** What an operator mistypes is ignored as any unknown variable, and said with the variable meant. */
    @Test
    void aMistypedVariableIsSaidWithTheOneMeant() {
        assertThat(ProxySettings.BINDING.nearMisses(java.util.Map.of("STRATEGIE", "ch", "AGENT", "http://a:1",
                "CONSECUTIVE_FAILURE", "3", "DRAIN_TIMEOUT", "5", "MANAGEMENT_PROT", "9", "HOME", "/root", "STRATEGY", "rr"),
                DemoMain.OWN_VARIABLES, "the proxy")).containsExactly(
                "AGENT is no variable of the proxy and is ignored: AGENTS was meant?",
                "CONSECUTIVE_FAILURE is no variable of the proxy and is ignored: CONSECUTIVE_FAILURES was meant?",
                "DRAIN_TIMEOUT is no variable of the proxy and is ignored: DRAIN_TIMEOUT_S was meant?",
                "MANAGEMENT_PROT is no variable of the proxy and is ignored: MANAGEMENT_PORT was meant?",
                "STRATEGIE is no variable of the proxy and is ignored: STRATEGY was meant?");
    }

    /** Two membership sources at once: the message names the variables set, and no other. */
    @Test
    void twoMembershipSourcesAreNamedAsSet() {
        ProxySettings both = new ProxySettings();
        both.setAgents("http://127.0.0.1:1");
        both.setAgentsFile("agents.txt");
        assertThatThrownBy(both::fleetSource).hasMessage("Bad proxy configuration: set one of AGENTS, AGENTS_FILE and "
                + "AGENTS_DNS, was AGENTS=http://127.0.0.1:1 AGENTS_FILE=agents.txt");
    }
}
