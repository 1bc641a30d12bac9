package io.github.agentlb.camel;

import static io.github.agentlb.camel.AgentRoutesFixture.agentId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.agentlb.core.pid.PidWeightsConfig;
import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

/**
 * The PID adapter over direct: agents that report their utilization in a header. The clock is
 * injected: the scheduled control loop runs, but its steps are no-ops (0 ns elapsed) until the
 * test advances the clock, so every figure is exact.
 */
class PidWeightedLBTest extends CamelTestSupport {

    private static final List<String> AGENTS = List.of("A1", "A2", "A3");
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong();
    private final PidWeightedLB balancer = new PidWeightedLB(PidWeightsConfig.ofDefaults(), clock::get);
    private final Map<String, Object> reports = new ConcurrentHashMap<>();
    private final Set<String> down = ConcurrentHashMap.newKeySet();

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        RouteBuilder agents = AgentRoutesFixture.agents(AGENTS, (agent, exchange) -> {
            if (down.contains(agent)) {
                throw new ConnectException("Connection refused: " + agent);
            }
            exchange.getMessage().setBody(agent);
            Object report = reports.get(agent);
            if (report != null) {
                exchange.getMessage().setHeader(PidWeightedLB.UTILIZATION_HEADER, report);
            }
        });
        return new RoutesBuilder[] {agents, AgentRoutesFixture.balanced("direct:start", balancer, AGENTS)};
    }

    private Exchange send() {
        return template.request("direct:start", e -> e.getIn().setBody("ping"));
    }

    private void sendToEveryAgent() {
        for (int i = 0; i < 3; i++) {
            assertThat(send().getException()).isNull();
        }
    }

    private void step() {
        clock.addAndGet(SECOND);
        balancer.controlStep();
    }

    @Test
    void readsTheUtilizationHeaderAndStripsItFromTheAnswer() {
        reports.put("A1", "0.3");
        reports.put("A2", 0.3);
        reports.put("A3", "0.9");

        Exchange answer = send();
        sendToEveryAgent();
        step();

        assertThat(answer.getMessage().getHeaders()).doesNotContainKey(PidWeightedLB.UTILIZATION_HEADER);
        assertThat(answer.getMessage().getBody(String.class)).isIn(AGENTS);
        assertThat(balancer.pidWeights().utilizations()).containsExactly(
                Map.entry(agentId("A1"), 0.3), Map.entry(agentId("A2"), 0.3), Map.entry(agentId("A3"), 0.9));
        Map<String, Double> w = balancer.pidWeights().weights();
        assertThat(w.get(agentId("A3"))).isLessThan(w.get(agentId("A1")));
        assertThat(w.get(agentId("A1"))).isCloseTo(w.get(agentId("A2")), within(1e-12));
    }

    @Test
    void overloadedAgentGetsItsWeightedShareOfTheNextRequests() {
        reports.putAll(Map.of("A1", 0.3, "A2", 0.3, "A3", 0.9));
        sendToEveryAgent();
        step();
        Map<String, Integer> slots = balancer.pidWeights().schedule().slotCounts();
        int cycle = balancer.pidWeights().schedule().length();

        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < cycle; i++) {
            counts.merge(agentId(send().getMessage().getBody(String.class)), 1, Integer::sum);
        }

        assertThat(counts).isEqualTo(slots);
        assertThat(counts.get(agentId("A3"))).isLessThan(counts.get(agentId("A1")));
    }

    @Test
    void badHeadersAreIgnoredAndStillStripped() {
        reports.putAll(Map.of("A1", "abc", "A2", "-1", "A3", "NaN"));

        Exchange answer = send();
        sendToEveryAgent();
        step();

        assertThat(answer.getMessage().getHeaders()).doesNotContainKey(PidWeightedLB.UTILIZATION_HEADER);
        // Never a valid report, so each agent is measured by the balancer: in-flight and latency.
        assertThat(balancer.pidWeights().utilizations().values())
                .allSatisfy(u -> assertThat(u).isFinite().isGreaterThanOrEqualTo(0.0).isNotEqualTo(-1.0));
    }

    @Test
    void aDeadAgentsRequestFailsOverToAnother() {
        down.add("A2");

        for (int i = 0; i < 9; i++) {
            Exchange answer = send();
            assertThat(answer.getException()).isNull();
            assertThat(answer.getMessage().getBody(String.class)).isIn("A1", "A3");
        }
    }

    @Test
    void everyAgentDownFailsWithOneClearException() {
        down.addAll(AGENTS);

        assertThat(send().getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("3 of 3 agents tried, each failed");
    }

    @Test
    void theControlLoopRunsBetweenStartAndStop() {
        assertThat(balancer.isControlLoopRunning()).isTrue();
        balancer.setConfig(PidWeightsConfig.custom().kp(2).build());
        assertThat(balancer.getConfig().kp()).as("a new configuration while running, at once").isEqualTo(2.0);

        context.stop();

        assertThat(balancer.isControlLoopRunning()).isFalse();
    }

    @Test
    void exposesWeightAndUtilizationPerAgentForMetrics() {
        reports.putAll(Map.of("A1", 0.2, "A2", 0.4, "A3", 0.6));
        sendToEveryAgent();
        step();

        assertThat(balancer.strategyName()).isEqualTo("pid");
        assertThat(balancer.agentMetrics()).containsOnlyKeys("weight", "utilization");
        assertThat(balancer.agentMetrics().get("weight")).containsOnlyKeys(agentId("A1"), agentId("A2"), agentId("A3"));
        assertThat(balancer.balancerMetrics().get("utilization.max.over.mean")).isCloseTo(1.5, within(1e-12));
    }

    @Test
    void noArgConstructorUsesTheDefaults() {
        PidWeightedLB plain = new PidWeightedLB();
        assertThat(plain.getConfig().toString()).isEqualTo(PidWeightsConfig.ofDefaults().toString());

        plain.setConfig(PidWeightsConfig.custom().kp(2).build());
        assertThat(plain.getConfig().kp()).isEqualTo(2.0);
    }

    /** A pid balancer outside the route whose control loop never runs by itself: steps are the test's. */
    private PidWeightedLB standalone(PidWeightsConfig.Builder config, ScriptedChild... agents) {
        PidWeightedLB pid = new PidWeightedLB(config.controlPeriod(java.time.Duration.ofHours(1)).build(), clock::get);
        return ScriptedChild.started(pid, context, agents);
    }

    @SuppressWarnings("deprecation")
    @Test
    void aNewConfigKeepsTheAgentsAndPublishesItsSchedule() {
        PidWeightedLB pid = new PidWeightedLB(PidWeightsConfig.ofDefaults(), clock::get);
        pid.addProcessor(ScriptedChild.ok("B1"));
        pid.addProcessor(ScriptedChild.ok("B2"));
        long generation = pid.getGeneration();

        pid.setConfig(PidWeightsConfig.custom().kp(2).build());

        assertThat(pid.getWeights()).isEqualTo(Map.of("B1", 1.0, "B2", 1.0));
        assertThat(pid.getGeneration()).isEqualTo(generation + 1);
    }

    @Test
    void aReadmittedAgentsNewWeightIsPublishedAtOnce() {
        java.util.concurrent.atomic.AtomicBoolean refusing = new java.util.concurrent.atomic.AtomicBoolean(true);
        PidWeightedLB pid = standalone(PidWeightsConfig.custom(), ScriptedChild.answering("B1", (attempt, now) -> {
            if (refusing.get()) {
                throw new ConnectException("Connection refused");
            }
        }), ScriptedChild.ok("B2"));
        for (int i = 0; i < 2; i++) {
            pid.process(new org.apache.camel.support.DefaultExchange(context), sync -> { });
        }
        assertThat(pid.getEjectedAgents()).containsExactly("B1");
        refusing.set(false);
        clock.addAndGet(10 * SECOND);
        long generation = pid.getGeneration();

        for (int i = 0; i < 2; i++) {
            pid.process(new org.apache.camel.support.DefaultExchange(context), sync -> { });
        }

        assertThat(pid.getEjectedAgents()).isEmpty();
        assertThat(pid.getGeneration()).isEqualTo(generation + 1);
        pid.stop();
    }

    @Test
    void aFailureUtilizationOfZeroLeavesAFailingAgentMeasuredByItsLatency() {
        PidWeightedLB pid = standalone(PidWeightsConfig.custom().failureUtilization(0),
                ScriptedChild.answering("B1", (attempt, now) -> {
                    clock.addAndGet(SECOND / 2);
                    throw new ConnectException("Connection refused");
                }), ScriptedChild.ok("B2"));
        pid.process(new org.apache.camel.support.DefaultExchange(context), sync -> { });
        clock.addAndGet(SECOND / 2);
        pid.controlStep();

        // Busy half of the one-second step: 0.5 / nominal capacity, not a report of 0.
        assertThat(pid.getUtilizations()).containsEntry("B1", 0.5 / pid.getConfig().nominalCapacity());
        pid.stop();
    }

    @Test
    void checkSettingsAppliesTheEjectionAndSaturationSettingsWithTheControllers() {
        PidWeightedLB pid = new PidWeightedLB(PidWeightsConfig.ofDefaults(), clock::get);
        pid.setConsecutiveFailures(3);
        pid.setSaturationQueue(7);

        pid.checkSettings();

        assertThat(pid.getOutlierEjection().consecutiveFailures()).isEqualTo(3);
        assertThat(pid.getSaturation().queueDepth()).isEqualTo(7);
    }

    @Test
    void stoppingTheBalancerStopsItsChildren() {
        ScriptedChild child = ScriptedChild.ok("B1");
        PidWeightedLB pid = standalone(PidWeightsConfig.custom(), child);
        assertThat(child.isStarted()).isTrue();

        pid.stop();

        assertThat(child.isStopped()).isTrue();
    }

    @Test
    void aLongLivedStreamIsNoLoadForTheControllerButARequestIs() {
        ScriptedChild b1 = ScriptedChild.ok("B1");
        ScriptedChild b2 = ScriptedChild.ok("B2");
        b1.hold();
        b2.hold();
        PidWeightedLB pid = standalone(PidWeightsConfig.custom(), b1, b2);
        for (int i = 0; i < 2; i++) {
            Exchange stream = new org.apache.camel.support.DefaultExchange(context);
            stream.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
            stream.getIn().setHeader("Mcp-Session-Id", "s-" + i);
            pid.process(stream, sync -> { });
        }
        clock.addAndGet(SECOND);
        pid.controlStep();
        assertThat(b1.heldAnswers() + b2.heldAnswers()).isEqualTo(2);
        assertThat(pid.getUtilizations().values()).allSatisfy(u -> assertThat(u).isNaN());

        Exchange request = new org.apache.camel.support.DefaultExchange(context);
        request.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        pid.process(request, sync -> { });
        clock.addAndGet(SECOND);
        pid.controlStep();
        assertThat(pid.getUtilizations().values()).anySatisfy(u -> assertThat(u).isEqualTo(1.0 / pid.getConfig().nominalCapacity()));
        b1.release();
        b2.release();
        pid.stop();
    }
}
