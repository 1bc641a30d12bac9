package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.bounded.BoundedLoad;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

/**
 * Bounded loads in the two ring strategies, on the hot-key workload (user 0 sends 20% of
 * 2,000 requests, users 1..200 the rest, shuffled with {@code Random(1)}), one request every
 * 10 ms of an injected clock, sent one after another. Agents are named A1..A3, so the ring is the
 * one of {@code core.bounded.HotKeySimulation} and the figures are that simulation's.
 */
class BoundedLoadLBTest extends CamelTestSupport {

    private final AgentRoutesFixture fixture = new AgentRoutesFixture();
    /** Measured with HotKeySimulation (two replicas, seed 1, 2,000 requests): 15 of the 199 keys both saw differ. */
    private static final double PAIR_STICKINESS = 0.880;
    private static final double PAIR_DISAGREEMENT = 15 / 199.0;

    private final AtomicLong clock = new AtomicLong();
    private final ConsistentHashLB bounded = Balancers.with(new ConsistentHashLB(), lb -> lb.setBoundedLoad(BoundedLoad.ofDefaults()));
    private final ConsistentHashLB plainRing = new ConsistentHashLB();
    private final ConsistentHashLB replica1 = Balancers.with(new ConsistentHashLB(), lb -> lb.setBoundedLoad(BoundedLoad.ofDefaults()));
    private final ConsistentHashLB replica2 = Balancers.with(new ConsistentHashLB(), lb -> lb.setBoundedLoad(BoundedLoad.ofDefaults()));
    private final AdaptiveVirtualNodeLB avn = Balancers.with(new AdaptiveVirtualNodeLB(), lb -> lb.setBoundedLoad(BoundedLoad.ofDefaults()));

