package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Per-agent meters follow membership: a draining agent keeps them until it has left, an agent gone gets none back. */
class LoadBalancerMetricsMembershipTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ScriptedChild a1 = ScriptedChild.naming("A1");
    private final ScriptedChild a2 = ScriptedChild.naming("A2");
    private final RoundRobinLB rr = new RoundRobinLB();

    private void start() {
        rr.setCamelContext(CAMEL.get());
        rr.addAgent("A1", a1, 1);
        rr.addAgent("A2", a2, 1);
        rr.start();
        new LoadBalancerMetrics(rr).bindTo(registry);
    }

    private void send(int requests) {
        for (int i = 0; i < requests; i++) {
            rr.process(new DefaultExchange(CAMEL.get()), sync -> { });
        }
    }

    private List<String> metersOf(String agent) {
        return registry.getMeters().stream().filter(m -> agent.equals(m.getId().getTag("agent")))
                .map(m -> m.getId().getName() + (m.getId().getTag("outcome") == null ? "" : "/" + m.getId().getTag("outcome")))
                .sorted().toList();
    }

    private double successes(String agent) {
        return registry.get(LoadBalancerMetrics.ATTEMPTS).tags("agent", agent, "outcome", "success").timer().count();
    }

    @Test
    void aDrainingAgentKeepsItsMetersUntilItHasLeftThenNoneAreLeft() {
        start();
        send(2);
        a1.hold();
        send(4);
        assertThat(a1.heldAnswers()).isEqualTo(2);

        CompletableFuture<Void> drained = rr.drainAgent("A1");
        assertThat(metersOf("A1")).as("while A1 drains").containsExactly(
                LoadBalancerMetrics.EJECTED, LoadBalancerMetrics.EJECTIONS, LoadBalancerMetrics.AGENT_PREFIX + "weight",
                LoadBalancerMetrics.ATTEMPTS + "/success");
        assertThat(successes("A1")).isEqualTo(1);

        a1.release();
        assertThat(drained).isDone();
        assertThat(metersOf("A1")).as("A1 has left").isEmpty();
        assertThat(successes("A2")).isEqualTo(3);
    }

    /**
     * The attempts a drain waits for are timed before the agent leaves and its meters go (an
     * operator's trial: 4 requests, 2 of them on the drained agent, showed 2 attempts: the last
     * call's end finished the drain first, and its attempt found no meter).
     */
    @Test
    void theAttemptsADrainWaitsForAreTimedBeforeItsMetersGo() {
        java.util.Map<String, Double> atRemoval = new java.util.concurrent.ConcurrentHashMap<>();
        registry.config().onMeterRemoved(meter -> {
            if (meter instanceof io.micrometer.core.instrument.Timer timer && "A1".equals(meter.getId().getTag("agent"))) {
                atRemoval.put(meter.getId().getTag("outcome"), (double) timer.count());
            }
        });
        start();
        send(2);
        a1.hold();
        send(4);
        CompletableFuture<Void> drained = rr.drainAgent("A1");

        a1.release();

        assertThat(drained).isDone();
        assertThat(metersOf("A1")).as("A1 has left").isEmpty();
        assertThat(atRemoval).as("A1's successes when its meters went").containsExactly(java.util.Map.entry("success", 3.0));
    }

    @Test
    void anAttemptEndingAfterItsAgentLeftLeavesNoMeterBehindAndAnAgentBackStartsAtZero() {
        start();
        send(2);
        a1.hold();
        send(2);
        rr.removeAgent("A1");
        a1.release();
        assertThat(metersOf("A1")).as("A1 removed, its last call ended after").isEmpty();

        rr.addAgent("A1", ScriptedChild.naming("A1"), 1);
        send(2);
        assertThat(metersOf("A1")).containsExactly(LoadBalancerMetrics.EJECTED, LoadBalancerMetrics.EJECTIONS,
                LoadBalancerMetrics.AGENT_PREFIX + "weight",
                LoadBalancerMetrics.ATTEMPTS + "/success");
        assertThat(successes("A1")).isEqualTo(1);
    }
}
