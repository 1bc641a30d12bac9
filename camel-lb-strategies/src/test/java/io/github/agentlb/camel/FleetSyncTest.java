package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.fleet.AgentSpec;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Fleets from a membership source applied to a balancer, each as one new state. */
class FleetSyncTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();


    private static AgentSpec agent(String name, int port) {
        return AgentSpec.of(name, URI.create("http://127.0.0.1:" + port));
    }

    /** A started rr balancer with no agents yet, in the class's Camel context. */
    private static RoundRobinLB startedRoundRobin() {
        RoundRobinLB rr = new RoundRobinLB();
        rr.setCamelContext(CAMEL.get());
        rr.start();
        return rr;
    }

    /** Children answer with name@port, so a replaced child shows. */
    private static FleetSync sync(RoundRobinLB balancer) {
        return new FleetSync(balancer, spec -> ScriptedChild.naming(spec.name() + "@" + spec.address().getPort()));
    }

    private static Map<String, Integer> counts(RoundRobinLB balancer, int requests) {
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < requests; i++) {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            balancer.process(exchange, sync -> { });
            counts.merge(exchange.getMessage().getBody(String.class), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void eachFleetIsOneStateAddingDrainingReweightingAndReplacing() {
        RoundRobinLB rr = startedRoundRobin();
        FleetSync sync = sync(rr);
        sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 2), agent("A3", 3)));
        long generation = rr.balancerState().generation();
        assertThat(counts(rr, 3)).isEqualTo(Map.of("A1@1", 1, "A2@2", 1, "A3@3", 1));

        // A2 marked draining, A3 gone from the fleet, A4 new with weight 2.
        sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 2).withDraining(true), agent("A4", 4).withWeight(2)));
        assertThat(rr.getAgentIds()).containsExactly("A1", "A4");
        assertThat(rr.balancerState().members()).as("idle drained agents left at once").containsExactly("A1", "A4");
        assertThat(rr.balancerState().weights()).isEqualTo(Map.of("A1", 1.0, "A4", 2.0));
        assertThat(counts(rr, 300)).isEqualTo(Map.of("A1@1", 100, "A4@4", 200));
        assertThat(rr.balancerState().generation()).as("one state for the edit, one when the drains ended")
                .isEqualTo(generation + 2);

        // A2 back, A4 moved to another port, A1 reweighted.
        sync.fleetChanged(List.of(agent("A1", 1).withWeight(3), agent("A2", 2), agent("A4", 40)));
        assertThat(rr.getAgentIds()).containsExactlyInAnyOrder("A1", "A2", "A4");
        assertThat(counts(rr, 500)).isEqualTo(Map.of("A1@1", 300, "A2@2", 100, "A4@40", 100));
    }

    /**
     * An agent that left the fleet while a request was in flight on it drains; back in the fleet at
     * another address before that request ended (a pod made again with a new IP), it is called at
     * its new address, the request in flight on the old one finishing there; back at the same
     * address, it keeps its child.
     */
    @Test
    void anAgentBackAtAnotherAddressWhileItDrainsIsCalledThere() {
        RoundRobinLB rr = startedRoundRobin();
        Map<String, ScriptedChild> made = new TreeMap<>();
        FleetSync sync = new FleetSync(rr, spec -> made.computeIfAbsent(spec.name() + "@" + spec.address().getPort(),
                ScriptedChild::naming));
        sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 2)));
        ScriptedChild old = made.get("A2@2");
        old.hold();
        Exchange inFlight = null;
        for (int i = 0; i < 2 && inFlight == null; i++) {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            rr.process(exchange, done -> { });
            inFlight = exchange.getMessage().getBody() == null ? exchange : null;
        }
        assertThat(inFlight).as("a request held on A2@2").isNotNull();

        sync.fleetChanged(List.of(agent("A1", 1)));
        assertThat(rr.balancerState().draining()).containsExactly("A2");
        sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 20)));
        assertThat(counts(rr, 4)).isEqualTo(Map.of("A1@1", 2, "A2@20", 2));
        old.release();
        assertThat(inFlight.getMessage().getBody(String.class)).as("the request in flight finished on the old address")
                .isEqualTo("A2@2");
        assertThat(counts(rr, 4)).isEqualTo(Map.of("A1@1", 2, "A2@20", 2));

        // Leaving and back at the same address while a request is in flight: the same child.
        made.get("A2@20").hold();
        Exchange second = new DefaultExchange(CAMEL.get());
        rr.process(new DefaultExchange(CAMEL.get()), done -> { });
        rr.process(second, done -> { });
        sync.fleetChanged(List.of(agent("A1", 1)));
        sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 20)));
        made.get("A2@20").stopHolding();
        assertThat(second.getMessage().getBody(String.class)).isEqualTo("A2@20");
        assertThat(made).containsOnlyKeys("A1@1", "A2@2", "A2@20");
        assertThat(counts(rr, 4)).isEqualTo(Map.of("A1@1", 2, "A2@20", 2));
    }

    @Test
    void anEmptyFleetOrANameTwiceChangesNothing() {
        RoundRobinLB rr = startedRoundRobin();
        FleetSync sync = sync(rr);
        sync.fleetChanged(List.of(agent("A1", 1)));
        BalancerState before = rr.balancerState();
        assertThatThrownBy(() -> sync.fleetChanged(List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("fleet must not be empty (the balancer keeps its agents [A1])");
        assertThatThrownBy(() -> sync.fleetChanged(List.of(agent("A2", 2), agent("A2", 3))))
                .hasMessage("fleet names agent 'A2' twice");
        assertThat(rr.balancerState()).isSameAs(before);
    }

    @Test
    void agentsTheFleetDoesNotNameAreLeftAlone() {
        RoundRobinLB rr = new RoundRobinLB();
        rr.setCamelContext(CAMEL.get());
        rr.addAgent("static", ScriptedChild.naming("static"), 1);
        rr.start();
        FleetSync sync = sync(rr);
        sync.fleetChanged(List.of(agent("A1", 1)));
        sync.fleetChanged(List.of(agent("A2", 2)));
        assertThat(rr.getAgentIds()).containsExactly("static", "A2");
    }

    @Test
    void theSameFleetAgainChangesNothing() {
        RoundRobinLB rr = startedRoundRobin();
        FleetSync sync = sync(rr);
        sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 2)));
        BalancerState before = rr.balancerState();

        sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 2)));

        assertThat(rr.balancerState()).as("no agent replaced").isSameAs(before);
    }

    /**
     * An agent whose endpoint cannot be made (here no component has its scheme; with {@code agent:},
     * an https or path address) refuses the fleet with an {@link IllegalArgumentException} naming the
     * agent and the URI, so a source keeps its last good fleet in one line; nothing is applied.
     */
    @Test
    void aFleetWithAnAgentWhoseEndpointCannotBeMadeIsRefusedWholeNamingIt() {
        RoundRobinLB rr = startedRoundRobin();
        FleetSync sync = FleetSync.ofEndpoints(rr, CAMEL.get(), spec -> (spec.name().equals("A2") ? "nope:" : "mock:") + spec.name());

        assertThatThrownBy(() -> sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("agent A2: its endpoint nope:A2 cannot be made: ");

        assertThat(rr.getAgentIds()).doesNotContain("A1", "A2");
        rr.stop();
    }

    @Test
    void aFleetOfEndpointsSendsToEachAgentsEndpoint() {
        RoundRobinLB rr = startedRoundRobin();
        FleetSync sync = FleetSync.ofEndpoints(rr, CAMEL.get(), spec -> "mock:" + spec.name());

        sync.fleetChanged(List.of(agent("A1", 1), agent("A2", 2)));

        assertThat(rr.getAgentIds()).containsExactly("A1", "A2");
        Exchange exchange = new DefaultExchange(CAMEL.get());
        rr.process(exchange, done -> { });
        assertThat(exchange.getException()).isNull();
        org.apache.camel.component.mock.MockEndpoint a1 = CAMEL.get().getEndpoint("mock:A1",
                org.apache.camel.component.mock.MockEndpoint.class);
        assertThat(a1.getReceivedCounter()).isEqualTo(1);
        rr.stop();
    }

    /**
     * Was: two INFO lines per fleet (the source's and "Membership generation N: agents=[...]"), and
     * one "Agent X drained and removed" per agent: 300 agents to 2 wrote 302 lines, one of them
     * naming all 300. The source's line is the one INFO line of a change; drains that end together
     * are one line, its list bounded.
     */
    @Test
    void aFleetChangeIsLoggedByItsSourceAndDrainsThatEndTogetherAreOneBoundedLine() {
        RoundRobinLB rr = startedRoundRobin();
        FleetSync sync = sync(rr);
        List<AgentSpec> many = java.util.stream.IntStream.rangeClosed(1, 300)
                .mapToObj(i -> agent(String.format("A%03d", i), 10_000 + i)).toList();
        try (CapturedLog log = new CapturedLog("io.github.agentlb.membership")) {
            sync.fleetChanged(many);
            sync.fleetChanged(many.subList(0, 2));
            assertThat(rr.getAgentIds()).containsExactly("A001", "A002");
            assertThat(log.lines()).as("the source's line is the change's one; drains it ended at once are DEBUG").isEmpty();
        }
        try (CapturedLog log = new CapturedLog("io.github.agentlb.membership", org.apache.logging.log4j.Level.DEBUG)) {
            sync.fleetChanged(many);
            sync.fleetChanged(many.subList(0, 2));
            assertThat(log.lines()).allMatch(line -> line.startsWith("DEBUG ") && line.length() < 500)
                    .contains("DEBUG Agents drained and removed: [A003, A004, A005, A006, A007,"
                    + " A008, A009, A010, A011, A012, A013, A014, A015, A016, A017, A018, A019, A020, A021, A022,"
                    + " and 278 more]");
        }
        rr.stop();
    }
}