    {
        for (AgentLoadBalancerSupport balancer : List.of(bounded, plainRing, replica1, replica2, avn)) {
            balancer.useNanoClock(clock::get);
            for (String agent : AgentRoutesFixture.AGENTS) {
                balancer.nameAgent(AgentRoutesFixture.uri(agent), agent);
            }
        }
    }

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        return new RoutesBuilder[] {fixture.agents(),
            AgentRoutesFixture.balanced("direct:bounded", bounded, AgentRoutesFixture.AGENTS),
            AgentRoutesFixture.balanced("direct:ring", plainRing, AgentRoutesFixture.AGENTS),
            AgentRoutesFixture.balanced("direct:replica1", replica1, AgentRoutesFixture.AGENTS),
            AgentRoutesFixture.balanced("direct:replica2", replica2, AgentRoutesFixture.AGENTS),
            AgentRoutesFixture.balanced("direct:avn", avn, AgentRoutesFixture.AGENTS)};
    }

    private static List<String> workload() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            keys.add(i < 400 ? "0" : Integer.toString((i - 400) % 200 + 1));
        }
        Collections.shuffle(keys, new Random(1));
        return keys;
    }

    /**
     * Sends the workload, request i to {@code endpoints[i % n]}; returns each key's agents per
     * request, in order (so with two endpoints, even places are the first's, odd the second's).
     */
    private Map<String, List<String>> replay(String... endpoints) {
        Map<String, List<String>> agents = new TreeMap<>();
        Map<String, Integer> firstEndpoint = new TreeMap<>();
        List<String> keys = workload();
        for (int i = 0; i < keys.size(); i++) {
            clock.set(i * 10_000_000L);
            String agent = template.requestBodyAndHeader(endpoints[i % endpoints.length], "ping", "user_id", keys.get(i),
                    String.class);
            agents.computeIfAbsent(keys.get(i), k -> new ArrayList<>()).add(i % endpoints.length + ":" + agent);
        }
        return agents;
    }

    /** The share of keys whose last agent differs between replica 0 and replica 1. */
    private static double lastAgentsDisagree(Map<String, List<String>> agents) {
        long both = 0;
        long differ = 0;
        for (List<String> list : agents.values()) {
            String last0 = null;
            String last1 = null;
            for (String entry : list) {
                if (entry.startsWith("0:")) {
                    last0 = entry.substring(2);
                } else {
                    last1 = entry.substring(2);
                }
            }
            if (last0 != null && last1 != null) {
                both++;
                differ += last0.equals(last1) ? 0 : 1;
            }
        }
        return (double) differ / both;
    }

    private static Map<String, Integer> requestsPerAgent(Map<String, List<String>> agents) {
        Map<String, Integer> counts = new TreeMap<>();
        agents.values().forEach(list -> list.forEach(entry -> counts.merge(agentOf(entry), 1, Integer::sum)));
        return counts;
    }

    private static String agentOf(String entry) {
        return entry.substring(entry.indexOf(':') + 1);
    }

    private static Set<String> agentsOf(List<String> entries) {
        Set<String> agents = new HashSet<>();
        entries.forEach(entry -> agents.add(agentOf(entry)));
        return agents;
    }

    private static double stickinessOfOthers(Map<String, List<String>> agents) {
        long sticky = agents.entrySet().stream().filter(e -> !e.getKey().equals("0"))
                .filter(e -> agentsOf(e.getValue()).size() == 1).count();
        return sticky / 200.0;
    }

    @Test
    void boundedLoadsAreOffByDefaultAndTheBalanceFactorIsAJavaBeanProperty() {
        ConsistentHashLB lb = new ConsistentHashLB();
        assertThat(lb.getBalanceFactor()).isZero();
        assertThat(lb.getBoundedLoad().isEnabled()).isFalse();
        assertThat(lb.balancerState().boundedLoads()).isNull();
        lb.setBalanceFactor(1.3);
        assertThat(lb.getBoundedLoad()).isEqualTo(BoundedLoad.custom().balanceFactor(1.3).build());
        lb.setBoundedLoad(BoundedLoad.custom().decayTime(Duration.ofSeconds(2)).build());
        lb.setBalanceFactor(1.5);
        assertThat(lb.getBoundedLoad().decayTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(lb.getBalanceFactor()).isEqualTo(1.5);
        assertThatThrownBy(() -> lb.setBalanceFactor(1.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("balanceFactor must be finite and > 1, was 1.0");
        assertThat(lb.getBalanceFactor()).isEqualTo(1.5);
        lb.setBalanceFactor(0);
        assertThat(lb.getBoundedLoad()).isEqualTo(BoundedLoad.disabled());
        assertThat(new AdaptiveVirtualNodeLB().getBalanceFactor()).isZero();
    }

    @Test
    void theHotUsersAgentIsBoundedWhileTheHotUserStaysOnOneAgent() {
        Map<String, List<String>> ring = replay("direct:ring");
        Map<String, List<String>> ours = replay("direct:bounded");
        // The ring alone: ch without a bound, max/mean 960 / 666.7 = 1.440.
        assertThat(requestsPerAgent(ring)).isEqualTo(Map.of("A1", 512, "A2", 528, "A3", 960));
        // Bounded: the figures of HotKeySimulation (c = 1.25, seed 1): max/mean 1.172, stickiness 0.950.
        assertThat(requestsPerAgent(ours)).isEqualTo(Map.of("A1", 618, "A2", 601, "A3", 781));
        assertThat(agentsOf(ours.get("0"))).containsExactly("A3");
        assertThat(stickinessOfOthers(ours)).isEqualTo(0.950);
        assertThat(bounded.balancerState().boundedLoads().overflowedKeys()).isPositive();
    }

    @Test
    void twoReplicasSeeingAlternateRequestsAgreeOnTheHotUserAndNearlyAllOthers() {
        Map<String, List<String>> rings = replay("direct:ring", "direct:ring");
        assertThat(stickinessOfOthers(rings)).isEqualTo(1.0);
        Map<String, List<String>> pair = replay("direct:replica1", "direct:replica2");
        Set<String> hotAgents = agentsOf(pair.get("0"));
        assertThat(hotAgents).hasSize(1);
        Map<String, Integer> counts = requestsPerAgent(pair);
        assertThat(Collections.max(counts.values()) / (2000 / 3.0)).isLessThanOrEqualTo(1.25 + 0.01);
        // The figures of HotKeySimulation with two replicas (seed 1, 2,000 requests). Each replica
        // estimates the shares from its own half of the traffic, so they still disagree on a few
        // keys near their thresholds (fewer on long runs: BoundedLoadSimulationTest); the arrival-order rule gave 0.805 here and 14-19% of keys on
        // different agents on long runs.
        assertThat(stickinessOfOthers(pair)).isEqualTo(PAIR_STICKINESS);
        assertThat(lastAgentsDisagree(pair)).isEqualTo(PAIR_DISAGREEMENT);
    }

    @Test
    void avnWalksItsRingWithTheBoundToo() {
        Map<String, List<String>> ours = replay("direct:avn");
        Map<String, Integer> counts = requestsPerAgent(ours);
        assertThat(Collections.max(counts.values()) / (2000 / 3.0)).isLessThanOrEqualTo(1.25 + 0.01);
        assertThat(agentsOf(ours.get("0"))).hasSize(1);
        assertThat(avn.balancerState().boundedLoads().loads().keySet()).containsExactly("A1", "A2", "A3");
        assertThat(avn.balancerState().boundedLoads().overflowedKeys()).isPositive();
    }
}
