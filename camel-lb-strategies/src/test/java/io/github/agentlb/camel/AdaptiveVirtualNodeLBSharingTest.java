package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.shared.Allocation;
import io.github.agentlb.core.shared.AllocationExchange;
import io.github.agentlb.core.shared.InMemoryAllocationExchange;
import io.github.agentlb.core.shared.Observations;
import io.github.agentlb.core.shared.SharedAllocation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An {@code avn} balancer that shares its allocation, outside a route: three replicas by the
 * exchange's count, agents a, b and c (c reports 0.90 CPU and memory, the others 0.10), windows of
 * 30 requests, the store played through the in-memory exchange's listener.
 */
class AdaptiveVirtualNodeLBSharingTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private final AtomicLong clock = new AtomicLong(1_000_000_000_000L);
    private final InMemoryAllocationExchange exchange = new InMemoryAllocationExchange(3, "me");
    private final Map<String, String> loadOf = Map.of("a", "0.10", "b", "0.10", "c", "0.90");
    private final AdaptiveVirtualNodeLB balancer = Balancers.with(
            new AdaptiveVirtualNodeLB(new SharedAllocation(exchange, Duration.ofSeconds(30))),
            lb -> lb.setAvnConfig(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).evaluationWindow(30)
                    .maxMovesPerEvaluation(1).build()));

    private ScriptedChild agent(String id) {
        return ScriptedChild.answering(id, (attempt, now) -> {
            attempt.getMessage().setBody(id);
            attempt.getMessage().setHeader(AdaptiveVirtualNodeLB.CPU_HEADER, loadOf.get(id));
            attempt.getMessage().setHeader(AdaptiveVirtualNodeLB.MEMORY_HEADER, loadOf.get(id));
        });
    }

    @BeforeEach
    void startConnected() {
        balancer.useNanoClock(clock::get);
        ScriptedChild.started(balancer, CAMEL.get(), agent("a"), agent("b"), agent("c"));
        store().connectionChanged(true);
    }

    @AfterEach
    void stop() {
        balancer.stop();
    }

    private AllocationExchange.Listener store() {
        return exchange.listener();
    }

    private void send(int requests) {
        for (int user = 1; user <= requests; user++) {
            Exchange request = new DefaultExchange(CAMEL.get());
            request.getIn().setHeader("user_id", String.valueOf(user));
            balancer.process(request, sync -> { });
        }
    }

    /** Makes this replica the leader and lands its first write: generation 1, leader epoch 1. */
    private void leading() {
        store().leadershipChanged(true);
        store().published(exchange.published().get(0), true, "version 0");
    }

    /**
     * A CamelContext that begins to stop (a replica draining its in-flight exchanges, which may take
     * its shutdown timeout) leaves the store at once, so that another replica leads meanwhile.
     */
    @Test
    void aReplicaLeavesTheStoreAsItsContextBeginsToStop() throws Exception {
        InMemoryAllocationExchange own = new InMemoryAllocationExchange(3, "draining");
        AdaptiveVirtualNodeLB replica = new AdaptiveVirtualNodeLB(new SharedAllocation(own, Duration.ofSeconds(30)));
        org.apache.camel.impl.DefaultCamelContext context = new org.apache.camel.impl.DefaultCamelContext();
        context.start();
        ScriptedChild.started(replica, context, agent("a"), agent("b"));
        List<Integer> closesWhenStopping = new java.util.ArrayList<>();
        context.addLifecycleStrategy(new org.apache.camel.support.LifecycleStrategySupport() {
            @Override
            public void onContextStopping(org.apache.camel.CamelContext stopping) {
                closesWhenStopping.add(own.closes());
            }
        });

        context.stop();

        assertThat(closesWhenStopping).as("closes as the context begins to stop, before its routes drain").containsExactly(1);
        replica.stop();
        assertThat(own.closes()).isEqualTo(2);
    }

    @Test
    void aFollowerSharesItsKeysAndReportsWithTheLeaderAndEvaluatesNothing() {
        send(30);

        assertThat(balancer.getReallocations()).isZero();
        assertThat(exchange.published()).isEmpty();
        // A leader's window is 30 / 3 = 10 requests: a share every 10 / 4 = 2 requests.
        assertThat(exchange.shared()).hasSize(15).allSatisfy(o -> {
            assertThat(o.positions()).hasSize(2);
            assertThat(o.reports()).hasSize(2);
        });
        Observations first = exchange.shared().get(0);
        assertThat(first.replicaId()).isEqualTo("me");
        assertThat(first.positions()).containsExactly(balancer.ring().hash("1"), balancer.ring().hash("2"));
    }

    @Test
    void theLeaderClosesAWindowEveryThirdOfItsRequestsAndProposesItsMoveToTheStoreFirst() {
        leading();
        long generation = balancer.getGeneration();
        Map<String, Integer> routed = balancer.getVirtualNodesByAgent();

        send(10);

        assertThat(balancer.getVirtualNodesByAgent()).as("not before the write lands").isEqualTo(routed);
        assertThat(balancer.getGeneration()).isEqualTo(generation);
        Allocation proposal = exchange.published().get(1);
        assertThat(proposal.generation()).isEqualTo(2);
        assertThat(proposal.virtualNodes()).containsEntry("c", 4);

        store().published(proposal, true, "version 1");

        assertThat(balancer.getVirtualNodesByAgent()).isEqualTo(proposal.virtualNodes());
        assertThat(balancer.getGeneration()).isEqualTo(generation + 1);
        assertThat(balancer.allocationGeneration()).isEqualTo(2);
    }

    @Test
    void aReplicaLearningAloneMovesItsOwnRing() {
        store().connectionChanged(false);
        clock.addAndGet(Duration.ofSeconds(31).toNanos());
        long generation = balancer.getGeneration();

        send(30);

        assertThat(balancer.getVirtualNodesByAgent()).containsEntry("c", 4);
        assertThat(balancer.getGeneration()).isEqualTo(generation + 1);
        assertThat(exchange.published()).isEmpty();
    }

    @Test
    void anAgentAddedToTheLeaderGoesToTheStoreAtOnce() {
        leading();

        balancer.addProcessor(agent("d"));

        assertThat(exchange.published()).hasSize(2).last().satisfies(a -> {
            assertThat(a.generation()).isEqualTo(2);
            assertThat(a.virtualNodes()).containsOnlyKeys("a", "b", "c", "d");
        });
    }

    @Test
    void aSharingBalancerSaysSoAndClosesTheStoreWhenItStops() {
        assertThat(balancer.sharesAllocation()).isTrue();
        assertThat(new AdaptiveVirtualNodeLB().sharesAllocation()).isFalse();
        assertThat(new AdaptiveVirtualNodeLB().allocationGeneration()).isZero();
        store().allocationChanged(Allocation.of(3, 1, Map.of("a", 5, "b", 6, "c", 4)));
        assertThat(balancer.allocationGeneration()).isEqualTo(3);

        balancer.stop();

        assertThat(exchange.closes()).isEqualTo(1);
        assertThat(balancer.getProcessors()).allSatisfy(child -> assertThat(((ScriptedChild) child).isStopped()).isTrue());
    }
}
