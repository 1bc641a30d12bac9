package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

class LoadBalancerMetricsTest extends CamelTestSupport {

    private final AgentRoutesFixture fixture = new AgentRoutesFixture();
    private final RoundRobinLB balancer = new RoundRobinLB();
    private final AdaptiveVirtualNodeLB adaptive = new AdaptiveVirtualNodeLB();
    private final RoundRobinLB second = new RoundRobinLB();

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        return new RoutesBuilder[] {fixture.agents(),
            AgentRoutesFixture.balanced("direct:start", balancer, AgentRoutesFixture.AGENTS),
            AgentRoutesFixture.balanced("direct:adaptive", adaptive, AgentRoutesFixture.AGENTS),
            AgentRoutesFixture.balanced("direct:second", second, AgentRoutesFixture.AGENTS)};
    }

    @Test
    void attemptsAreTimedPerAgentAndOutcome() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        fixture.down.add("A2");
        for (int i = 0; i < 3; i++) {
            template.requestBody("direct:start", "ping", String.class);
        }
        // A1, then A2 refused (and ejected) and the rotation's next turn A3, then A1
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("strategy", "rr", "agent", "direct://a1", "outcome", "success").timer().count()).isEqualTo(2);
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("agent", "direct://a2", "outcome", "failed_before_send").timer().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("agent", "direct://a3", "outcome", "success").timer().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.EJECTIONS).tags("agent", "direct://a2").counter().count())
                .isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.EJECTED).tags("agent", "direct://a2").gauge().value()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.EJECTED).tags("agent", "direct://a1").gauge().value()).isEqualTo(0);
        assertThat(registry.get(LoadBalancerMetrics.AGENTS).gauge().value()).isEqualTo(3.0);
    }

    /**
     * An agent's ejection counter is there at 0 from the first scrape: a counter that first appears
     * at 1 hides its first ejection from Prometheus' increase() and rate(), and alerts miss it.
     */
    @Test
    void everyAgentsEjectionCounterIsThereAtZeroBeforeItsFirstEjection() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        for (String agent : List.of("direct://a1", "direct://a2", "direct://a3")) {
            assertThat(registry.find(LoadBalancerMetrics.EJECTIONS).tags("strategy", "rr", "agent", agent).counter())
                    .as(agent).isNotNull().extracting(Counter::count).isEqualTo(0.0);
        }
        fixture.down.add("A2");
        for (int i = 0; i < 3; i++) {
            template.requestBody("direct:start", "ping", String.class);
        }
        assertThat(registry.get(LoadBalancerMetrics.EJECTIONS).tags("agent", "direct://a2").counter().count()).isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.EJECTIONS).tags("agent", "direct://a1").counter().count()).isZero();
    }

    @Test
    void anExceptionAnswerKeepsTheOutcomeTagError() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        fixture.broken.add("A1");
        template.request("direct:start", e -> e.getIn().setBody("ping"));
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                .tags("strategy", "rr", "agent", "direct://a1", "outcome", "error").timer().count()).isEqualTo(1);
    }

    @Test
    void strategyStateIsExposedAsGaugesPerAgent() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(adaptive).bindTo(registry);
        template.requestBodyAndHeader("direct:adaptive", "ping", "user_id", "42", String.class);
        for (String agent : AgentRoutesFixture.AGENTS) {
            String id = AgentRoutesFixture.agentId(agent);
            assertThat(registry.get(LoadBalancerMetrics.AGENT_PREFIX + "virtual.nodes")
                    .tags("strategy", "avn", "agent", id).gauge().value())
                    .isEqualTo(adaptive.getVirtualNodesByAgent().get(id).doubleValue());
        }
        assertThat(registry.get(LoadBalancerMetrics.PREFIX + "imbalance.index").gauge().value())
                .isEqualTo(adaptive.getImbalanceIndex());
    }

    @Test
    void eachRegistryBoundGetsItsOwnMetersAndEachAttemptOnce() {
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        LoadBalancerMetrics metrics = new LoadBalancerMetrics(balancer);
        metrics.bindTo(first);
        metrics.bindTo(second);

        for (int i = 0; i < 3; i++) {
            template.requestBody("direct:start", "ping", String.class);
        }

        for (SimpleMeterRegistry registry : List.of(first, second)) {
            for (String agent : AgentRoutesFixture.AGENTS) {
                assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS)
                        .tags("agent", AgentRoutesFixture.agentId(agent), "outcome", "success").timer().count())
                        .isEqualTo(1);
                assertThat(registry.get(LoadBalancerMetrics.EJECTED)
                        .tags("agent", AgentRoutesFixture.agentId(agent)).gauge().value()).isEqualTo(0);
            }
            assertThat(registry.get(LoadBalancerMetrics.AGENTS).gauge().value()).isEqualTo(3.0);
        }
    }

    /**
     * Two balancers of one strategy in one registry: without tags of their own their series were one
     * (counts added up, a gauge of the second dropped with Micrometer's WARN), and one's membership
     * change removed the other's series; now the second binding is refused, and tags keep them apart.
     */
    @Test
    void twoBalancersOfOneStrategyInOneRegistryNeedTagsOfTheirOwn() {
        SimpleMeterRegistry shared = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(shared);
        assertThatThrownBy(() -> new LoadBalancerMetrics(second).bindTo(shared)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("registry already holds a balancer's meters tagged [tag(strategy=rr)]: give each"
                        + " balancer tags of its own");

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer, Tags.of("route", "r1")).bindTo(registry);
        new LoadBalancerMetrics(second, Tags.of("route", "r2")).bindTo(registry);
        template.requestBody("direct:start", "ping", String.class);
        for (int i = 0; i < 3; i++) {
            template.requestBody("direct:second", "ping", String.class);
        }
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS).tags("route", "r1", "agent", "direct://a1").timer().count())
                .isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.ATTEMPTS).tags("route", "r2", "agent", "direct://a1").timer().count())
                .isEqualTo(1);
        assertThat(registry.get(LoadBalancerMetrics.AGENTS).tags("route", "r2").gauge().value()).isEqualTo(3.0);
        second.removeAgent("direct://a1");
        assertThat(registry.find(LoadBalancerMetrics.EJECTIONS).tags("route", "r2", "agent", "direct://a1").counter())
                .as("r2's a1 series gone with it").isNull();
        assertThat(registry.find(LoadBalancerMetrics.EJECTIONS).tags("route", "r1", "agent", "direct://a1").counter())
                .as("r1's stays").isNotNull();
    }

    @Test
    void everyMeterHasADescription() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(adaptive).bindTo(registry);
        new LoadBalancerMetrics(balancer).bindTo(registry);
        fixture.down.add("A2");
        for (int i = 0; i < 3; i++) {
            template.requestBody("direct:start", "ping", String.class);
            template.requestBodyAndHeader("direct:adaptive", "ping", "user_id", "42", String.class);
        }

        assertThat(registry.getMeters()).extracting(m -> m.getId().getName())
                .contains(LoadBalancerMetrics.ATTEMPTS, LoadBalancerMetrics.EJECTIONS, LoadBalancerMetrics.EJECTED,
                        LoadBalancerMetrics.AGENTS, LoadBalancerMetrics.AGENT_PREFIX + "virtual.nodes",
                        LoadBalancerMetrics.PREFIX + "imbalance.index", LoadBalancerMetrics.PREFIX + "reallocations");
        assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getDescription())
                .as(m.getId().getName()).isNotBlank());
    }

    /** What an operator reads in Prometheus's HELP says what the meter counts: health checks' mark-downs too. */
    @Test
    void theEjectionMetersSayTheyCountHealthCheckMarkDownsToo() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(balancer).bindTo(registry);
        assertThat(registry.get(LoadBalancerMetrics.EJECTED).tags("agent", "direct://a1").gauge().getId().getDescription())
                .isEqualTo("1 while the agent is ejected, on trial or marked down by health checks, else 0");
        assertThat(registry.get(LoadBalancerMetrics.EJECTIONS).tags("agent", "direct://a1").counter().getId().getDescription())
                .isEqualTo("Outlier ejections and health-check mark-downs of the agent");
    }

    @Test
    void metersOfAnAgentThatLeavesAreRemovedAndAJoiningAgentGetsThemAtOnce() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LoadBalancerMetrics(adaptive).bindTo(registry);
        template.requestBodyAndHeader("direct:adaptive", "ping", "user_id", "42", String.class);
        String a3 = AgentRoutesFixture.agentId("A3");
        var a3Child = adaptive.getProcessors().stream()
                .filter(p -> AgentLoadBalancerSupport.agentIdOf(p).equals(a3)).findFirst().orElseThrow();

        adaptive.removeProcessor(a3Child);

        assertThat(registry.getMeters()).noneMatch(m -> a3.equals(m.getId().getTag("agent")));
        assertThat(registry.get(LoadBalancerMetrics.AGENT_PREFIX + "virtual.nodes").gauges()).hasSize(2);

        adaptive.addProcessor((org.apache.camel.AsyncProcessor) a3Child);

        List<Meter> a3Meters = registry.getMeters().stream().filter(m -> a3.equals(m.getId().getTag("agent"))).toList();
        assertThat(a3Meters).extracting(m -> m.getId().getName())
                .containsExactlyInAnyOrder(LoadBalancerMetrics.EJECTED, LoadBalancerMetrics.EJECTIONS,
                        LoadBalancerMetrics.AGENT_PREFIX + "virtual.nodes");
        assertThat(registry.get(LoadBalancerMetrics.AGENT_PREFIX + "virtual.nodes").tags("agent", a3).gauge().value())
                .isEqualTo(adaptive.getVirtualNodesByAgent().get(a3).doubleValue());
    }
}
