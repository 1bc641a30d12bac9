package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.core.ring.HashRing;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Both strategies over real HTTP: three stub agents and the proxy on free loopback ports. */
@Tag("e2e")
@Timeout(60)
class ProxyBalancingTest {

    private final Http http = new Http();

    @Test
    void roundRobinVisitsTheAgentsInTurn() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2); DemoProxy proxy = Proxies.start(agents.urls(), "rr")) {
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r" + i + "?user_id=" + i);
                assertThat(response.statusCode()).isEqualTo(200);
                seen.add(Http.agentId(response));
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                expected.add("A" + (i % 3 + 1));
            }
            assertThat(seen).isEqualTo(expected);
        }
    }

    @Test
    void camelRoundRobinBaselineRunsCamelsOwnBalancerInTheSameRoute() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2); DemoProxy proxy = Proxies.start(agents.urls(), "camel-rr")) {
            assertThat(proxy.balancer()).isNull();
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r" + i + "?user_id=7");
                assertThat(response.statusCode()).isEqualTo(200);
                seen.add(Http.agentId(response));
            }
            assertThat(seen).containsExactly("A1", "A2", "A3", "A1", "A2", "A3", "A1", "A2", "A3");
        }
    }

    @Test
    void aSuppliedBalancerWithOtherSettingsIsTheOneThatRuns() throws Exception {
        PidWeightsConfig fast = PidWeightsConfig.custom().controlPeriod(Duration.ofMillis(250)).build();
        ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).strategy("pid").build();
        try (Agents agents = Agents.start(3, 0, 2);
             DemoProxy proxy = DemoProxy.start(config.toBuilder().agentUrls(agents.urls()).build(),
                     () -> new PidWeightedLB(fast))) {
            assertThat(((PidWeightedLB) proxy.balancer()).getConfig()).isSameAs(fast);
            assertThat(http.get(proxy.baseUrl() + "/process/r1?user_id=1").statusCode()).isEqualTo(200);
        }
        assertThatThrownBy(() -> DemoProxy.start(config, RoundRobinLB::new))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("balancer must be strategy 'pid' as configured, was 'rr'");
    }

    @Test
    void namedAgentsKeepTheirUsersWhateverTheirPorts() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2);
             DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0).strategy("ch")
                     .agentUrls(List.of("A1=" + agents.urls().get(0), "A2=" + agents.urls().get(1),
                             "A3=" + agents.urls().get(2))).build())) {
            assertThat(proxy.balancer().getAgentIds()).containsExactly("A1", "A2", "A3");
            // The ring of the names alone, as in any other run on any other ports.
            HashRing byName = HashRing.uniform(List.of("A1", "A2", "A3"), 150,
                    HashAlgorithm.MD5);
            for (int user = 1; user <= 30; user++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r" + user + "?user_id=" + user);
                assertThat(Http.agentId(response)).as("user %d", user).isEqualTo(byName.agentFor(Integer.toString(user)));
            }
        }
    }

    @Test
    void consistentHashingSendsOneUserToOneAgent() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2); DemoProxy proxy = Proxies.start(agents.urls(), "ch")) {
            HashRing ring = ((ConsistentHashLB) proxy.balancer()).ring();
            String owner = agents.idOf(agentUrl(proxy, ring.agentFor("42")));
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/r" + i + "?user_id=42");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(Http.agentId(response)).isEqualTo(owner);
            }
        }
    }

    @Test
    void stoppingAnAgentMovesOnlyItsUsersToTheNextAgentOnTheRing() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2); DemoProxy proxy = Proxies.start(agents.urls(), "ch")) {
            HashRing ring = ((ConsistentHashLB) proxy.balancer()).ring();
            int users = 60;
            Map<Integer, String> before = new HashMap<>();
            for (int user = 1; user <= users; user++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/b" + user + "?user_id=" + user);
                assertThat(response.statusCode()).isEqualTo(200);
                before.put(user, Http.agentId(response));
                assertThat(before.get(user)).isEqualTo(agents.idOf(agentUrl(proxy, ring.agentFor(String.valueOf(user)))));
            }
            String stopped = agents.get(1).config().agentId();
            assertThat(before).containsValue(stopped);
            agents.get(1).close();

            for (int user = 1; user <= users; user++) {
                HttpResponse<String> response = http.get(proxy.baseUrl() + "/process/a" + user + "?user_id=" + user);
                assertThat(response.statusCode()).as("user %d", user).isEqualTo(200);
                String expected = before.get(user);
                if (expected.equals(stopped)) {
                    Iterator<String> clockwise = ring.agentsClockwise(ring.hash(String.valueOf(user)));
                    clockwise.next();
                    expected = agents.idOf(agentUrl(proxy, clockwise.next()));
                }
                assertThat(Http.agentId(response)).as("user %d", user).isEqualTo(expected);
            }
        }
    }

    /** The base URL behind a balancer agent id (the endpoint URI of the child). */
    private static String agentUrl(DemoProxy proxy, String agentId) {
        String url = agentId.startsWith("netty-http:") ? agentId.substring("netty-http:".length()) : agentId;
        assertThat(proxy.config().agentUrls()).contains(url);
        return url;
    }
}
