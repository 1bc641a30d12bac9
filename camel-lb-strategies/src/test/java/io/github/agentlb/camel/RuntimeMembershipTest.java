package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.health.OutlierEjection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Agents added, removed, drained and weighted at runtime: one new state per change, all or nothing. */
class RuntimeMembershipTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    /** Add, drain and remove cycles of each writer of the stress test. */
    private static final int CYCLES = 100;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);


    private <T extends AgentLoadBalancerSupport> T started(T balancer, String... agents) {
        return ScriptedChild.startedAgents(balancer, CAMEL.get(), clock::get, ScriptedChild::naming, agents);
    }

    /** rr over {@code children}, each added by its name, started. */
    private static RoundRobinLB startedOver(ScriptedChild... children) {
        RoundRobinLB rr = new RoundRobinLB();
        rr.setCamelContext(CAMEL.get());
        for (ScriptedChild child : children) {
            rr.addAgent(child.getId(), child, 1);
        }
        rr.start();
        return rr;
    }

    private static Exchange send(AgentLoadBalancerSupport balancer, String userId) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        if (userId != null) {
            exchange.getIn().setHeader("user_id", userId);
        }
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    private static Map<String, Integer> counts(AgentLoadBalancerSupport balancer, int requests) {
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < requests; i++) {
            counts.merge(send(balancer, null).getMessage().getBody(String.class), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void anAddedAgentTakesRequestsInTheNextStateAndADuplicateNameChangesNothing() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2");
        long generation = rr.balancerState().generation();
        rr.addAgent("A3", ScriptedChild.naming("A3"), 1.0);
        assertThat(rr.balancerState().generation()).isEqualTo(generation + 1);
        assertThat(rr.getAgentIds()).containsExactly("A1", "A2", "A3");
        assertThat(counts(rr, 300)).containsExactlyInAnyOrderEntriesOf(Map.of("A1", 100, "A2", 100, "A3", 100));

        assertThatThrownBy(() -> rr.addAgent("A3", ScriptedChild.naming("other"), 1.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("agent 'A3' is already a member");
        assertThatThrownBy(() -> rr.addAgent("A 4", ScriptedChild.naming("A4"), 1.0))
                .hasMessage("name must not contain white space, was 'A 4'");
        assertThatThrownBy(() -> rr.addAgent("A4", ScriptedChild.naming("A4"), 0))
                .hasMessage("weight must be in (0, 1000], was 0.0");
        assertThat(rr.balancerState().generation()).isEqualTo(generation + 1);
        assertThat(rr.getProcessors()).hasSize(3);
    }

    @Test
    void aBatchIsAppliedWholeOrNotAtAll() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2");
        BalancerState before = rr.balancerState();
        assertThatThrownBy(() -> rr.editAgents().add("A3", ScriptedChild.naming("A3"), 1.0).remove("A9").apply())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent 'A9' is not a member; members: [A1, A2]");
        assertThat(rr.balancerState()).isSameAs(before);
        assertThat(rr.getProcessors()).hasSize(2);

        rr.editAgents().add("A3", ScriptedChild.naming("A3"), 1.0).remove("A1").weight("A2", 3).apply();
        assertThat(rr.balancerState().generation()).isEqualTo(before.generation() + 1);
        assertThat(rr.getAgentIds()).containsExactly("A2", "A3");
        assertThat(rr.balancerState().weights()).isEqualTo(Map.of("A2", 3.0, "A3", 1.0));
    }

    /**
     * An edit applies its removals before its additions (remove then add replaces an agent's child), so an
     * agent added and then removed in one edit, or removed and drained in one (whose drain would never end),
     * is refused as the edit is built, naming the agent; nothing changes.
     */
    @Test
    void anEditThatAddsThenRemovesOrRemovesAndDrainsOneAgentIsRefused() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2");
        assertThatThrownBy(() -> rr.editAgents().add("A3", ScriptedChild.naming("A3"), 1.0).remove("A3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent 'A3' is added and then removed in one edit: give one of them");
        assertThatThrownBy(() -> rr.editAgents().remove("A2").drain("A2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent 'A2' is removed and drained in one edit: give one of them (a drain ends in the removal)");
        assertThatThrownBy(() -> rr.editAgents().drain("A2").remove("A2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent 'A2' is removed and drained in one edit: give one of them (a drain ends in the removal)");
        assertThat(rr.getAgentIds()).containsExactly("A1", "A2");
        assertThat(rr.getDrainingAgents()).isEmpty();
        assertThatThrownBy(() -> rr.removeAgent(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be blank, was 'null'");
        assertThatThrownBy(() -> rr.drainAgent(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be blank, was ' '");
        assertThatThrownBy(() -> rr.setAgentWeight(null, 1.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be blank, was 'null'");

        rr.editAgents().remove("A2").add("A2", ScriptedChild.naming("A2 again"), 1.0).apply();
        assertThat(rr.getAgentIds()).as("remove then add replaces the child").containsExactly("A1", "A2");
        assertThat(counts(rr, 2)).isEqualTo(Map.of("A1", 1, "A2 again", 1));
    }

    @Test
    void removeTakesAnAgentOutAtOnceAndAnUnknownNameIsRejected() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        rr.removeAgent("A2");
        assertThat(rr.getAgentIds()).containsExactly("A1", "A3");
        assertThat(counts(rr, 10)).containsOnlyKeys("A1", "A3");
        assertThatThrownBy(() -> rr.removeAgent("A2")).hasMessage("agent 'A2' is not a member; members: [A1, A3]");
    }

    @Test
    void drainSendsNothingNewLetsRequestsInFlightFinishThenRemoves() {
        ScriptedChild a1 = ScriptedChild.naming("A1");
        RoundRobinLB rr = startedOver(a1, ScriptedChild.naming("A2"));
        a1.hold();
        List<Exchange> inFlight = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            inFlight.add(send(rr, null));
        }
        assertThat(a1.heldAnswers()).isEqualTo(2);

        CompletableFuture<Void> drained = rr.drainAgent("A1");
        assertThat(rr.getAgentIds()).containsExactly("A2");
        assertThat(rr.balancerState().draining()).containsExactly("A1");
        assertThat(rr.getDrainingAgents()).containsExactly("A1");
        assertThat(rr.balancerState().members()).containsExactly("A1", "A2");
        assertThat(counts(rr, 10)).isEqualTo(Map.of("A2", 10));
        assertThat(drained).isNotDone();

        a1.release();
        assertThat(drained).isDone();
        assertThat(rr.balancerState().members()).containsExactly("A2");
        assertThat(rr.balancerState().draining()).isEmpty();
        assertThat(inFlight).allSatisfy(e -> assertThat(e.getException()).isNull());
        assertThat(inFlight.stream().map(e -> e.getMessage().getBody(String.class)).sorted().toList())
                .containsExactly("A1", "A1", "A2", "A2");
    }

    /**
     * A drain's future settles whatever ends the drain (a user's trial: adding the agent back left
     * {@code drainAgent(x).get()} blocked for ever): cancelled when the agent is added again before
     * it left, completed when it is removed meanwhile (it has left).
     */
    @Test
    void aDrainCalledOffIsCancelledAndOneEndedByARemovalCompletes() {
        ScriptedChild a1 = ScriptedChild.naming("A1");
        RoundRobinLB rr = startedOver(a1, ScriptedChild.naming("A2"));
        a1.hold();
        Exchange held = send(rr, null);
        CompletableFuture<Void> calledOff = rr.drainAgent("A1");
        rr.addAgent("A1", a1, 1);
        assertThat(calledOff).isCancelled();
        assertThat(rr.getAgentIds()).containsExactly("A1", "A2");
        CompletableFuture<Void> removed = rr.drainAgent("A1");
        assertThat(removed).isNotSameAs(calledOff).isNotDone();
        rr.removeAgent("A1");
        assertThat(removed).isCompleted();
        a1.release();
        assertThat(held.getException()).isNull();
        assertThat(held.getMessage().getBody(String.class)).isEqualTo("A1");
    }

    @Test
    void drainingAnIdleAgentRemovesItAtOnce() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2");
        CompletableFuture<Void> drained = rr.drainAgent("A2");
        assertThat(drained).isDone();
        assertThat(rr.balancerState().members()).containsExactly("A1");
    }

    @Test
    void aDrainedAgentsKeysMoveClockwiseAndComeBackWhenItIsAddedAgain() {
        ConsistentHashLB ch = started(new ConsistentHashLB(), "A1", "A2", "A3");
        Map<String, String> before = owners(ch);
        ch.drainAgent("A2");
        Map<String, String> during = owners(ch);
        for (Map.Entry<String, String> e : before.entrySet()) {
            if (e.getValue().equals("A2")) {
                assertThat(during.get(e.getKey())).isIn("A1", "A3");
            } else {
                assertThat(during.get(e.getKey())).as("key %s of another agent", e.getKey()).isEqualTo(e.getValue());
            }
        }
        ch.addAgent("A2", ScriptedChild.naming("A2"), 1.0);
        assertThat(owners(ch)).isEqualTo(before);
    }

    private static Map<String, String> owners(AgentLoadBalancerSupport balancer) {
        Map<String, String> owners = new HashMap<>();
        for (int user = 0; user < 300; user++) {
            owners.put("u" + user, send(balancer, "u" + user).getMessage().getBody(String.class));
        }
        return owners;
    }

    @Test
    void weightsSpreadRoundRobinExactlyAndWeightTheRing() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        rr.setAgentWeight("A1", 2);
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 200, "A2", 100, "A3", 100));

        ConsistentHashLB ch = started(new ConsistentHashLB(), "A1", "A2");
        ch.setAgentWeight("A2", 2);
        assertThat(ch.ring().virtualNodes()).isEqualTo(Map.of("A1", 150, "A2", 300));
        assertThatThrownBy(() -> ch.setAgentWeight("A1", Double.NaN)).hasMessage("weight must be in (0, 1000], was NaN");
    }

    @Test
    void theStateNamesItsMembersAndOnlyThenTheAgentsWarmingUpAndNoAgentReportedYet() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        BalancerState plain = rr.balancerState();
        assertThat(plain.toString()).matches("BalancerState\\{generation=\\d+, members=\\[A1, A2, A3\\]\\}");
        assertThat(plain.slots()).containsOnlyKeys("A1", "A2", "A3");
        assertThat(plain.hasReported("A1")).isFalse();
        assertThat(plain.warmupFactor("A1", clock.get())).as("no ramp").isEqualTo(1.0);

        rr.setSlowStart(new SlowStart(Duration.ofSeconds(10), 1.0, 0.1));
        rr.addAgent("A4", ScriptedChild.naming("A4"), 1.0);

        assertThat(rr.balancerState().toString()).endsWith(", members=[A1, A2, A3, A4], warming=[A4]}");
        assertThat(rr.balancerState().warmupFactor("A1", clock.get())).as("A1 does not ramp").isEqualTo(1.0);
    }

    @Test
    void slowStartKeepsExactlyThePartOfItsShareTheRampGives() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        rr.setSlowStart(new SlowStart(Duration.ofSeconds(10), 1.0, 0.1));
        rr.addAgent("A4", ScriptedChild.naming("A4"), 1.0);
        assertThat(rr.balancerState().warmingSince()).containsKey("A4");
        // A4 keeps floor(n f) of the n turns the rotation offers it; a turn it passes on takes the
        // rotation's next turn (as a failover does), so it is offered a little more than 1 in 4.
        AgentSlot a4 = rr.balancerState().slot("A4");
        // t = 0: f = max(0.1, 0) = 0.1
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 130, "A2", 129, "A3", 129, "A4", 12));
        assertThat(a4.offered.get()).isEqualTo(129); // floor(129 x 0.1) = 12
        clock.addAndGet(Duration.ofSeconds(5).toNanos()); // f = 0.5
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 114, "A2", 115, "A3", 114, "A4", 57));
        assertThat(a4.offered.get()).isEqualTo(129 + 114); // floor(114 x 0.5) = 57
        clock.addAndGet(Duration.ofMillis(2_500).toNanos()); // f = 0.75
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 107, "A2", 106, "A3", 107, "A4", 80));
        clock.addAndGet(Duration.ofMillis(2_500).toNanos());
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 100, "A2", 100, "A3", 100, "A4", 100));
    }

    @Test
    void slowStartOnARingKeepsTheKeysBelowTheRampAndEndsWithEveryKeyBack() {
        ConsistentHashLB ch = started(new ConsistentHashLB(), "A1", "A2", "A3");
        ch.setSlowStart(new SlowStart(Duration.ofSeconds(10), 2.0, 0.05));
        ch.addAgent("A4", ScriptedChild.naming("A4"), 1.0);
        Map<String, String> owners = new HashMap<>();
        for (int user = 0; user < 300; user++) {
            owners.put("u" + user, ch.ring().agentFor("u" + user));
        }
        clock.addAndGet(Duration.ofMillis(2_500).toNanos());
        double factor = Math.sqrt(0.25); // aggression 2: f = (t / window)^(1/2)
        Map<String, String> during = owners(ch);
        int kept = 0;
        for (int user = 0; user < 300; user++) {
            String key = "u" + user;
            boolean keep = Selection.rankOf(ch.ring().hash(key)) < factor;
            if (owners.get(key).equals("A4")) {
                assertThat(during.get(key)).isEqualTo(keep ? "A4" : nextAfterOwner(ch, key));
                kept += keep ? 1 : 0;
            } else {
                assertThat(during.get(key)).isEqualTo(owners.get(key));
            }
        }
        assertThat(kept).isEqualTo(countKept(ch, owners, factor)).isPositive();
        clock.addAndGet(Duration.ofSeconds(8).toNanos());
        assertThat(owners(ch)).isEqualTo(owners);
    }

    private static String nextAfterOwner(ConsistentHashLB ch, String key) {
        Iterator<String> clockwise = ch.ring().agentsClockwise(ch.ring().hash(key));
        clockwise.next();
        return clockwise.next();
    }

    private static int countKept(ConsistentHashLB ch, Map<String, String> owners, double factor) {
        int kept = 0;
        for (Map.Entry<String, String> e : owners.entrySet()) {
            if (e.getValue().equals("A4") && Selection.rankOf(ch.ring().hash(e.getKey())) < factor) {
                kept++;
            }
        }
        return kept;
    }

    @Test
    void anEndpointAgentIsCreatedStartedAndStoppedByTheBalancer() throws Exception {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1");
        CAMEL.get().addRoutes(new org.apache.camel.builder.RouteBuilder() {
            @Override
            public void configure() {
                from("direct:runtime-b").setBody(constant("B"));
            }
        });
        rr.addAgent("B", "direct:runtime-b", 1.0);
        assertThat(counts(rr, 4)).isEqualTo(Map.of("A1", 2, "B", 2));
        assertThatThrownBy(() -> rr.addAgent("C", "nosuchscheme:x", 1.0)).isInstanceOf(RuntimeException.class);
        assertThat(rr.getAgentIds()).containsExactly("A1", "B");
        rr.removeAgent("B");
        assertThat(counts(rr, 2)).isEqualTo(Map.of("A1", 2));
    }

    /** An endpoint Camel cannot make is refused as the Javadoc says, with an IllegalArgumentException naming the agent and URI. */
    @Test
    void anEndpointCamelCannotMakeIsRefusedNamingTheAgentAndTheUri() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1");
        assertThatThrownBy(() -> rr.addAgent("C", "nosuchscheme:x", 1.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("addAgent(C, nosuchscheme:x): its endpoint cannot be made: ");
        assertThatThrownBy(() -> rr.addAgent("C", "direct:c?noSuchOption=1", 1.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("addAgent(C, direct:c?noSuchOption=1): its endpoint cannot be made: ");
        assertThat(rr.getAgentIds()).containsExactly("A1");
    }

    /**
     * An agent removed between a request's reading of its state and its send (a user's trial: 8
     * threads x 2,000 requests while agents added by URI were removed or drained, 1 to 22 requests
     * failed with "SendProcessor has not been started"): the request goes to the next agent of its
     * order, as if the removed one had not been offered, and the removed agent's stopped child is
     * never called. Made certain here: the order itself removes the agent as it is read.
     */
    @Test
    void aRequestThatReadTheStateBeforeItsAgentWasRemovedGoesToTheNextAgent() throws Exception {
        CAMEL.get().addRoutes(new org.apache.camel.builder.RouteBuilder() {
            @Override
            public void configure() {
                from("direct:race-b").setBody(constant("B"));
            }
        });
        java.util.concurrent.atomic.AtomicReference<Runnable> whileReading = new java.util.concurrent.atomic.AtomicReference<>();
        AgentLoadBalancerSupport balancer = new AgentLoadBalancerSupport(TestBalancer.strategy("racing", state -> exchange ->
                Selection.of(List.of("B", "A1").stream().peek(agent -> {
                    Runnable run = whileReading.getAndSet(null);
                    if (run != null) {
                        run.run();
                    }
                }).iterator()))) {
        };
        started(balancer, "A1");
        balancer.addAgent("B", "direct:race-b", 1.0);
        assertThat(send(balancer, null).getMessage().getBody(String.class)).isEqualTo("B");
        whileReading.set(() -> balancer.removeAgent("B"));
        Exchange raced = send(balancer, null);
        assertThat(raced.getException()).isNull();
        assertThat(raced.getMessage().getBody(String.class)).isEqualTo("A1");
        assertThat(balancer.getAgentIds()).containsExactly("A1");
        // Drained the same way: a drain that finds the agent idle removes it at once.
        balancer.addAgent("B", "direct:race-b", 1.0);
        whileReading.set(() -> balancer.drainAgent("B"));
        Exchange drained = send(balancer, null);
        assertThat(drained.getException()).isNull();
        assertThat(drained.getMessage().getBody(String.class)).isEqualTo("A1");
    }

    /**
     * A retry is a new request: it goes to no agent drained or removed since the exchange read its
     * state (drain and remove mean no new request), nor to one that left while marked down, and it
     * may go to an agent added since, when the agents of the state it read are spent.
     */
    @Test
    void aRetryGoesToNoAgentThatLeftSinceTheExchangeReadItsStateButMayGoToOneAddedSince() {
        for (String change : List.of("remove", "drain", "drain busy", "remove only")) {
            ScriptedChild b = ScriptedChild.naming("B");
            ScriptedChild c = ScriptedChild.naming("C");
            AtomicReference<List<String>> order = new AtomicReference<>(List.of("B"));
            AgentLoadBalancerSupport balancer = overA1AndB(order, false, b, lb -> {
                if (change.startsWith("remove")) {
                    lb.removeAgent("B");
                } else {
                    lb.drainAgent("B");
                }
                if (!change.equals("remove only")) {
                    lb.addAgent("C", c, 1.0);
                }
            });
            if (change.equals("drain busy")) {
                b.hold(); // a request of another exchange stays in flight on B: B drains, still a member
                balancer.process(new DefaultExchange(CAMEL.get()), sync -> { });
            }
            order.set(List.of("A1", "B"));
            Exchange retried = send(balancer, null);
            b.release();
            assertThat(b.requests()).as(change + ": no new request to B").hasSize(change.equals("drain busy") ? 1 : 0);
            if (change.equals("remove only")) {
                assertThat(retried.getException()).as(change).isInstanceOf(NoAgentAvailableException.class);
            } else {
                assertThat(retried.getException()).as(change).isNull();
                assertThat(retried.getMessage().getBody(String.class)).as(change + ": to the agent added since").isEqualTo("C");
            }
            balancer.stop();
        }
    }

    /**
     * An agent that was draining in the state an exchange read and takes requests again since (back
     * in the fleet before its drain ended), or one replaced since by another child (moved to another
     * address), is an agent added since for a retry: a whole fleet swapped while a request retries
     * leaves it an agent, not a 503.
     */
    @Test
    void aRetryMayGoToAnAgentBackFromItsDrainOrMovedSinceTheExchangeReadItsState() {
        for (String change : List.of("back", "moved")) {
            ScriptedChild b = ScriptedChild.naming("B");
            ScriptedChild movedB = ScriptedChild.naming("B moved");
            AtomicReference<List<String>> order = new AtomicReference<>(List.of("B"));
            AgentLoadBalancerSupport balancer = overA1AndB(order, true, b, lb -> {
                // While this exchange's attempt runs, the fleet is swapped: A1 drains, B comes back or moves.
                if (change.equals("back")) {
                    lb.addAgent("B", b, 1.0);
                } else {
                    lb.removeAgent("B");
                    lb.addAgent("B", movedB, 1.0);
                }
                lb.drainAgent("A1");
            });
            b.hold(); // a request of another exchange stays in flight on B
            balancer.process(new DefaultExchange(CAMEL.get()), sync -> { });
            if (change.equals("back")) {
                balancer.drainAgent("B"); // B drains, still a member
            }
            order.set(List.of("A1", "B"));

            Exchange retried = send(balancer, null);

            b.stopHolding();
            assertThat(retried.getException()).as(change).isNull();
            assertThat(retried.getMessage().getBody(String.class)).as(change).isEqualTo(change.equals("back") ? "B" : "B moved");
            balancer.stop();
        }
    }

    /**
     * An agent drained by an edit is marked draining only once the state without it is published: a
     * request that reads the state before, while the new one is being made (here, as its picker is
     * made), still finds its agent, never a state whose agents are all gone with none after it (the
     * 503 "selected no agent" of a whole fleet swapped under load).
     */
    @Test
    void aRequestWhileAnEditIsPublishedFindsTheAgentsOfTheStateItRead() {
        ScriptedChild a = ScriptedChild.naming("A1");
        ScriptedChild c = ScriptedChild.naming("C");
        java.util.concurrent.atomic.AtomicReference<AgentLoadBalancerSupport> self = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Exchange> during = new java.util.concurrent.atomic.AtomicReference<>();
        AgentLoadBalancerSupport balancer = new AgentLoadBalancerSupport(TestBalancer.strategy("fixed", state -> {
            if (state.draining().contains("A1") && during.get() == null) {
                Exchange exchange = new DefaultExchange(CAMEL.get());
                during.set(exchange);
                self.get().process(exchange, sync -> { }); // reads the state before this one
            }
            return exchange -> Selection.of(state.agentIds().iterator());
        })) {
        };
        self.set(balancer);
        balancer.setCamelContext(CAMEL.get());
        balancer.addAgent("A1", a, 1.0);
        balancer.start();
        a.hold(); // a request in flight on A1: drained, it stays a member
        balancer.process(new DefaultExchange(CAMEL.get()), sync -> { });

        balancer.editAgents().drain("A1").add("C", c, 1.0).apply();

        a.stopHolding();
        assertThat(during.get()).as("a request made while the edit was published").isNotNull();
        assertThat(during.get().getException()).isNull();
        assertThat(during.get().getMessage().getBody(String.class)).isEqualTo("A1");
        assertThat(send(balancer, null).getMessage().getBody(String.class)).isEqualTo("C");
        balancer.stop();
    }

    /** An agent added since is held to the in-flight limit as any other: a retry does not take a place it has not. */
    @Test
    void aRetryToAnAgentAddedSinceKeepsItsInFlightLimit() {
        ScriptedChild c = ScriptedChild.naming("C");
        java.util.concurrent.atomic.AtomicReference<AgentLoadBalancerSupport> self = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<List<String>> order = new java.util.concurrent.atomic.AtomicReference<>(List.of("A1"));
        ScriptedChild a = ScriptedChild.answering("A1", (attempt, now) -> {
            // While this exchange's attempt runs: C is added, and another exchange takes C's one place.
            AgentLoadBalancerSupport lb = self.get();
            lb.addAgent("C", c, 1.0);
            c.hold();
            order.set(List.of("C"));
            lb.process(new DefaultExchange(CAMEL.get()), sync -> { });
            throw new java.net.ConnectException("Connection refused");
        });
        AgentLoadBalancerSupport balancer = new AgentLoadBalancerSupport(TestBalancer.strategy("fixed", state -> exchange ->
                Selection.of(order.get().iterator()))) {
        };
        self.set(balancer);
        balancer.setCamelContext(CAMEL.get());
        balancer.setMaxInFlightPerAgent(1);
        balancer.addAgent("A1", a, 1.0);
        balancer.start();

        Exchange exchange = send(balancer, null);

        assertThat(c.requests()).as("the other exchange's, and no retry on C's one place").hasSize(1);
        assertThat(exchange.getException()).isNotNull();
        c.release();
        balancer.stop();
    }

    /**
     * A retry tries an agent added since once (a second failure there ends the request, not a third call),
     * and gives back the place it took there, with an in-flight limit or without.
     */
    @Test
    void aRetryTriesAnAgentAddedSinceOnceAndGivesBackItsPlace() {
        for (int limit : new int[] {0, 1}) {
            ScriptedChild c = ScriptedChild.answering("C", (attempt, now) -> {
                throw new java.net.ConnectException("Connection refused");
            });
            java.util.concurrent.atomic.AtomicReference<AgentLoadBalancerSupport> self = new java.util.concurrent.atomic.AtomicReference<>();
            ScriptedChild a = ScriptedChild.answering("A1", (attempt, now) -> {
                self.get().addAgent("C", c, 1.0);
                throw new java.net.ConnectException("Connection refused");
            });
            AgentLoadBalancerSupport balancer = new AgentLoadBalancerSupport(TestBalancer.strategy("fixed", state -> exchange ->
                    Selection.of(List.of("A1").iterator()))) {
            };
            self.set(balancer);
            balancer.setCamelContext(CAMEL.get());
            balancer.setMaxInFlightPerAgent(limit);
            balancer.setOutlierEjection(OutlierEjection.disabled());
            balancer.addAgent("A1", a, 1.0);
            balancer.start();

            Exchange exchange = send(balancer, null);

            assertThat(c.requests()).as("limit " + limit + ": C tried once").hasSize(1);
            assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class);
            assertThat(((NoAgentAvailableException) exchange.getException()).failures()).extracting(AgentFailure::agentId)
                    .as("limit " + limit).containsExactly("A1", "C");
            assertThat(balancer.balancerState().slot("C").inFlight.get()).as("limit " + limit + ": C's place given back")
                    .isZero();
            balancer.stop();
        }
    }

    /**
     * The window alone turns the ramp on with Envoy's default least share, 10%. Found: with only
     * {@code slowStartWindow} set, the least share stayed 1.0 and an added agent took its whole
     * share at once (A4 100 of 400).
     */
    @Test
    void aWindowAloneRampsWithTheDefaultLeastShareOfTenPercent() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        rr.setSlowStartWindow("10s");
        assertThat(rr.getSlowStart()).isEqualTo(new SlowStart(Duration.ofSeconds(10), 1.0, 0.1));
        rr.addAgent("A4", ScriptedChild.naming("A4"), 1.0);
        // t = 0: f = max(0.1, 0) = 0.1, as in slowStartKeepsExactlyThePartOfItsShareTheRampGives
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 130, "A2", 129, "A3", 129, "A4", 12));
    }

    @Test
    void turningSlowStartOffGivesARampingAgentItsWholeShareAtOnce() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        rr.setSlowStart(new SlowStart(Duration.ofSeconds(10), 1.0, 0.1));
        rr.addAgent("A4", ScriptedChild.naming("A4"), 1.0);
        long generation = rr.getGeneration();

        rr.setSlowStart(SlowStart.DISABLED);

        assertThat(rr.getGeneration()).isEqualTo(generation + 1);
        assertThat(rr.balancerState().warmingSince()).isEmpty();
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 100, "A2", 100, "A3", 100, "A4", 100));
    }

    @Test
    void changingTheRampWhileAnAgentWarmsKeepsItsRampGoing() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        rr.setSlowStart(new SlowStart(Duration.ofSeconds(10), 1.0, 0.1));
        rr.addAgent("A4", ScriptedChild.naming("A4"), 1.0);
        long since = clock.get();
        clock.addAndGet(Duration.ofSeconds(5).toNanos());

        rr.setSlowStartMinWeightShare(0.2);

        assertThat(rr.getSlowStartMinWeightShare()).isEqualTo(0.2);
        assertThat(rr.balancerState().warmingSince()).isEqualTo(Map.of("A4", since));
        // f = max(0.2, 5 / 10) = 0.5: A4 keeps floor(114 x 0.5) of its turns, as with the ramp unchanged.
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 115, "A2", 114, "A3", 114, "A4", 57));

        rr.setSlowStartAggression(2.0);

        assertThat(rr.getSlowStartAggression()).isEqualTo(2.0);
        // f = (5 / 10)^(1/2) = 0.707: floor(108 x 0.707) = 76
        assertThat(counts(rr, 400)).isEqualTo(Map.of("A1", 108, "A2", 108, "A3", 108, "A4", 76));
    }

    @Test
    void aRampEndsExactlyWhenItsWindowIsOver() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2");
        rr.setSlowStart(new SlowStart(Duration.ofSeconds(2), 1.0, 0.1));
        rr.addAgent("A3", ScriptedChild.naming("A3"), 1.0);
        long since = clock.get();

        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        rr.setAgentWeight("A1", 1.0);
        assertThat(rr.balancerState().warmingSince()).isEqualTo(Map.of("A3", since));

        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        rr.setAgentWeight("A1", 1.0);
        assertThat(rr.balancerState().warmingSince()).isEmpty();
    }

    /**
     * Round-robin over A2 and A1, whose connection was refused until it was ejected; returns it
     * with A1 answering again and 10 s gone by on the clock, so A1's next pick re-admits it.
     */
    private RoundRobinLB withA1EjectedAndAnsweringAgain() {
        java.util.concurrent.atomic.AtomicBoolean refusing = new java.util.concurrent.atomic.AtomicBoolean(true);
        ScriptedChild flaky = ScriptedChild.answering("A1", (attempt, now) -> {
            if (refusing.get()) {
                throw new java.net.ConnectException("Connection refused");
            }
            attempt.getMessage().setBody("A1");
        });
        RoundRobinLB rr = started(new RoundRobinLB(), "A2");
        rr.addAgent("A1", flaky, 1.0);
        counts(rr, 2);
        assertThat(rr.getEjectedAgents()).containsExactly("A1");
        refusing.set(false);
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        return rr;
    }

    @Test
    void anAgentReadmittedAfterEjectionRampsUpAgainOnlyWithSlowStartOn() {
        RoundRobinLB rr = withA1EjectedAndAnsweringAgain();
        rr.setSlowStart(new SlowStart(Duration.ofSeconds(30), 1.0, 0.1));
        long generation = rr.getGeneration();
        counts(rr, 2);

        assertThat(rr.getEjectedAgents()).isEmpty();
        assertThat(rr.balancerState().warmingSince()).isEqualTo(Map.of("A1", clock.get()));
        assertThat(rr.getGeneration()).isEqualTo(generation + 1);
    }

    @Test
    void anAgentReadmittedWithoutSlowStartTakesItsWholeShareAtOnce() {
        RoundRobinLB rr = withA1EjectedAndAnsweringAgain();
        long generation = rr.getGeneration();

        assertThat(counts(rr, 4)).isEqualTo(Map.of("A1", 2, "A2", 2));

        assertThat(rr.getEjectedAgents()).isEmpty();
        assertThat(rr.balancerState().warmingSince()).isEmpty();
        assertThat(rr.getGeneration()).isEqualTo(generation);
    }

    @Test
    void aWeightOfExactlyTheMaximumIsAcceptedAndAboveItRejected() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2");
        rr.setAgentWeight("A1", 1000);
        assertThat(rr.balancerState().weights()).isEqualTo(Map.of("A1", 1000.0, "A2", 1.0));
        assertThatThrownBy(() -> rr.setAgentWeight("A2", 1000.5)).hasMessage("weight must be in (0, 1000], was 1000.5");
    }

    @Test
    void aChangeOfManyWeightsListsTwentyAndHowManyMore() {
        String[] names = new String[22];
        for (int i = 0; i < names.length; i++) {
            names[i] = "A" + (i + 1);
        }
        RoundRobinLB rr = started(new RoundRobinLB(), names);
        try (CapturedLog log = new CapturedLog("io.github.agentlb.membership")) {
            MembershipEdit twenty = rr.editAgents();
            for (int i = 0; i < 20; i++) {
                twenty.weight(names[i], 2);
            }
            twenty.apply();
            MembershipEdit more = rr.editAgents();
            for (int i = 0; i < 22; i++) {
                more.weight(names[i], 3);
            }
            more.apply();
            assertThat(log.lines()).hasSize(2);
            assertThat(log.lines().get(0)).endsWith(" weights={A1=2.0, A2=2.0, A3=2.0, A4=2.0, A5=2.0, A6=2.0, A7=2.0, A8=2.0,"
                    + " A9=2.0, A10=2.0, A11=2.0, A12=2.0, A13=2.0, A14=2.0, A15=2.0, A16=2.0, A17=2.0, A18=2.0, A19=2.0, A20=2.0}");
            assertThat(log.lines().get(1)).contains(" weights={A1=3.0, ").endsWith(", A20=3.0, and 2 more}")
                    .contains(", and 2 more]");
        }
    }

    @Test
    void eachChangeLogsTheAgentsDrainsAndWeightsItMade() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        long g = rr.getGeneration();
        try (CapturedLog log = new CapturedLog("io.github.agentlb.membership")) {
            rr.addAgent("A4", ScriptedChild.naming("A4"), 1.0);
            rr.setAgentWeight("A2", 2);
            rr.drainAgent("A3");
            assertThat(log.lines()).containsExactly(
                    "INFO Membership generation " + (g + 1) + ": agents=[A1, A2, A3, A4]",
                    "INFO Membership generation " + (g + 2) + ": agents=[A1, A2, A3, A4] weights={A2=2.0}",
                    "INFO Membership generation " + (g + 3) + ": agents=[A1, A2, A4] draining=[A3]",
                    "INFO Agent A3 drained and removed");
        }
        assertThat(rr.getGeneration()).isEqualTo(g + 4);
    }

    @Test
    void anOwnedChildIsStoppedOnceItsAgentIsRemovedAndItsLastRequestEnded() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1");
        ScriptedChild b = ScriptedChild.naming("B");
        rr.editAgents().addOwned("B", b, 1.0).apply();
        assertThat(b.isStarted()).as("started before any request can reach it").isTrue();
        b.hold();
        assertThat(List.of(send(rr, null), send(rr, null))).extracting(e -> e.getMessage().getBody(String.class))
                .containsExactlyInAnyOrder("A1", null);
        assertThat(b.heldAnswers()).isEqualTo(1);

        rr.removeAgent("B");
        assertThat(b.isStarted()).as("a request is still in flight").isTrue();

        b.release();
        assertThat(b.isStopped()).isTrue();
    }

    @Test
    void anIdleOwnedChildIsStoppedWhenItsAgentLeavesAndAChildGivenIsNot() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1");
        ScriptedChild removed = ScriptedChild.naming("B");
        ScriptedChild drained = ScriptedChild.naming("C");
        rr.editAgents().addOwned("B", removed, 1.0).addOwned("C", drained, 1.0).apply();
        ScriptedChild given = (ScriptedChild) rr.getProcessors().get(0);

        rr.removeAgent("B");
        assertThat(rr.drainAgent("C")).isDone();
        rr.removeAgent("A1");

        assertThat(removed.isStopped()).isTrue();
        assertThat(drained.isStopped()).isTrue();
        assertThat(given.isStarted()).as("its caller's to stop").isTrue();
    }

    @Test
    void aRejectedBatchTakesBackItsAddsRemovesDrainsAndWeights() {
        TestBalancer rr = started(new TestBalancer(new ForwardingStrategy(new RoundRobinStrategy()) {
            @Override
            public void agentsChanged(List<String> agentIds) {
                if (agentIds.contains("X") || agentIds.contains("Y")) {
                    throw new IllegalArgumentException("no X nor Y");
                }
            }
        }), "A1", "A2", "A3");
        List<org.apache.camel.AsyncProcessor> children = List.copyOf(rr.getProcessors());
        BalancerState before = rr.balancerState();
        ScriptedChild given = ScriptedChild.naming("given");
        ScriptedChild owned = ScriptedChild.naming("owned");

        assertThatThrownBy(() -> rr.editAgents().add("X", given, 2.0).addOwned("Y", owned, 1.0)
                .remove("A1").drain("A2").weight("A3", 3).apply()).hasMessage("no X nor Y");

        assertThat(rr.balancerState()).isSameAs(before);
        assertThat(rr.getProcessors()).containsExactlyInAnyOrderElementsOf(children);
        assertThat(given.isStarted()).as("its caller's to stop").isTrue();
        assertThat(owned.isStopped()).isTrue();
        // The next change starts from the state before the rejected one.
        rr.setAgentWeight("A1", 1.0);
        assertThat(rr.balancerState().members()).containsExactlyInAnyOrder("A1", "A2", "A3");
        assertThat(rr.balancerState().draining()).isEmpty();
        assertThat(rr.balancerState().weights()).isEqualTo(Map.of("A1", 1.0, "A2", 1.0, "A3", 1.0));
        // The child of the rejected add keeps no name: added the Camel way, its id is its own.
        rr.addProcessor(given);
        assertThat(rr.getAgentIds()).contains("given");
    }

    @Test
    void anEditIsEmptyUntilItHoldsAChangeAndADrainItAppliesCompletesWhenTheAgentHasLeft() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3", "A4");
        assertThat(rr.editAgents().isEmpty()).isTrue();
        assertThat(rr.editAgents().add("A5", ScriptedChild.naming("A5"), 1.0).isEmpty()).isFalse();
        assertThat(rr.editAgents().remove("A1").isEmpty()).isFalse();
        assertThat(rr.editAgents().drain("A1").isEmpty()).isFalse();
        assertThat(rr.editAgents().weight("A1", 2).isEmpty()).isFalse();

        Map<String, CompletableFuture<Void>> drains = rr.editAgents().drain("A2").drain("A3").remove("A4").apply();

        assertThat(drains).containsOnlyKeys("A2", "A3").allSatisfy((name, drained) -> assertThat(drained).isDone());
        assertThat(rr.getAgentIds()).containsExactly("A1");
    }

    @Test
    void anAgentAddedBackWhileItDrainsKeepsItsChildAndServesAgain() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A2");
        ScriptedChild a1 = ScriptedChild.answering("A1", (attempt, now) -> attempt.getMessage().setBody("first A1"));
        rr.addAgent("A1", a1, 1.0);
        a1.hold();
        Exchange inFlight = List.of(send(rr, null), send(rr, null)).stream()
                .filter(e -> e.getMessage().getBody() == null).findFirst().orElseThrow();
        assertThat(a1.heldAnswers()).isEqualTo(1);
        rr.drainAgent("A1");

        rr.addAgent("A1", ScriptedChild.naming("second A1"), 1.0);

        assertThat(rr.getAgentIds()).containsExactly("A2", "A1");
        assertThat(rr.getDrainingAgents()).isEmpty();
        a1.release();
        assertThat(inFlight.getMessage().getBody(String.class)).isEqualTo("first A1");
        List<Exchange> next = List.of(send(rr, null), send(rr, null));
        assertThat(next).extracting(e -> e.getMessage().getBody(String.class)).containsExactlyInAnyOrder("A2", null);
        assertThat(a1.heldAnswers()).as("A1's next request reached its first child").isEqualTo(1);
    }

    @Test
    void aRemovedChildAddedAgainTheCamelWayHasItsOwnId() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1");
        ScriptedChild child = ScriptedChild.naming("own-id");
        rr.addAgent("B", child, 1.0);
        rr.removeAgent("B");

        rr.addProcessor(child);

        assertThat(rr.getAgentIds()).containsExactly("A1", "own-id");
    }

    @Test
    void aRejectedChangeLeavesNoWeightNorRampBehind() {
        java.util.concurrent.atomic.AtomicBoolean rejecting = new java.util.concurrent.atomic.AtomicBoolean(true);
        TestBalancer rr = started(new TestBalancer(new ForwardingStrategy(new RoundRobinStrategy()) {
            @Override
            public void agentsChanged(List<String> agentIds) {
                if (rejecting.get() && agentIds.contains("X")) {
                    throw new IllegalArgumentException("no X");
                }
            }
        }), "A1");
        rr.addProcessor(ScriptedChild.naming("C1"));
        rr.setAgentWeight("A1", 2);
        rr.setSlowStart(new SlowStart(Duration.ofSeconds(10), 1.0, 0.1));

        assertThatThrownBy(() -> rr.editAgents().add("X", ScriptedChild.naming("X"), 1.0).weight("C1", 3).apply())
                .hasMessage("no X");
        rejecting.set(false);
        // X added the Camel way: no ramp, and the weights are those before the rejected change.
        rr.addProcessor(ScriptedChild.naming("X"));

        assertThat(rr.balancerState().weights()).isEqualTo(Map.of("A1", 2.0, "C1", 1.0, "X", 1.0));
        assertThat(rr.balancerState().warmingSince()).isEmpty();
    }

    /**
     * A stress test by counts, not by time: eight writers each add, drain and remove their agent
     * {@value #CYCLES} times while the test thread reads states and sends requests until every writer
     * is done. Every interleaving must leave no torn state and reject no change.
     */
    @Test
    void everyDecisionReadsOneWholeStateWhileEightThreadsChangeTheMembership() throws Exception {
        for (AgentLoadBalancerSupport balancer : List.of(new RoundRobinLB(), new ConsistentHashLB())) {
            started(balancer, "F1", "F2", "F3");
            long firstGeneration = balancer.balancerState().generation();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> writers = new ArrayList<>();
            List<String> rejected = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 8; t++) {
                String name = "W" + t;
                Thread writer = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    for (int i = 0; i < 3 * CYCLES; i++) {
                        try {
                            switch (i % 3) {
                                case 0 -> balancer.addAgent(name, ScriptedChild.naming(name), 1 + i % 2);
                                case 1 -> balancer.drainAgent(name);
                                default -> {
                                    // Gone already when its drain ended with the last request in flight.
                                    if (balancer.balancerState().members().contains(name)) {
                                        try {
                                            balancer.removeAgent(name);
                                        } catch (IllegalArgumentException drained) {
                                            assertThat(balancer.balancerState().members()).doesNotContain(name);
                                        }
                                    }
                                }
                            }
                        } catch (RuntimeException e) {
                            rejected.add(name + " step " + i + ": " + e.getMessage());
                        }
                    }
                });
                writers.add(writer);
                writer.start();
            }
            go.countDown();
            long reads = 0;
            long lastGeneration = -1;
            List<String> torn = new ArrayList<>();
            boolean writing;
            do {
                // The last pass reads the state after the last change.
                writing = writers.stream().anyMatch(Thread::isAlive);
                BalancerState state = balancer.balancerState();
                assertThat(state.generation()).isGreaterThanOrEqualTo(lastGeneration);
                lastGeneration = state.generation();
                Exchange probe = new DefaultExchange(CAMEL.get());
                probe.getIn().setHeader("user_id", "u" + reads);
                Iterator<String> candidates = state.picker().select(probe).candidates();
                while (candidates.hasNext()) {
                    String candidate = candidates.next();
                    if (!state.agentIds().contains(candidate) || state.slot(candidate) == null) {
                        torn.add(state + " picked " + candidate);
                    }
                }
                if (!state.members().containsAll(state.agentIds()) || !state.members().containsAll(state.draining())) {
                    torn.add(state.toString());
                }
                Exchange sent = send(balancer, "u" + reads);
                assertThat(sent.getException()).isNull();
                reads++;
            } while (writing || reads < 100);
            for (Thread writer : writers) {
                writer.join();
            }
            assertThat(torn).isEmpty();
            assertThat(rejected).isEmpty();
            assertThat(reads).isPositive();
            assertThat(lastGeneration).isGreaterThan(100);
            assertThat(balancer.balancerState().generation()).as("one state per add and per drain, at least")
                    .isGreaterThanOrEqualTo(firstGeneration + 8 * 2 * CYCLES);
            assertThat(balancer.balancerState().members()).containsExactly("F1", "F2", "F3");
        }
    }

    @Test
    void roundRobinsCandidatesEndAfterTheTurnsAndOneSweep() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        java.util.Iterator<String> candidates = rr.balancerState().picker.select(new DefaultExchange(CAMEL.get())).candidates();
        List<String> offered = new ArrayList<>();
        candidates.forEachRemaining(offered::add);

        assertThat(offered).hasSize(6).containsOnly("A1", "A2", "A3");
        assertThatThrownBy(candidates::next).isInstanceOf(java.util.NoSuchElementException.class);
    }

    /**
     * A started balancer over A1 and B that picks, in order, the agents {@code order} holds when asked
     * (with {@code ofState}, only those its state has as members and not draining); A1's attempt runs
     * {@code duringA1} on the balancer, then fails as a refused connection.
     */
    private static AgentLoadBalancerSupport overA1AndB(AtomicReference<List<String>> order, boolean ofState,
                                                       ScriptedChild b, Consumer<AgentLoadBalancerSupport> duringA1) {
        AtomicReference<AgentLoadBalancerSupport> self = new AtomicReference<>();
        ScriptedChild a = ScriptedChild.answering("A1", (attempt, now) -> {
            duringA1.accept(self.get());
            throw new java.net.ConnectException("Connection refused");
        });
        AgentLoadBalancerSupport balancer = new AgentLoadBalancerSupport(TestBalancer.strategy("fixed", state -> exchange ->
                Selection.of(order.get().stream().filter(agent -> !ofState
                        || state.members().contains(agent) && !state.draining().contains(agent)).iterator()))) {
        };
        self.set(balancer);
        balancer.setCamelContext(CAMEL.get());
        balancer.addAgent("A1", a, 1.0);
        balancer.addAgent("B", b, 1.0);
        balancer.start();
        return balancer;
    }
}
