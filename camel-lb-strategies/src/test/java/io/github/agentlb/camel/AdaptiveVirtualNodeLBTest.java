package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.ring.HashRing;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

class AdaptiveVirtualNodeLBTest extends CamelTestSupport {

    private static final String A = "direct://a";
    private static final String B = "direct://b";
    private static final String C = "direct://c";

    private final AdaptiveVirtualNodeLB balancer = Balancers.with(new AdaptiveVirtualNodeLB(), lb -> lb.setAvnConfig(
            AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).evaluationWindow(30).maxMovesPerEvaluation(1).build()));
    private final Map<String, String> cpuOf = new HashMap<>(Map.of("a", "0.10", "b", "0.10", "c", "0.10"));
    private final AtomicLong clock = new AtomicLong();

    {
        balancer.useNanoClock(clock::get);
    }

    private final AtomicBoolean bDown = new AtomicBoolean();

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        List<String> agents = List.of("a", "b", "c");
        return new RoutesBuilder[] {AgentRoutesFixture.balanced("direct:start", balancer, agents),
            AgentRoutesFixture.agents(agents, this::answer)};
    }

    private void answer(String agent, Exchange exchange) throws ConnectException {
        if (agent.equals("b") && bDown.get()) {
            throw new ConnectException("Connection refused");
        }
        exchange.getMessage().setBody(agent);
        exchange.getMessage().setHeader(AdaptiveVirtualNodeLB.CPU_HEADER, cpuOf.get(agent));
        exchange.getMessage().setHeader(AdaptiveVirtualNodeLB.MEMORY_HEADER, cpuOf.get(agent));
        exchange.getMessage().setHeader("X-Agent-Utilization", cpuOf.get(agent));
    }

    private Exchange send(String userId) {
        return template.send("direct:start", e -> {
            if (userId != null) {
                e.getIn().setHeader("user_id", userId);
            }
        });
    }

    private static String agentOf(Exchange answer) {
        return "direct://" + answer.getMessage().getBody(String.class);
    }

    /**
     * "Every option takes effect at once, before or after the start": a knob of the algorithm set
     * on a running balancer starts it afresh over the same agents (eq. (2) with the new
     * configuration), never over none (keys then went round the agents one by one).
     */
    @Test
    void anAlgorithmKnobSetAfterTheStartKeepsEveryAgentOnTheRing() {
        assertThat(balancer.getVirtualNodesByAgent()).containsOnlyKeys(A, B, C);

        balancer.setTotalVirtualNodes(30);

        assertThat(balancer.getVirtualNodesByAgent()).containsOnlyKeys(A, B, C);
        assertThat(balancer.getVirtualNodesByAgent().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(30);
        String home = agentOf(send("42"));
        for (int i = 0; i < 6; i++) {
            assertThat(agentOf(send("42"))).isEqualTo(home);
        }

        balancer.setImbalanceThreshold(0.3);
        balancer.setHashFunction("md5");

        assertThat(balancer.getVirtualNodesByAgent()).containsOnlyKeys(A, B, C);
        String after = agentOf(send("42"));
        for (int i = 0; i < 6; i++) {
            assertThat(agentOf(send("42"))).isEqualTo(after);
        }
    }

    @Test
    void aUserStaysWithTheOwnerOfItsKey() {
        HashRing ring = balancer.ring();
        assertThat(balancer.getVirtualNodesByAgent()).containsExactlyInAnyOrderEntriesOf(Map.of(A, 5, B, 5, C, 5));
        for (int round = 0; round < 3; round++) {
            for (int user = 1; user <= 9; user++) {
                Exchange answer = send(String.valueOf(user));
                assertThat(agentOf(answer)).as("user %d", user).isEqualTo(ring.agentFor(String.valueOf(user)));
            }
        }
    }

    @Test
    void loadHeadersAreReadAndRemovedOthersKept() {
        Exchange answer = send("42");
        assertThat(answer.getMessage().getHeaders()).doesNotContainKeys(AdaptiveVirtualNodeLB.CPU_HEADER,
                AdaptiveVirtualNodeLB.MEMORY_HEADER).containsKey("X-Agent-Utilization");
    }

    @Test
    void badLoadValuesAreIgnored() {
        cpuOf.put("a", "abc");
        cpuOf.put("b", "1.5");
        cpuOf.put("c", "-0.1");
        for (int user = 1; user <= 30; user++) {
            Exchange answer = send(String.valueOf(user));
            assertThat(answer.getException()).isNull();
            assertThat(answer.getMessage().getHeaders()).doesNotContainKey(AdaptiveVirtualNodeLB.CPU_HEADER);
        }
        assertThat(balancer.state().lastEvaluation()).hasValueSatisfying(e -> assertThat(e.usedUtilization()).isFalse());
    }

    @Test
    void anOverloadedAgentLosesOneVirtualNodeAndOnlyTwoArcsMove() {
        cpuOf.put("c", "0.90");
        HashRing before = balancer.ring();
        for (int user = 1; user <= 30; user++) {
            send(String.valueOf(user));
        }
        HashRing after = balancer.ring();
        assertThat(balancer.getReallocations()).isEqualTo(1);
        assertThat(balancer.getImbalanceIndex()).isGreaterThan(0.1);
        var move = balancer.state().lastEvaluation().orElseThrow().moves().get(0);
        assertThat(move.from()).isEqualTo(C);
        assertThat(after.virtualNodes().get(C)).isEqualTo(4);
        assertThat(after.virtualNodes().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(15);

        // Only keys on the donor's removed arc or the receiver's new arc change owner.
        long removed = before.hash(HashRing.label(C, 4));
        long added = after.hash(HashRing.label(move.to(), before.virtualNodes().get(move.to())));
        int moved = 0;
        for (int user = 1; user <= 10_000; user++) {
            String key = "user-" + user;
            String oldOwner = before.agentFor(key);
            String newOwner = after.agentFor(key);
            if (!oldOwner.equals(newOwner)) {
                moved++;
                long position = before.hash(key);
                boolean onRemovedArc = before.agentAt(position).equals(C) && owningPoint(before, position) == removed;
                boolean onAddedArc = owningPoint(after, position) == added;
                assertThat(onRemovedArc || onAddedArc).as("key %s moved %s -> %s", key, oldOwner, newOwner).isTrue();
            }
        }
        assertThat(moved).isPositive().isLessThan(10_000 * 3 / 15);

        // After the move, users keep the new owner of their key.
        for (int user = 1; user <= 9; user++) {
            assertThat(agentOf(send(String.valueOf(user)))).isEqualTo(after.agentFor(String.valueOf(user)));
        }
    }

    /** The ring point owning {@code position}: the first label hash at or after it, found by brute force. */
    private static long owningPoint(HashRing ring, long position) {
        long best = 0;
        long smallest = 0;
        boolean found = false;
        boolean any = false;
        for (Map.Entry<String, Integer> e : ring.virtualNodes().entrySet()) {
            for (int i = 0; i < e.getValue(); i++) {
                long p = ring.hash(HashRing.label(e.getKey(), i));
                if (!any || Long.compareUnsigned(p, smallest) < 0) {
                    smallest = p;
                    any = true;
                }
                if (Long.compareUnsigned(p, position) >= 0 && (!found || Long.compareUnsigned(p, best) < 0)) {
                    best = p;
                    found = true;
                }
            }
        }
        return found ? best : smallest;
    }

    @Test
    void aMissingKeyIsSpreadRoundRobin() {
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            agents.add(agentOf(send(null)));
        }
        assertThat(agents.subList(0, 3)).containsExactlyInAnyOrder(A, B, C);
        assertThat(agents.subList(3, 6)).isEqualTo(agents.subList(0, 3));
        assertThat(agentOf(send("  "))).isIn(A, B, C);
    }

    @Test
    void aDeadOwnerFailsOverToTheNextAgentClockwise() {
        HashRing ring = balancer.ring();
        String user = null;
        for (int u = 1; user == null; u++) {
            if (ring.agentFor(String.valueOf(u)).equals(B)) {
                user = String.valueOf(u);
            }
        }
        Iterator<String> clockwise = ring.agentsClockwise(ring.hash(user));
        assertThat(clockwise.next()).isEqualTo(B);
        String next = clockwise.next();

        bDown.set(true);
        Exchange answer = send(user);
        assertThat(answer.getException()).isNull();
        assertThat(agentOf(answer)).isEqualTo(next);

        bDown.set(false);
        assertThat(agentOf(send(user))).as("still ejected").isEqualTo(next);
        clock.addAndGet(OutlierEjection.DEFAULT_BASE_EJECTION_TIME.toNanos());
        assertThat(agentOf(send(user))).isEqualTo(B);
    }

    @Test
    void settersValidate() {
        assertThatThrownBy(() -> new AdaptiveVirtualNodeLB().setKeyHeader(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("keyHeader must not be blank, was ' '");
        assertThatThrownBy(() -> new AdaptiveVirtualNodeLB().startupUtilization(A, 1.2, 0.1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("cpu must be a fraction in [0, 1], was 1.2");
    }

    @Test
    void onceStartedRemovingAnAgentMovesNoKeyBetweenTheOthers() {
        assertThat(balancer.getVirtualNodesByAgent()).containsExactlyInAnyOrderEntriesOf(Map.of(A, 5, B, 5, C, 5));
        HashRing before = balancer.ring();
        org.apache.camel.AsyncProcessor c = balancer.getProcessors().stream()
                .filter(p -> AgentLoadBalancerSupport.agentIdOf(p).equals(C)).findFirst().orElseThrow();
        balancer.removeProcessor(c);
        assertThat(balancer.getVirtualNodesByAgent()).containsExactlyInAnyOrderEntriesOf(Map.of(A, 5, B, 5));
        int betweenOthers = 0;
        for (int key = 0; key < 100_000; key++) {
            String owner = before.agentFor(Integer.toString(key));
            betweenOthers += !owner.equals(C) && !owner.equals(balancer.ring().agentFor(Integer.toString(key))) ? 1 : 0;
        }
        assertThat(betweenOthers).isZero();

        balancer.addProcessor(c);
        assertThat(balancer.getVirtualNodesByAgent()).containsExactlyInAnyOrderEntriesOf(Map.of(A, 5, B, 5, C, 5));
        assertThat(agentOf(send("u-7"))).isEqualTo(before.agentFor("u-7"));
    }

    @Test
    void startupUtilizationWeighsTheAgents() throws Exception {
        AdaptiveVirtualNodeLB weighted = new AdaptiveVirtualNodeLB();
        weighted.setAvnConfig(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).build());
        weighted.startupUtilization(C, 0.4, 0.4);
        weighted.startupUtilization(A, 0.2, 0.2);
        weighted.startupUtilization(B, 0.2, 0.2);
        weighted.strategy().agentsChanged(List.of(A, B, C));
        assertThat(weighted.getVirtualNodesByAgent()).containsExactlyInAnyOrderEntriesOf(Map.of(A, 6, B, 6, C, 3));
        assertThat(new AdaptiveVirtualNodeLB().strategyName()).isEqualTo("avn");
    }

    @Test
    void onceStartedAnAgentWithoutStartupUtilizationJoinsAtTheAverageAndTheOthersKeepTheirNodes() {
        AdaptiveVirtualNodeLB weighted = new AdaptiveVirtualNodeLB();
        weighted.setAvnConfig(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).build());
        weighted.setStartupUtilization("A=0.2/0.2,B=0.2/0.2,C=0.4/0.4");
        ScriptedChild.started(weighted, context, ScriptedChild.ok("A"), ScriptedChild.ok("B"), ScriptedChild.ok("C"));
        assertThat(weighted.getVirtualNodesByAgent()).containsExactlyInAnyOrderEntriesOf(Map.of("A", 6, "B", 6, "C", 3));

        // D counts as the average of the three (0.27), between A and C.
        weighted.addProcessor(ScriptedChild.ok("D"));

        assertThat(weighted.getVirtualNodesByAgent()).containsExactlyInAnyOrderEntriesOf(Map.of("A", 6, "B", 6, "C", 3, "D", 5));
        weighted.stop();
    }
    /**
     * Text that is not {@code id=cpu/memory} pairs is refused whole, naming the knob and the text.
     * Found: a semicolon for a comma, a doubled {@code =}, an id with a space, an id given twice and a
     * trailing comma were taken (as ids {@code A1=0.5/0.5;A2} and {@code A1=}, the last value winning).
     */
    @Test
    void startupUtilizationRefusesTextThatIsNotPairsOfAnIdAndTwoFractions() {
        AdaptiveVirtualNodeLB avn = new AdaptiveVirtualNodeLB();
        assertThat(avn.getAvnConfig()).isEqualTo(AdaptiveVirtualNodesConfig.ofDefaults());
        AdaptiveVirtualNodesConfig fifteen = AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).build();
        avn.setAvnConfig(fifteen);
        assertThat(avn.getAvnConfig()).isEqualTo(fifteen);
        for (String text : List.of("A1=0.5/0.5;A2=0.1/0.1", "A1==0.5/0.5", "A 1=0.5/0.5", "A1=0.5/0.5,",
                ",A1=0.5/0.5", "A1=0.5/0.5,,A2=0.1/0.1", "A1=0.5/0.5/0.5", "=0.5/0.5", "garbage", "A1=0.5")) {
            assertThatThrownBy(() -> avn.setStartupUtilization(text)).as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("startupUtilization must be id=cpu/memory pairs")
                    .hasMessageEndingWith("was '" + text + "'");
        }
        assertThatThrownBy(() -> avn.setStartupUtilization("A1=1/1,A1=0/0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("startupUtilization names A1 twice, was 'A1=1/1,A1=0/0'");
        assertThat(avn.getStartupUtilization()).isEmpty();

        avn.setStartupUtilization(" A1 = 0.5/0.25 , http://localhost:8081=1/0 ");
        assertThat(avn.getStartupUtilization()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "A1", new io.github.agentlb.core.avn.AgentUtilization(0.5, 0.25),
                "http://localhost:8081", new io.github.agentlb.core.avn.AgentUtilization(1, 0)));
    }
}
