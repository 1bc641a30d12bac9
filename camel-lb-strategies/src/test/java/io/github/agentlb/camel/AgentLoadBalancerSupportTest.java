package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.health.OutlierEjection;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The support class outside a route: membership changes and their rollback, settings, headers, edge exchanges. */
class AgentLoadBalancerSupportTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();


    private static AsyncProcessor to(String uri) {
        return new org.apache.camel.processor.SendProcessor(CAMEL.get().getEndpoint(uri));
    }

    @Test
    void loadReportHeadersAreFiniteNumbersElseNaN() {
        assertThat(LoadReporting.decimal(0.5)).isEqualTo(0.5);
        assertThat(LoadReporting.decimal(2)).isEqualTo(2.0);
        assertThat(LoadReporting.decimal(" 0.25 ")).isEqualTo(0.25);
        assertThat(LoadReporting.decimal("-1")).isEqualTo(-1.0);
        assertThat(LoadReporting.decimal("0,5")).isNaN();
        assertThat(LoadReporting.decimal(null)).isNaN();
        assertThat(LoadReporting.decimal("Infinity")).isNaN();
        assertThat(LoadReporting.decimal(Double.NEGATIVE_INFINITY)).isNaN();
        assertThat(LoadReporting.decimal(Double.NaN)).isNaN();
        assertThat(DecisionLog.loggable("a b")).isEqualTo("a\\u0020b");
    }

    @Test
    void aBalancerWithoutAgentsFailsTheExchangeAtOnce() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.start();
        Exchange exchange = new DefaultExchange(CAMEL.get());
        AtomicInteger syncCallbacks = new AtomicInteger();
        assertThat(balancer.process(exchange, sync -> syncCallbacks.addAndGet(sync ? 1 : 100))).isTrue();
        assertThat(syncCallbacks.get()).isEqualTo(1);
        assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageStartingWith("No agent available: the rr balancer has no agents. Exchange[").hasNoCause();
        assertThat(balancer.toString()).isEqualTo("RoundRobinLB[]");
        assertThat(balancer.getCamelContext()).isSameAs(CAMEL.get());
        assertThat(balancer.agentMetrics()).as("rr's configured weights, of no agent").isEqualTo(Map.of("weight", Map.of()));
        assertThat(balancer.balancerMetrics()).isEmpty();
    }

    @Test
    void aStrategyThatThrowsFailsTheExchangeSynchronously() {
        TestBalancer balancer = TestBalancer.picking("rr", exchange -> {
            throw new IllegalStateException("no decision");
        });
        balancer.addProcessor(to("direct:a"));
        Exchange exchange = new DefaultExchange(CAMEL.get());
        AtomicInteger syncCallbacks = new AtomicInteger();
        assertThat(balancer.process(exchange, sync -> syncCallbacks.addAndGet(sync ? 1 : 100))).isTrue();
        assertThat(syncCallbacks.get()).isEqualTo(1);
        assertThat(exchange.getException()).isInstanceOf(IllegalStateException.class).hasMessage("no decision");
    }

    @Test
    void membershipListenersHearTheAgentsAtOnceAndOnEveryChange() {
        RoundRobinLB balancer = new RoundRobinLB();
        AsyncProcessor a = to("direct:a");
        balancer.addProcessor(a);
        List<List<String>> heard = new ArrayList<>();
        balancer.addMembershipListener(heard::add);
        balancer.addProcessor(to("direct:b"));
        balancer.removeProcessor(a);
        balancer.nameAgent("direct:b", "B");
        assertThat(heard).containsExactly(List.of("direct://a"), List.of("direct://a", "direct://b"),
                List.of("direct://b"), List.of("B"));
        assertThat(balancer.getAgentIds()).containsExactly("B");
        assertThat(balancer.getStrategy()).isEqualTo("rr");
        assertThat(balancer.toString()).isEqualTo("RoundRobinLB[B]");
    }

    /**
     * A name for an endpoint that is no child's fails the balancer's first start, or the call after it,
     * naming it; a restart after a named child left does not fail.
     */
    @Test
    void aNameForNoChildFailsTheFirstStartOrTheCallAfterItButNotARestart() {
        RoundRobinLB unknown = new RoundRobinLB();
        unknown.setCamelContext(CAMEL.get());
        unknown.addProcessor(to("direct:a"));
        unknown.nameAgent("direct:zzz", "Z");
        assertThatThrownBy(unknown::start).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nameAgent: no child of this balancer has endpoint 'direct:zzz'; its children: direct://a");

        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        AsyncProcessor b = to("direct:b");
        balancer.addProcessor(to("direct:a"));
        balancer.addProcessor(b);
        balancer.nameAgent("direct:b", "B");
        balancer.start();
        assertThat(balancer.getAgentIds()).containsExactly("direct://a", "B");
        assertThatThrownBy(() -> balancer.nameAgent("direct:nope", "N")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("nameAgent: no child of this balancer has endpoint 'direct:nope'");
        balancer.nameAgent("direct:a", "A");
        balancer.removeProcessor(b);
        balancer.stop();
        balancer.start();
        assertThat(balancer.getAgentIds()).containsExactly("A");
        balancer.stop();
    }

    /**
     * An agent added at runtime has the id {@code addAgent} gave it: a name for its endpoint is
     * refused naming that id (a user's trial: {@code nameAgent} on it was taken and did nothing,
     * even with another agent's id), and its id stays.
     */
    @Test
    void aNameForAnAgentAddedAtRuntimeIsRefusedNamingTheIdItWasAddedAs() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.addProcessor(to("direct:a"));
        balancer.nameAgent("direct:a", "A1");
        balancer.start();
        balancer.addAgent("R1", "direct:r", 1.0);
        for (String name : List.of("A1", "Q")) {
            assertThatThrownBy(() -> balancer.nameAgent("direct:r", name)).as(name).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("nameAgent: the agent at endpoint 'direct:r' was added at runtime as 'R1', its id;"
                            + " to give it another, remove it and add it again");
        }
        assertThat(balancer.getAgentIds()).containsExactly("A1", "R1");
        balancer.nameAgent("direct:a", "A2");
        assertThat(balancer.getAgentIds()).containsExactly("A2", "R1");
        balancer.stop();
    }

    /**
     * A name given for an endpoint that is, as written, an agent added at runtime is refused though a
     * route child has the same endpoint with options (a user's trial: the route child was renamed);
     * the refusal lists the children by id.
     */
    @Test
    void aNameForTheExactEndpointOfARuntimeAgentIsRefusedThoughARouteChildSharesItsAddress() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.addProcessor(to("direct:b?timeout=5000"));
        balancer.start();
        balancer.addAgent("Z", "direct:b", 1.0);
        assertThatThrownBy(() -> balancer.nameAgent("direct:b", "Y2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nameAgent: the agent at endpoint 'direct:b' was added at runtime as 'Z', its id;"
                        + " to give it another, remove it and add it again");
        assertThat(balancer.getAgentIds()).containsExactly("direct://b", "Z");
        assertThatThrownBy(() -> balancer.nameAgent("direct:nope", "N")).hasMessage(
                "nameAgent: no child of this balancer has endpoint 'direct:nope'; its children: direct://b, Z");
        balancer.nameAgent("direct:b?timeout=5000", "B");
        assertThat(balancer.getAgentIds()).containsExactly("B", "Z");
        balancer.stop();
    }

    @Test
    void aChangeTheStrategyRejectsLeavesChildrenAndIdsAsTheyWere() {
        List<String> rejectWhen = new ArrayList<>();
        TestBalancer balancer = new TestBalancer(new ForwardingStrategy(new RoundRobinStrategy()) {
            @Override
            public void agentsChanged(List<String> agentIds) {
                if (agentIds.equals(rejectWhen)) {
                    throw new IllegalArgumentException("rejected " + agentIds);
                }
            }
        });
        AsyncProcessor a = to("direct:a");
        AsyncProcessor b = to("direct:b");
        balancer.addProcessor(a);
        balancer.addProcessor(b);
        List<List<String>> heard = new ArrayList<>();
        balancer.addMembershipListener(heard::add);

        rejectWhen.addAll(List.of("direct://b"));
        assertThatThrownBy(() -> balancer.removeProcessor(a)).hasMessage("rejected [direct://b]");
        // Put back at the end of Camel's list: the ids keep their order until the next change.
        assertThat(balancer.getProcessors()).containsExactlyInAnyOrder(a, b);
        assertThat(balancer.getAgentIds()).containsExactly("direct://a", "direct://b");

        assertThatThrownBy(() -> balancer.addProcessor(to("direct:a?timeout=1")))
                .hasMessageStartingWith("agent ids must be distinct, direct://a appears twice");
        assertThat(balancer.getProcessors()).containsExactlyInAnyOrder(a, b);
        assertThat(heard).as("no change was published").containsExactly(List.of("direct://a", "direct://b"));
    }

    @Test
    void ejectionSettingsTakeEffectAtOnceAndARelationBrokenBeforeTheStartWaitsForTheKnobThatMendsIt() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        assertThat(balancer.getConsecutiveFailures()).isEqualTo(1);
        assertThat(balancer.getBaseEjectionTime()).isEqualTo(Duration.ofSeconds(10));
        assertThat(balancer.getMaxEjectionTime()).isEqualTo(Duration.ofSeconds(300));
        assertThat(balancer.getMaxEjectedShare()).isEqualTo(1.0);
        balancer.setConsecutiveFailures(3);
        balancer.setMaxEjectionTime(Duration.ofSeconds(5));
        assertThat(balancer.getMaxEjectionTime()).as("shown while it waits").isEqualTo(Duration.ofSeconds(5));
        assertThat(balancer.getOutlierEjection()).as("5 s is below the base 10 s: waits")
                .isEqualTo(OutlierEjection.custom().consecutiveFailures(3).build());
        balancer.setBaseEjectionTime(Duration.ofSeconds(2));
        balancer.setMaxEjectedShare(0.5);
        assertThat(balancer.getConsecutiveFailures()).isEqualTo(3);
        assertThat(balancer.getBaseEjectionTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(balancer.getMaxEjectionTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(balancer.getMaxEjectedShare()).isEqualTo(0.5);
        assertThat(balancer.getOutlierEjection()).isEqualTo(OutlierEjection.custom().consecutiveFailures(3)
                .baseEjectionTime(Duration.ofSeconds(2)).maxEjectionTime(Duration.ofSeconds(5)).maxEjectedShare(0.5).build());

        balancer.start();
        balancer.setConsecutiveFailures(2);
        assertThat(balancer.getOutlierEjection().consecutiveFailures()).as("at once once started").isEqualTo(2);
        assertThatThrownBy(() -> balancer.setMaxEjectionTime(Duration.ofSeconds(1))).as("refused at once once started")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT2S), was PT1S");
        assertThat(balancer.getMaxEjectionTime()).isEqualTo(Duration.ofSeconds(5));
        balancer.stop();
        balancer.setMaxEjectedShare(0.0);
        balancer.start();
        assertThat(balancer.getOutlierEjection().maxEjectedShare()).isEqualTo(0.0);
        assertThat(balancer.getOutlierEjection().consecutiveFailures()).isEqualTo(2);
    }

    @Test
    void aRelationStillBrokenWhenTheBalancerStartsFailsTheStartNamingTheKnob() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.setMaxEjectionTime(Duration.ofSeconds(5));
        assertThatThrownBy(balancer::start).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT10S), was PT5S");
        assertThatThrownBy(balancer::checkSettings).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT10S), was PT5S");
    }

    @Test
    void failoverSettingsTakeEffectAtOnce() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setMaximumFailoverAttempts(2);
        balancer.setFailoverDeadline(Duration.ofMillis(1500));
        balancer.setIdempotentMethods("get, head");
        assertThat(balancer.getMaximumFailoverAttempts()).isEqualTo(2);
        assertThat(balancer.getFailoverDeadline()).isEqualTo(Duration.ofMillis(1500));
        assertThat(balancer.getIdempotentMethods()).containsExactlyInAnyOrder("GET", "HEAD");
        assertThat(balancer.getFailoverPolicy())
                .isEqualTo(new FailoverPolicy(2, Duration.ofMillis(1500), java.util.Set.of("GET", "HEAD")));
        assertThatThrownBy(() -> balancer.setIdempotentMethods("GET,,HEAD"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("idempotentMethods must not contain a blank");
        assertThatThrownBy(() -> balancer.setFailoverPolicy(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("failoverPolicy");
        assertThatThrownBy(() -> balancer.setOutlierEjection(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("outlierEjection");
        assertThatThrownBy(() -> balancer.useNanoClock(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("clock");
    }

    @Test
    void newEjectionRulesApplyToTheCurrentAgentsAndForgetEarlierEjections() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.addProcessor(ScriptedChild.answering("a", (e, now) -> {
            throw new ConnectException("Connection refused");
        }));
        balancer.addProcessor(ScriptedChild.answering("b", (e, now) -> e.getMessage().setBody("b")));
        balancer.setOutlierEjection(OutlierEjection.custom().consecutiveFailures(2).build());
        balancer.start();
        String refusingId = "a";
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        balancer.process(exchange, sync -> { });
        assertThat(balancer.getEjectedAgents()).as("one failure of two").isEmpty();
        balancer.process(new DefaultExchange(CAMEL.get()), sync -> { });
        balancer.process(new DefaultExchange(CAMEL.get()), sync -> { });
        assertThat(balancer.getEjectedAgents()).containsExactly(refusingId);
        assertThat(balancer.getEjectedAgents()).containsExactly(refusingId);
        balancer.setOutlierEjection(OutlierEjection.ofDefaults());
        assertThat(balancer.getEjectedAgents()).isEmpty();
    }

    @Test
    void theFluentLoadReportSettersReturnTheBalancerAndTakeEffectAtOnce() {
        RoundRobinLB balancer = new RoundRobinLB();
        assertThat(balancer.isSaturationEnabled()).isTrue();

        assertThat(balancer.loadReportFormat("json")).isSameAs(balancer);
        assertThat(balancer.saturation(io.github.agentlb.core.orca.Saturation.disabled())).isSameAs(balancer);

        assertThat(balancer.getLoadReportFormat()).isEqualTo("JSON");
        assertThat(balancer.getSaturation()).isEqualTo(io.github.agentlb.core.orca.Saturation.disabled());
        assertThat(balancer.isSaturationEnabled()).isFalse();
    }

    @Test
    void settingsChangedBeforeTheFirstAgentPublishNoStateAndAfterItOneEach() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setFailoverPolicy(new FailoverPolicy(1, Duration.ZERO, java.util.Set.of("GET")));
        balancer.useNanoClock(() -> 0L);
        assertThat(balancer.getGeneration()).isZero();

        balancer.addProcessor(ScriptedChild.ok("a"));
        balancer.setFailoverPolicy(FailoverPolicy.DEFAULT);

        assertThat(balancer.getGeneration()).isEqualTo(2);
    }

    @Test
    void aBalancerStartedWithoutAgentsHasAStateAndTakesSettingsAtOnce() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.start();
        assertThat(balancer.getGeneration()).as("the start publishes the first state").isEqualTo(1);

        balancer.setMaxInFlightPerAgent(3);

        assertThat(balancer.balancerState().config.flowControl().maxInFlightPerAgent()).isEqualTo(3);
        balancer.stop();
    }

    @Test
    void learnedSessionsTurnedOnOrOffAfterTheStartAreInTheNextState() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.addProcessor(ScriptedChild.ok("a"));
        balancer.start();
        assertThat(balancer.balancerState().sessions).isNull();

        balancer.setSessionHeader("Mcp-Session-Id");
        assertThat(balancer.balancerState().sessions).as("turned on").isNotNull();
        Object sessions = balancer.balancerState().sessions;
        balancer.setMaxInFlightPerAgent(2);
        assertThat(balancer.balancerState().sessions).as("kept while the sessions' settings stay").isSameAs(sessions);
        balancer.stop();
    }

    @Test
    void checkSettingsAppliesTheSettingsBeforeStartAndIsRefusedOnceStarted() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.setConsecutiveFailures(3);

        balancer.checkSettings();

        assertThat(balancer.getOutlierEjection().consecutiveFailures()).isEqualTo(3);
        balancer.start();
        assertThatThrownBy(balancer::checkSettings).isInstanceOf(IllegalStateException.class)
                .hasMessage("checkSettings is for a balancer not started yet");
    }

    @Test
    void childrenOfABalancerNotStartedStartWithItAndDoNotRampUp() {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.setSlowStart(new io.github.agentlb.core.fleet.SlowStart(Duration.ofSeconds(10), 1.0, 0.1));
        ScriptedChild added = ScriptedChild.ok("added");
        ScriptedChild camelWay = ScriptedChild.ok("camel-way");

        balancer.addAgent("added", added, 1.0);
        balancer.addProcessor(camelWay);

        assertThat(added.isStarted()).isFalse();
        assertThat(camelWay.isStarted()).isFalse();
        balancer.start();
        assertThat(added.isStarted()).isTrue();
        assertThat(camelWay.isStarted()).isTrue();
        assertThat(balancer.balancerState().warmingSince()).isEmpty();
    }

    @Test
    void learnedSessionsWithoutASecretWarnWhenTheBalancerStarts() {
        try (CapturedLog log = new CapturedLog(AgentLoadBalancerSupport.class.getName())) {
            RoundRobinLB plain = new RoundRobinLB();
            plain.setCamelContext(CAMEL.get());
            plain.start();
            RoundRobinLB sealed = new RoundRobinLB();
            sealed.setCamelContext(CAMEL.get());
            sealed.setSessionHeader("Mcp-Session-Id");
            sealed.setSessionSecret("0123456789abcdef0123");
            sealed.start();
            assertThat(log.lines()).isEmpty();

            RoundRobinLB unsealed = new RoundRobinLB();
            unsealed.setCamelContext(CAMEL.get());
            unsealed.setSessionHeader("Mcp-Session-Id");
            unsealed.start();

            assertThat(log.lines()).containsExactly("WARN Learned sessions (Mcp-Session-Id) without a sessionSecret:"
                    + " damaged session ids are rejected, forged ones are not; set the same secret on every replica");
        }
    }
}
