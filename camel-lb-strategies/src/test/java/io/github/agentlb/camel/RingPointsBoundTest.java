package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.hash.HashAlgorithm;
import java.util.HashMap;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PropertyBindingSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ch} gives an agent {@code round(virtualNodes x weight)} points on its ring: a setter that
 * would take one agent past {@value BalancerConfig.Ring#MAX_POINTS_PER_AGENT} points is refused,
 * naming both knobs, the agent and the values, and nothing changes.
 */
class RingPointsBoundTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static final String REFUSED = "virtualNodes x weight of agent A1 must be <= 1000000 ring points,"
            + " was 10000 x 1000.0";

    private static ConsistentHashLB started(String... agents) {
        return ScriptedChild.startedAgents(new ConsistentHashLB(), CAMEL.get(), () -> 0L, ScriptedChild::naming, agents);
    }

    @Test
    void anAgentsPointsAreVirtualNodesTimesItsWeightRoundedAndAtMostAMillion() {
        BalancerConfig.Ring ring = new BalancerConfig.Ring(10_000, HashAlgorithm.MD5);
        assertThat(ring.pointsOf("A1", 100.0)).isEqualTo(1_000_000);
        assertThat(ring.pointsOf("A1", 0.00001)).isEqualTo(1);
        assertThat(ring.pointsOf("A1", 2.5)).isEqualTo(25_000);
        assertThatThrownBy(() -> ring.pointsOf("A1", 100.00005)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("virtualNodes x weight of agent A1 must be <= 1000000 ring points, was 10000 x 100.00005");
        assertThat(BalancerConfig.Ring.DEFAULT.pointsOf("A1", 1000.0)).as("the default at the largest weight")
                .isEqualTo(150_000);
    }

    @Test
    void aWeightThatWouldPassTheBoundIsRefusedAndTheRingStays() {
        ConsistentHashLB ch = started("A1", "A2");
        ch.setVirtualNodes(10_000);
        assertThatThrownBy(() -> ch.setAgentWeight("A1", 1000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(REFUSED);
        assertThat(ch.ring().virtualNodes()).isEqualTo(Map.of("A1", 10_000, "A2", 10_000));
        assertThat(ch.agentMetrics().get("weight")).isEqualTo(Map.of("A1", 1.0, "A2", 1.0));
    }

    @Test
    void virtualNodesThatWouldPassTheBoundWithAWeightAreRefusedAndStay() {
        ConsistentHashLB ch = started("A1", "A2");
        ch.setAgentWeight("A1", 1000);
        assertThat(ch.ring().virtualNodes()).isEqualTo(Map.of("A1", 150_000, "A2", 150));
        assertThatThrownBy(() -> ch.setVirtualNodes(10_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(REFUSED);
        assertThat(ch.getVirtualNodes()).isEqualTo(150);
        assertThat(ch.ring().virtualNodes()).isEqualTo(Map.of("A1", 150_000, "A2", 150));
    }

    @Test
    void anAgentAddedWithAWeightThatWouldPassTheBoundIsRefusedAndNotAdded() {
        ConsistentHashLB ch = started("A2");
        ch.setVirtualNodes(10_000);
        assertThatThrownBy(() -> ch.addAgent("A1", ScriptedChild.naming("A1"), 1000))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(REFUSED);
        assertThat(ch.balancerState().members()).containsExactly("A2");
    }

    @Test
    void aRingPastAMillionPointsInAllHasEachAgentsPointsScaledDownToFitAsEnvoysMaximumRingSize() {
        // 44 agents of weight 1000 (an SRV fleet's weights) made 6,600,000 points: the proxy ran out of
        // a 256 MB heap building the ring, or stalled every request for seconds at each change. The
        // same rule, at a cost a test can pay: 3 agents of 400,000 points.
        ConsistentHashLB ch = started("A1", "A2", "A3");
        ch.setVirtualNodes(10_000);
        ch.setAgentWeight("A1", 40);
        ch.setAgentWeight("A2", 40);
        assertThat(ch.ring().virtualNodes()).as("under the bound: virtualNodes x weight")
                .isEqualTo(Map.of("A1", 400_000, "A2", 400_000, "A3", 10_000));
        ch.setAgentWeight("A3", 40); // 1,200,000 in all
        assertThat(ch.ring().virtualNodes()).isEqualTo(Map.of("A1", 333_333, "A2", 333_333, "A3", 333_333));
        assertThat(ch.ring().size()).isEqualTo(999_999);
        ch.setAgentWeight("A1", 30); // 1,100,000 in all: floor(points x 1,000,000 / 1,100,000)
        assertThat(ch.ring().virtualNodes()).isEqualTo(Map.of("A1", 272_727, "A2", 363_636, "A3", 363_636));
    }

    @Test
    void otherStrategiesHaveNoRingAndTakeTheLargestWeight() {
        RoundRobinLB rr = ScriptedChild.startedAgents(new RoundRobinLB(), CAMEL.get(), () -> 0L, ScriptedChild::naming, "A1");
        rr.setAgentWeight("A1", 1000);
        assertThat(rr.balancerState().weights()).isEqualTo(Map.of("A1", 1000.0));
    }

    @Test
    void virtualNodesBoundAsPropertiesAreRefusedWithTheSameMessage() throws Exception {
        ConsistentHashLB ch = new ConsistentHashLB();
        try (CamelContext context = new DefaultCamelContext()) {
            RouteBuilder.addRoutes(context, rb -> rb.from("direct:start").loadBalance(ch).to("direct:a2"));
            ch.addAgent("A1", ScriptedChild.naming("A1"), 1000);
            assertThatThrownBy(() -> {
                PropertyBindingSupport.build().bind(context, ch, new HashMap<>(Map.of("virtualNodes", "10000")));
                context.start();
            }).rootCause().isInstanceOf(IllegalArgumentException.class).hasMessage(REFUSED);
        }
    }
}
