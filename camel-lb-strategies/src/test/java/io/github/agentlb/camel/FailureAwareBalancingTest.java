package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.pid.PidWeightsConfig;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

/**
 * The examples of failing agents: agents that refuse, time out after the request was sent, or lie about
 * load, behind each strategy; exact counts with an injected clock.
 */
class FailureAwareBalancingTest extends CamelTestSupport {

    private static final List<String> AGENTS = List.of("a", "b", "c");
    private static final long SECOND = 1_000_000_000L;

    private enum Mode { OK, REFUSE, READ_TIMEOUT }

    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
    private final Map<String, Mode> mode = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
    private final Map<String, Object> reportSeenByAgent = new ConcurrentHashMap<>();
    private final Map<String, Object> reports = new ConcurrentHashMap<>();
    private final Map<String, Long> slowness = new ConcurrentHashMap<>();

    private final RoundRobinLB rr = new RoundRobinLB();
    private final RoundRobinLB rrNoEjection = new RoundRobinLB();
    private final PidWeightedLB pid = new PidWeightedLB(PidWeightsConfig.ofDefaults(), clock::get);
    private final ConsistentHashLB ch = new ConsistentHashLB();

    {
        rr.useNanoClock(clock::get);
        rrNoEjection.useNanoClock(clock::get);
        rrNoEjection.setOutlierEjection(OutlierEjection.disabled());
        ch.useNanoClock(clock::get);
    }

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        RouteBuilder agents = AgentRoutesFixture.agents(AGENTS, (agent, exchange) -> {
            received.computeIfAbsent(agent, k -> new AtomicInteger()).incrementAndGet();
            Object report = exchange.getIn().getHeader(PidWeightedLB.UTILIZATION_HEADER);
            if (report != null) {
                reportSeenByAgent.put(agent, report);
            }
            clock.addAndGet(slowness.getOrDefault(agent, 0L));
            switch (mode.getOrDefault(agent, Mode.OK)) {
                case REFUSE -> throw new ConnectException("Connection refused: " + agent);
                case READ_TIMEOUT -> throw new SocketTimeoutException("Read timed out");
                default -> {
                }
            }
            exchange.getMessage().setBody(agent);
            if (reports.containsKey(agent)) {
                exchange.getMessage().setHeader(PidWeightedLB.UTILIZATION_HEADER, reports.get(agent));
            }
        });
        return new RoutesBuilder[] {agents, balanced("rr", rr), balanced("rr-no-ejection", rrNoEjection),
            balanced("pid", pid), balanced("ch", ch)};
    }

    private static RouteBuilder balanced(String name, AgentLoadBalancerSupport balancer) {
        return AgentRoutesFixture.balanced("direct:" + name + "-in", balancer, AGENTS);
    }

    private Exchange send(String route, String method) {
        return template.request("direct:" + route + "-in", e -> {
            e.getIn().setBody("ping");
            if (method != null) {
                e.getIn().setHeader(Exchange.HTTP_METHOD, method);
            }
        });
    }

    private Map<String, Integer> spread(String route, int requests) {
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < requests; i++) {
            Exchange answer = send(route, "GET");
            assertThat(answer.getException()).isNull();
            counts.merge(answer.getMessage().getBody(String.class), 1, Integer::sum);
        }
        return counts;
    }

    private int received(String agent) {
        return received.getOrDefault(agent, new AtomicInteger()).get();
    }

    @Test
    void roundRobinSpreadsARefusingAgentsShareEvenlyOverTheOthers() {
        mode.put("a", Mode.REFUSE);
        // Was 400/200: every request aimed at the dead agent fell through to its neighbour.
        assertThat(spread("rr", 600)).isEqualTo(Map.of("b", 300, "c", 300));
        assertThat(received("a")).as("ejected after its first refusal").isEqualTo(1);
        assertThat(spread("rr-no-ejection", 600)).isEqualTo(Map.of("b", 300, "c", 300));
    }

    @Test
    void anEjectedAgentIsTriedAgainWhenItsTimeIsUpAndReadmittedOnSuccess() {
        List<String> events = new ArrayList<>();
        rr.addHealthListener(new RecordingHealthListener(events, ""));
        mode.put("a", Mode.READ_TIMEOUT);
        spread("rr", 30);
        assertThat(received("a")).as("a hung agent costs one request, not every third").isEqualTo(1);
        assertThat(rr.getEjectedAgents()).containsExactly("direct://a");

        mode.remove("a");
        clock.addAndGet(10 * SECOND);
        assertThat(spread("rr", 30)).isEqualTo(Map.of("a", 10, "b", 10, "c", 10));
        assertThat(rr.getEjectedAgents()).isEmpty();
        assertThat(events).containsExactly("ejected direct://a 10 s", "readmitted direct://a");
    }

    @Test
    void hasNoAgentToTryWhileEveryAgentFailsAndOneAgainABaseEjectionTimeLater() {
        assertThat(rr.hasAgentToTry()).isTrue();
        AGENTS.forEach(agent -> mode.put(agent, Mode.REFUSE));
        assertThat(send("rr", "GET").getException()).isInstanceOf(NoAgentAvailableException.class);
        // Two ejected, the third kept in by the cap but failing.
        assertThat(rr.getEjectedAgents()).hasSize(2);
        assertThat(rr.hasAgentToTry()).isFalse();
        assertThat(rrNoEjection.hasAgentToTry()).as("no ejection, no signal").isTrue();

        clock.addAndGet(10 * SECOND);
        assertThat(rr.hasAgentToTry()).isTrue();
    }

    @Test
    void aPostThatMayHaveReachedAnAgentIsNotSentToASecondOne() {
        mode.put("a", Mode.READ_TIMEOUT);
        Exchange answer = send("rr-no-ejection", "POST");
        assertThat(received("a")).isEqualTo(1);
        assertThat(received("b")).isZero();
        assertThat(answer.getException()).isInstanceOf(SocketTimeoutException.class).hasMessage("Read timed out");
    }

    /** An Idempotency-Key makes a POST as safe to send again as hedging takes it to be; a blank one does not. */
    @Test
    void aPostWithAnIdempotencyKeyFailsOverAfterSendButNotWithABlankOne() {
        mode.put("a", Mode.READ_TIMEOUT);
        Exchange keyed = template.request("direct:rr-no-ejection-in", e -> {
            e.getIn().setBody("ping");
            e.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
            e.getIn().setHeader("Idempotency-Key", "k-1");
        });
        assertThat(keyed.getException()).isNull();
        assertThat(keyed.getMessage().getBody(String.class)).isEqualTo("b");
        send("rr-no-ejection", "GET"); // c's turn
        Exchange blank = template.request("direct:rr-no-ejection-in", e -> {
            e.getIn().setBody("ping");
            e.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
            e.getIn().setHeader("Idempotency-Key", " ");
        });
        assertThat(blank.getException()).isInstanceOf(SocketTimeoutException.class);
        assertThat(received("a")).isEqualTo(2);
        assertThat(received("b")).isEqualTo(1);
    }

    @Test
    void anExchangeWithoutAMethodIsNotRetriedAfterSendEither() {
        mode.put("a", Mode.READ_TIMEOUT);
        Exchange answer = send("rr-no-ejection", null);
        assertThat(received("b")).isZero();
        assertThat(answer.getException()).isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void anIdempotentRequestFailsOverAfterSendAndAnyRequestBeforeSend() {
        mode.put("a", Mode.READ_TIMEOUT);
        Exchange get = send("rr-no-ejection", "GET");
        assertThat(get.getException()).isNull();
        assertThat(get.getMessage().getBody(String.class)).isEqualTo("b");

        mode.put("a", Mode.REFUSE);
        send("rr-no-ejection", "POST"); // c's turn
        Exchange post = send("rr-no-ejection", "POST");
        assertThat(post.getException()).isNull();
        assertThat(post.getMessage().getBody(String.class)).as("refused: never sent, safe").isEqualTo("b");
    }

    @Test
    void theIdempotentMethodsCanBeChanged() {
        rrNoEjection.setIdempotentMethods(List.of("post"));
        mode.put("a", Mode.READ_TIMEOUT);
        assertThat(send("rr-no-ejection", "POST").getMessage().getBody(String.class)).isEqualTo("b");
        assertThat(rrNoEjection.getIdempotentMethods()).containsExactly("POST");
        assertThatThrownBy(() -> rrNoEjection.setIdempotentMethods(List.of(" ")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("idempotentMethods must not");
    }

    @Test
    void maximumFailoverAttemptsBoundsTheAttempts() {
        AGENTS.forEach(agent -> mode.put(agent, Mode.REFUSE));
        rrNoEjection.setMaximumFailoverAttempts(1);
        Exchange answer = send("rr-no-ejection", "GET");
        assertThat(received.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(2);
        assertThat(answer.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("2 of 3 agents tried, each failed (maximumFailoverAttempts=1)");
        assertThatThrownBy(() -> rrNoEjection.setMaximumFailoverAttempts(-2))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maximumFailoverAttempts must be >= -1, was -2");
    }

    @Test
    void noFailoverStartsAfterTheDeadline() {
        AGENTS.forEach(agent -> mode.put(agent, Mode.REFUSE));
        slowness.put("a", 2 * SECOND);
        rrNoEjection.setFailoverDeadline(Duration.ofSeconds(1));
        Exchange answer = send("rr-no-ejection", "GET");
        assertThat(received("a")).isEqualTo(1);
        assertThat(received("b") + received("c")).isZero();
        assertThat(answer.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("(failoverDeadline=1000 ms)");
    }

    @Test
    void whenEveryAgentFailsEjectedAgentsAreStillTriedBeforeGivingUp() {
        AGENTS.forEach(agent -> mode.put(agent, Mode.REFUSE));
        Exchange first = send("rr", "GET");
        assertThat(first.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("3 of 3 agents tried").hasMessageContaining("; ejected: direct://a, direct://b.");
        assertThat(((NoAgentAvailableException) first.getException()).ejectedAgents())
                .containsExactlyInAnyOrder("direct://a", "direct://b");

        mode.remove("a");
        Exchange second = send("rr", "GET");
        assertThat(second.getException()).isNull();
        assertThat(second.getMessage().getBody(String.class)).isEqualTo("a");
        assertThat(rr.getEjectedAgents()).containsExactly("direct://b");
    }

    @Test
    void aClientCannotWriteAnAgentsLoadReport() {
        Exchange answer = template.request("direct:pid-in", e -> {
            e.getIn().setHeader(PidWeightedLB.UTILIZATION_HEADER, "9");
            e.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        });
        assertThat(answer.getException()).isNull();
        assertThat(reportSeenByAgent).as("stripped before the attempt is sent").isEmpty();
        clock.addAndGet(SECOND);
        pid.controlStep();
        // The one agent that served it measured by the balancer (nothing in flight now), not 9.
        assertThat(pid.pidWeights().utilizations()).containsEntry("direct://a", 0.0);
    }

    @Test
    void aDeadAgentsPidWeightFallsToTheFloorInsteadOfLookingIdle() {
        pid.setOutlierEjection(OutlierEjection.disabled());
        mode.put("a", Mode.REFUSE);
        Map<String, Integer> live = runPidWithLiveAgentsAt30Percent();
        Map<String, Double> weights = pid.pidWeights().weights();
        // Was: the dead agent's weight at the cap (2.8), the live ones at the floor, 938 vs 262.
        // Now: the floor (0.1 x the mean weight 1.0) and an even split of the live agents.
        assertThat(weights).containsEntry("direct://a", 0.1).containsEntry("direct://b", 1.45)
                .containsEntry("direct://c", 1.45);
        assertThat(live).isEqualTo(Map.of("b", 600, "c", 600));
    }

    @Test
    void withEjectionTheLiveAgentsOfPidShareEvenly() {
        mode.put("a", Mode.REFUSE);
        Map<String, Integer> live = runPidWithLiveAgentsAt30Percent();
        assertThat(live).isEqualTo(Map.of("b", 600, "c", 600));
    }

    @Test
    void aReadmittedAgentRestartsAtTheMeanWeightInsteadOfTheFloor() {
        mode.put("a", Mode.REFUSE);
        runPidWithLiveAgentsAt30Percent();
        assertThat(pid.pidWeights().weights()).containsEntry("direct://a", 0.1);
        mode.remove("a");
        clock.addAndGet(300 * SECOND);
        // The trial comes when the weighted schedule picks the agent (weight 0.1 of 3.0: 1 in 30).
        for (int i = 0; i < 30; i++) {
            assertThat(send("pid", "GET").getException()).isNull();
        }
        assertThat(pid.getEjectedAgents()).isEmpty();
        // Was: 0.1 until the controller climbed back (17 of 397 requests in 4 s in the main job).
        assertThat(pid.pidWeights().weights()).isEqualTo(Map.of("direct://a", 1.0, "direct://b", 1.0, "direct://c", 1.0));
    }

    /** 40 control periods of 30 requests; b and c report utilization 0.3; the answering agents counted. */
    private Map<String, Integer> runPidWithLiveAgentsAt30Percent() {
        reports.put("b", "0.3");
        reports.put("c", "0.3");
        Map<String, Integer> live = new TreeMap<>();
        for (int period = 0; period < 40; period++) {
            for (int i = 0; i < 30; i++) {
                Exchange answer = send("pid", "GET");
                assertThat(answer.getException()).isNull();
                live.merge(answer.getMessage().getBody(String.class), 1, Integer::sum);
            }
            clock.addAndGet(SECOND);
            pid.controlStep();
        }
        return live;
    }

    @Test
    void aRejectedNameLeavesTheBalancerAsItWas() {
        ch.nameAgent("direct:a", "A1");
        assertThatThrownBy(() -> ch.nameAgent("direct:b", "A1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("agent ids must be distinct, A1 appears twice");
        assertThat(ch.getAgentIds()).containsExactly("A1", "direct://b", "direct://c");
        var c = ch.getProcessors().get(2);
        ch.removeProcessor(c);
        ch.addProcessor(c);
        assertThat(ch.getAgentIds()).containsExactly("A1", "direct://b", "direct://c");
    }

    @Test
    void whateverThrowsOnTheAttemptPathFailsTheExchangeOnce() {
        AtomicInteger callbacks = new AtomicInteger();
        TestBalancer broken = TestBalancer.picking("rr", exchange -> exploding());
        broken.setCamelContext(context);
        broken.addProcessor((org.apache.camel.AsyncProcessor) org.apache.camel.support.AsyncProcessorConverterHelper
                .convert(e -> e.getMessage().setBody("x")));
        broken.start();
        Exchange exchange = new org.apache.camel.support.DefaultExchange(context);
        // Called from outside a route, Camel's reactive executor runs the scheduled steps before
        // process returns: every callback there is to count has been made by then, no waiting.
        broken.process(exchange, sync -> callbacks.incrementAndGet());
        assertThat(callbacks.get()).isEqualTo(1);
        assertThat(exchange.getException()).isInstanceOf(IllegalStateException.class)
                .hasMessage("candidate iterator broke");
    }

    private static Selection exploding() {
                Iterator<String> exploding = new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        throw new IllegalStateException("candidate iterator broke");
                    }

                    @Override
                    public String next() {
                        throw new IllegalStateException("unreachable");
                    }
                };
                return new Selection(exploding, () -> {
                    throw new IllegalStateException("log detail broke");
                });
    }
}
