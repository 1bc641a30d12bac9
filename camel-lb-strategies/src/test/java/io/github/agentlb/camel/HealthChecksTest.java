package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.health.ActiveHealthCheck;
import io.github.agentlb.testing.FakeScheduler;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.EndpointAware;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.DefaultEndpoint;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Active health checks on a fake scheduler and clock, with a scripted probe: thresholds, marks on
 * the request path, all agents down, calls in flight ended, one chain per agent, off by default.
 */
class HealthChecksTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    private final FakeScheduler fake = new FakeScheduler();
    /** The status each agent's host answers a probe with; absent: the probe times out. */
    private final Map<String, Integer> statuses = new HashMap<>(Map.of("a.test", 200, "b.test", 200, "c.test", 200));
    private final List<URI> probed = new CopyOnWriteArrayList<>();
    private final List<String> called = new CopyOnWriteArrayList<>();
    /** Calls held by agent b: each ends only when its agent is marked down. */
    private final List<Runnable> held = new ArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Map<String, Addressed> children = new HashMap<>();
    /** When set, agent b's held calls register their end here, to be run later, rather than at once. */
    private List<Runnable> bRegistersLater;
    /** When set, agent b's held calls also leave here how they time out (as a first-byte timeout ends them). */
    private List<Runnable> bTimeouts;
    /** When set, agent a's answers wait here until run (calls in flight on a healthy agent). */
    private List<Runnable> aAnswers;
    private FixedOrderLB balancer;

    /** Probe answers by host that override {@link #statuses}: failures of any shape. */
    private final Map<String, CompletableFuture<Integer>> answers = new HashMap<>();
    /** The host whose probe throws instead of answering; null for none. */
    private volatile String throwing;

    private final HealthProbe probe = (uri, timeout) -> {
        probed.add(uri);
        if (answers.containsKey(uri.getHost())) {
            return answers.get(uri.getHost());
        }
        if (uri.getHost().equals(throwing)) {
            throw new IllegalStateException("no connection to " + throwing);
        }
        Integer status = statuses.get(uri.getHost());
        return status == null ? CompletableFuture.failedFuture(new TimeoutException("no answer in " + timeout))
                : CompletableFuture.completedFuture(status);
    };

    @BeforeEach
    void balancer() {
        balancer = new FixedOrderLB("b", "a", "c");
        balancer.setCamelContext(CAMEL.get());
        balancer.useNanoClock(fake::nanoTime);
        balancer.useHealthChecks(fake, probe);
        balancer.addHealthListener(new HealthListener() {
            @Override
            public void agentEjected(String agentId, Duration ejectionTime) {
                events.add("down " + agentId);
            }

            @Override
            public void agentReadmitted(String agentId) {
                events.add("up " + agentId);
            }
        });
        for (String agent : List.of("a", "b", "c")) {
            String uri = "agent:http://" + agent + ".test:808" + (agent.charAt(0) - 'a') + "?firstByteTimeout=60000ms";
            children.put(agent, new Addressed(uri, agent));
            balancer.addProcessor(children.get(agent));
            balancer.nameAgent(uri, agent);
        }
    }

    @AfterEach
    void stop() {
        balancer.stop();
    }

    private void startChecking() {
        balancer.setHealthCheckPath("/health");
        balancer.start();
    }

    private Exchange send(String method) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, method);
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    /** A child with an HTTP endpoint URI: answers with its name, but agent b holds calls until marked down. */
    private final class Addressed extends AsyncProcessorSupport implements EndpointAware {
        private final Endpoint endpoint;
        private final String agent;

        Addressed(String uri, String agent) {
            this.agent = agent;
            this.endpoint = new DefaultEndpoint() {
                @Override
                protected String createEndpointUri() {
                    return uri;
                }

                @Override
                public Producer createProducer() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public Consumer createConsumer(Processor processor) {
                    throw new UnsupportedOperationException();
                }
            };
        }

        @Override
        public Endpoint getEndpoint() {
            return endpoint;
        }

        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            called.add(agent);
            if (agent.equals("b") && statuses.get("b.test") == null) {
                AttemptHooks hooks = exchange.getProperty(AttemptHooks.PROPERTY, AttemptHooks.class);
                if (bTimeouts != null) {
                    bTimeouts.add(() -> {
                        exchange.setException(new TimeoutException("agent b: no first byte in 60000 ms"));
                        callback.done(false);
                    });
                }
                Runnable register = () -> held.add(hooks.whenAgentDown(() -> {
                    exchange.setException(new IOException("agent b marked down: call ended"));
                    callback.done(false);
                }));
                if (bRegistersLater != null) {
                    bRegistersLater.add(register);
                } else {
                    register.run();
                }
                return false;
            }
            if (agent.equals("a") && aAnswers != null) {
                aAnswers.add(() -> {
                    exchange.getMessage().setBody(agent);
                    callback.done(false);
                });
                return false;
            }
            exchange.getMessage().setBody(agent);
            callback.done(true);
            return true;
        }
    }

    @Test
    void offByDefaultNothingIsScheduledOrProbed() {
        balancer.start();
        fake.advance(Duration.ofMinutes(1));
        assertThat(balancer.getHealthCheck()).isEqualTo(ActiveHealthCheck.DISABLED);
        assertThat(fake.pendingCount()).isZero();
        assertThat(probed).isEmpty();
    }

    @Test
    void eachAgentHasOneChainOnTheOneSchedulerAtTheIntervalPlusJitter() {
        startChecking();
        assertThat(fake.pendingCount()).isEqualTo(3);
        assertThat(fake.pendingDelays()).allSatisfy(d -> assertThat(d).isBetween(Duration.ZERO, Duration.ofMillis(200)));
        fake.advance(Duration.ofMillis(200));
        assertThat(probed).extracting(URI::toString).containsExactlyInAnyOrder(
                "http://a.test:8080/health", "http://b.test:8081/health", "http://c.test:8082/health");
        assertThat(fake.pendingCount()).isEqualTo(3);
        assertThat(fake.pendingDelays()).allSatisfy(d -> assertThat(d).isBetween(Duration.ofMillis(1800), Duration.ofMillis(2200)));
        fake.advance(Duration.ofSeconds(20));
        assertThat(probed).hasSizeBetween(3 * 10, 3 * 11);
    }

    @Test
    void twoFailedProbesMarkAnAgentDownAndTwoPassedOnesMarkItUp() {
        startChecking();
        statuses.put("b.test", 503);
        fake.advance(Duration.ofMillis(200));
        assertThat(balancer.getEjectedAgents()).as("one failure of two").isEmpty();
        assertThat(send("GET").getMessage().getBody()).isEqualTo("b");
        fake.advance(Duration.ofMillis(2200));
        assertThat(balancer.getEjectedAgents()).containsExactly("b");
        assertThat(events).containsExactly("down b");
        called.clear();
        assertThat(send("POST").getMessage().getBody()).isEqualTo("a");
        assertThat(called).containsExactly("a");
        statuses.put("b.test", 200);
        fake.advance(Duration.ofMillis(2200));
        assertThat(balancer.getEjectedAgents()).as("one pass of two").containsExactly("b");
        fake.advance(Duration.ofMillis(2200));
        assertThat(balancer.getEjectedAgents()).isEmpty();
        assertThat(events).containsExactly("down b", "up b");
        assertThat(send("GET").getMessage().getBody()).isEqualTo("b");
    }

    @Test
    void everyAgentDownAnswersNoAgentAvailableAtOnceWithoutCallingOne() {
        startChecking();
        statuses.clear();
        fake.advance(Duration.ofMillis(2400));
        assertThat(balancer.getEjectedAgents()).containsExactly("a", "b", "c");
        called.clear();
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class);
        assertThat(called).isEmpty();
    }

    /**
     * A learned session's agent marked down: the request is not sent elsewhere (the agent holds the
     * session) and its answer says which agent and why, though other agents are up.
     */
    @Test
    void aSessionWhoseAgentIsMarkedDownIsToldSoNamingItsAgent() {
        balancer.setSessionSecret("a secret of sixteen bytes or more");
        startChecking();
        statuses.put("b.test", 503);
        fake.advance(Duration.ofMillis(2400));
        assertThat(balancer.getEjectedAgents()).containsExactly("b");
        called.clear();
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getIn().setHeader("Mcp-Session-Id", balancer.getLearnedSessions().ids().encode("b", "s-1"));
        balancer.process(exchange, sync -> { });
        assertThat(called).isEmpty();
        NoAgentAvailableException e = exchange.getException(NoAgentAvailableException.class);
        assertThat(e).hasMessageStartingWith("No agent available: the agent holding this session, b, is marked down by"
                + " health checks; retry later, or start a new session");
        assertThat(e.sessionAgent()).isEqualTo("b");
        assertThat(e.failures()).isEmpty();
        Exchange other = send("POST");
        assertThat(other.getException()).isNull();
        assertThat(((NoAgentAvailableException) new NoAgentAvailableException("x", other, null)).sessionAgent()).isNull();
    }

    @Test
    void markingDownEndsTheCallsWaitingAnIdempotentOneGoesToAnotherAgentAPostFails() {
        startChecking();
        fake.advance(Duration.ofMillis(200));
        statuses.remove("b.test"); // b hangs: its probes time out and its calls wait
        Exchange get = send("GET");
        Exchange post = send("POST");
        assertThat(held).hasSize(2);
        assertThat(get.getMessage().getBody()).isNull();
        fake.advance(Duration.ofMillis(4400));
        assertThat(balancer.getEjectedAgents()).containsExactly("b");
        assertThat(get.getException()).isNull();
        assertThat(get.getMessage().getBody()).isEqualTo("a");
        assertThat(post.getException()).hasMessageContaining("marked down");
        assertThat(called).containsExactly("b", "b", "a");
    }

    /**
     * A draining agent is probed while its calls finish: one that hangs is marked down and its
     * waiting calls end (an idempotent one goes to another agent), rather than wait for their
     * first-byte timeout because the agent was taken out of the fleet.
     */
    @Test
    void aHungAgentThatDrainsIsStillMarkedDownAndItsCallsEnd() {
        startChecking();
        fake.advance(Duration.ofMillis(200));
        statuses.remove("b.test");
        Exchange get = send("GET");
        assertThat(held).hasSize(1);
        balancer.drainAgent("b");
        fake.advance(Duration.ofMillis(4400));

        assertThat(get.getMessage().getBody()).isEqualTo("a");
        assertThat(called).containsExactly("b", "a");
    }

    /** A call its agent's mark-down ended is no failure of the agent's: no ejection on top of the mark-down (one "down"). */
    @Test
    void aCallEndedByTheMarkDownEjectsNothingMore() {
        balancer.setConsecutiveFailures(1);
        startChecking();
        fake.advance(Duration.ofMillis(200));
        statuses.remove("b.test");
        Exchange get = send("GET");
        fake.advance(Duration.ofMillis(4400));

        assertThat(get.getMessage().getBody()).isEqualTo("a");
        assertThat(events).containsExactly("down b");
    }

    /**
     * The calls a mark-down ends were lost by the balancer's own decision, not failed by chance: each
     * idempotent one goes to another agent whatever the retry budget (which allows 20% of 10 in flight).
     */
    @Test
    void markingDownSendsEveryIdempotentCallItEndedElsewhereWhateverTheRetryBudget() {
        startChecking();
        fake.advance(Duration.ofMillis(200));
        statuses.remove("b.test");
        List<Exchange> gets = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            gets.add(send("GET"));
        }
        assertThat(held).hasSize(10);
        aAnswers = new ArrayList<>();
        fake.advance(Duration.ofMillis(4400));
        assertThat(balancer.getEjectedAgents()).containsExactly("b");
        assertThat(aAnswers).as("every ended call sent on to a, each still in flight there").hasSize(10);
        aAnswers.forEach(Runnable::run);
        assertThat(gets).allSatisfy(get -> {
            assertThat(get.getException()).isNull();
            assertThat(get.getMessage().getBody()).isEqualTo("a");
        });
    }

    /** A call that registers its end only after its agent was marked down (the hooks ran already) is ended at once. */
    @Test
    void aCallThatRegistersItsEndAfterItsAgentWasMarkedDownIsEndedAtOnce() {
        startChecking();
        fake.advance(Duration.ofMillis(200));
        statuses.remove("b.test");
        bRegistersLater = new ArrayList<>();
        Exchange post = send("POST");
        fake.advance(Duration.ofMillis(4400));
        assertThat(balancer.getEjectedAgents()).containsExactly("b");
        assertThat(post.getException()).as("still in flight").isNull();

        bRegistersLater.forEach(Runnable::run);

        assertThat(held).containsExactly(AttemptHooks.NOTHING);
        assertThat(post.getException()).hasMessageContaining("marked down");
        assertThat(called).containsExactly("b");
    }

    /**
     * A call sent while its agent hung, left waiting through the agent's mark-down and mark-up (calls not
     * ended at the mark-down), that times out after the agent came back says nothing of it now: it ejects
     * nothing (with the default of one failure to eject), and the agent takes requests again.
     */
    @Test
    void aHungSpellsCallThatTimesOutAfterItsAgentWasMarkedUpEjectsNothing() {
        balancer.setHealthCheckEndCalls(false);
        startChecking();
        statuses.remove("b.test");
        bTimeouts = new ArrayList<>();
        Exchange get = send("GET");
        Exchange post = send("POST");
        fake.advance(Duration.ofMillis(4400));
        assertThat(balancer.getEjectedAgents()).containsExactly("b");
        statuses.put("b.test", 200);
        fake.advance(Duration.ofMillis(4400));
        assertThat(balancer.getEjectedAgents()).isEmpty();

        bTimeouts.forEach(Runnable::run);

        assertThat(events).containsExactly("down b", "up b");
        assertThat(balancer.getEjectedAgents()).isEmpty();
        assertThat(get.getMessage().getBody()).as("the GET goes on to a").isEqualTo("a");
        assertThat(post.getException()).hasMessageContaining("no first byte");
        called.clear();
        assertThat(send("GET").getMessage().getBody()).isEqualTo("b");
        assertThat(called).containsExactly("b");
    }

    @Test
    void withoutEndCallsTheCallsInFlightKeepWaiting() {
        balancer.setHealthCheckEndCalls(false);
        startChecking();
        statuses.remove("b.test");
        Exchange get = send("GET");
        assertThat(held).containsExactly(AttemptHooks.NOTHING);
        fake.advance(Duration.ofMillis(4400));
        assertThat(balancer.getEjectedAgents()).containsExactly("b");
        assertThat(get.getMessage().getBody()).isNull();
        assertThat(get.getException()).isNull();
    }

    @Test
    void turningChecksOffAfterTheStartStopsTheChainsAndLiftsTheMarks() {
        startChecking();
        statuses.put("b.test", 500);
        fake.advance(Duration.ofMillis(2400));
        assertThat(balancer.getEjectedAgents()).containsExactly("b");
        balancer.setHealthCheckPath("none");
        assertThat(balancer.getEjectedAgents()).isEmpty();
        int before = probed.size();
        fake.advance(Duration.ofSeconds(10));
        assertThat(probed).hasSize(before);
    }

    /** An empty or blank path is a bad value, not a way to turn the checks off (`none` is): a templated value left empty would turn hung-agent detection off unseen. */
    @Test
    void anEmptyOrBlankPathIsRefusedNotOff() {
        RoundRobinLB lb = new RoundRobinLB();
        for (String path : new String[] {"", " ", "\t"}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> lb.setHealthCheckPath(path))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("healthCheckPath must start with / and hold printable ASCII only, was '" + path + "'");
        }
        lb.setHealthCheckPath("none");
        assertThat(lb.getHealthCheck().isEnabled()).isFalse();
    }

    @Test
    void anAgentThatLeavesIsNoLongerProbed() {
        startChecking();
        fake.advance(Duration.ofMillis(200));
        balancer.removeProcessor(children.get("c"));
        probed.clear();
        fake.advance(Duration.ofSeconds(10));
        assertThat(probed).extracting(URI::getHost).doesNotContain("c.test").contains("a.test", "b.test");
    }

    @Test
    void badKnobValuesAreRefusedNamingTheKnob() {
        assertThatThrownBy(() -> balancer.setHealthCheckPath("health")).hasMessageContaining("healthCheckPath");
        assertThatThrownBy(() -> balancer.setHealthCheckInterval("0s")).hasMessageContaining("healthCheckInterval");
        assertThatThrownBy(() -> balancer.setHealthCheckTimeout("abc")).hasMessageContaining("healthCheckTimeout");
        assertThatThrownBy(() -> balancer.setHealthCheckUnhealthyThreshold(0)).hasMessageContaining("healthCheckUnhealthyThreshold");
        assertThatThrownBy(() -> balancer.setHealthCheckExpectedStatus(600)).hasMessageContaining("healthCheckExpectedStatus");
    }

    @Test
    void theHealthAddressIsTheEndpointsHttpSchemeAndAuthority() {
        assertThat(Membership.healthUri("agent:http://user:pw@h:8081/x?a=b", "/health")).hasToString("http://h:8081/health");
        assertThat(Membership.healthUri("netty-http:https://h/p", "/ready?x=1")).hasToString("https://h/ready?x=1");
        assertThat(Membership.healthUri("direct:a", "/health")).isNull();
        assertThat(Membership.healthUri(null, "/health")).isNull();
        assertThat(Membership.healthUri("http://h:8081", "/health")).as("the scheme at the start").hasToString("http://h:8081/health");
        assertThat(Membership.healthUri("https://h:8443?next=http://other:1", "/health")).as("the first address")
                .hasToString("https://h:8443/health");
    }
    @Test
    void eachProbeIsToldAndEachMarkIsLoggedWithWhatTheProbeGot() {
        List<String> told = new CopyOnWriteArrayList<>();
        balancer.addHealthListener(new HealthListener() {
            @Override
            public void agentProbed(String agentId, boolean passed) {
                told.add(agentId + (passed ? " passed" : " failed"));
            }
        });
        answers.put("a.test", CompletableFuture.failedFuture(new CompletionException(new IOException("refused"))));
        answers.put("b.test", CompletableFuture.failedFuture(new IOException()));
        answers.put("c.test", CompletableFuture.completedFuture(null));
        try (CapturedLog log = new CapturedLog("io.github.agentlb.health")) {
            startChecking();
            fake.advance(Duration.ofMillis(2400));
            assertThat(balancer.getEjectedAgents()).containsExactly("a", "b", "c");
            assertThat(told).containsExactlyInAnyOrder("a failed", "b failed", "c failed", "a failed", "b failed",
                    "c failed");
            answers.clear();
            statuses.put("b.test", 503);
            fake.advance(Duration.ofMillis(4400));
            assertThat(balancer.getEjectedAgents()).containsExactly("b");
            assertThat(told.subList(6, told.size())).containsExactlyInAnyOrder("a passed", "b failed", "c passed",
                    "a passed", "b failed", "c passed");
            assertThat(log.lines().stream().filter(l -> l.contains("in a row"))).containsExactlyInAnyOrder(
                    "WARN strategy=fixed agent=a marked down: 2 health checks in a row failed"
                            + " (http://a.test:8080/health IOException: refused)",
                    "WARN strategy=fixed agent=b marked down: 2 health checks in a row failed"
                            + " (http://b.test:8081/health IOException)",
                    "WARN strategy=fixed agent=c marked down: 2 health checks in a row failed"
                            + " (http://c.test:8082/health no answer)",
                    "INFO strategy=fixed agent=a marked up: 2 health checks in a row passed",
                    "INFO strategy=fixed agent=c marked up: 2 health checks in a row passed");
        }
    }

    @Test
    void aStatusOtherThanTheExpectedOneIsLoggedAsTheAnswer() {
        statuses.put("b.test", 503);
        try (CapturedLog log = new CapturedLog("io.github.agentlb.health")) {
            startChecking();
            fake.advance(Duration.ofMillis(2400));
            assertThat(log.lines().stream().filter(l -> l.contains("in a row"))).containsExactly("WARN strategy=fixed agent=b marked down: 2 health checks"
                    + " in a row failed (http://b.test:8081/health answered 503)");
        }
    }

    /** With thresholds of 1 the lines say "a health check", not "1 health checks in a row" (an operator's trial). */
    @Test
    void withThresholdsOfOneTheLinesSayAHealthCheck() {
        statuses.put("b.test", 503);
        balancer.setHealthCheckUnhealthyThreshold(1);
        balancer.setHealthCheckHealthyThreshold(1);
        try (CapturedLog log = new CapturedLog("io.github.agentlb.health")) {
            startChecking();
            fake.advance(Duration.ofMillis(400));
            statuses.put("b.test", 200);
            fake.advance(Duration.ofMillis(2400));
            assertThat(log.lines().stream().filter(l -> l.contains("agent=b marked down:") || l.contains("agent=b marked up:"))).containsExactly(
                    "WARN strategy=fixed agent=b marked down: a health check failed (http://b.test:8081/health answered 503)",
                    "INFO strategy=fixed agent=b marked up: a health check passed");
        }
    }

    @Test
    void theFirstProbesAreSpreadOverTheJitter() {
        startChecking();
        assertThat(fake.pendingDelays()).doesNotHaveDuplicates()
                .allSatisfy(d -> assertThat(d).isBetween(Duration.ofMillis(1), Duration.ofMillis(200)));
    }

    @Test
    void stoppingTheBalancerLiftsTheMarksAndLeavesTheGivenSchedulerRunning() {
        startChecking();
        statuses.put("b.test", 500);
        fake.advance(Duration.ofMillis(2400));
        assertThat(events).containsExactly("down b");
        balancer.stop();
        assertThat(events).containsExactly("down b", "up b");
        assertThat(fake.isShutdown()).isFalse();
        assertThat(fake.pendingCount()).isZero();
    }

    /** The "re-admitted" lines of a balancer that stops follow one saying why: its checks stopped, their marks lifted. */
    @Test
    void stoppingTheBalancerSaysItLiftsTheMarks() {
        startChecking();
        statuses.put("b.test", 500);
        fake.advance(Duration.ofMillis(2400));
        try (CapturedLog log = new CapturedLog("io.github.agentlb.health")) {
            balancer.stop();
            assertThat(log.lines()).containsExactly(
                    "INFO strategy=fixed health checks stopped with the balancer: marks lifted from [b]",
                    "INFO strategy=fixed agent=b re-admitted");
        }
    }

    @Test
    void turningChecksOffCancelsTheChainsAndOnAgainStartsThemAfresh() {
        startChecking();
        statuses.put("b.test", 500);
        fake.advance(Duration.ofMillis(2400));
        balancer.setHealthCheckPath("none");
        assertThat(events).containsExactly("down b", "up b");
        assertThat(fake.pendingCount()).isZero();
        statuses.put("b.test", 200);
        balancer.setHealthCheckPath("/ready");
        assertThat(fake.pendingCount()).isEqualTo(3);
        probed.clear();
        fake.advance(Duration.ofMillis(200));
        assertThat(probed).extracting(URI::toString).containsExactlyInAnyOrder(
                "http://a.test:8080/ready", "http://b.test:8081/ready", "http://c.test:8082/ready");
    }
    @Test
    void eachKnobReadsBackAndBuildsTheCheck() {
        balancer.setHealthCheckPath("/ready");
        balancer.setHealthCheckExpectedStatus(204);
        balancer.setHealthCheckInterval("3s");
        balancer.setHealthCheckJitter("50ms");
        balancer.setHealthCheckTimeout("700ms");
        balancer.setHealthCheckUnhealthyThreshold(4);
        balancer.setHealthCheckHealthyThreshold(5);
        balancer.setHealthCheckEndCalls(false);
        ActiveHealthCheck expected = new ActiveHealthCheck("/ready", 204, Duration.ofSeconds(3), Duration.ofMillis(50),
                Duration.ofMillis(700), 4, 5, false);
        assertThat(balancer.getHealthCheck()).isEqualTo(expected);
        assertThat(balancer.getHealthCheckPath()).isEqualTo("/ready");
        assertThat(balancer.getHealthCheckExpectedStatus()).isEqualTo(204);
        assertThat(balancer.getHealthCheckInterval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(balancer.getHealthCheckJitter()).isEqualTo(Duration.ofMillis(50));
        assertThat(balancer.getHealthCheckTimeout()).isEqualTo(Duration.ofMillis(700));
        assertThat(balancer.getHealthCheckUnhealthyThreshold()).isEqualTo(4);
        assertThat(balancer.getHealthCheckHealthyThreshold()).isEqualTo(5);
        assertThat(balancer.isHealthCheckEndCalls()).isFalse();
        balancer.setHealthCheck(ActiveHealthCheck.of("/live"));
        assertThat(balancer.getHealthCheck()).isEqualTo(ActiveHealthCheck.of("/live"));
        assertThat(balancer.getHealthCheckPath()).isEqualTo("/live");
        assertThat(balancer.isHealthCheckEndCalls()).isTrue();
    }
    @Test
    void aProbeThatThrowsCountsAsAFailedCheck() {
        throwing = "c.test";
        try (CapturedLog log = new CapturedLog("io.github.agentlb.health")) {
            startChecking();
            fake.advance(Duration.ofMillis(2400));
            assertThat(balancer.getEjectedAgents()).containsExactly("c");
            assertThat(log.lines().stream().filter(l -> l.contains("in a row"))).containsExactly("WARN strategy=fixed"
                    + " agent=c marked down: 2 health checks in a row failed (http://c.test:8082/health"
                    + " IllegalStateException: no connection to c.test)");
        }
        throwing = null;
        fake.advance(Duration.ofMillis(4400));
        assertThat(balancer.getEjectedAgents()).as("its chain goes on").isEmpty();
    }

    @Test
    void anAgentAddedWhileRunningIsProbedAndOneRemovedIsNoLonger() {
        startChecking();
        statuses.put("d.test", 200);
        balancer.addAgent("d", new Addressed("agent:http://d.test:8083", "d"), 1);
        balancer.removeAgent("a");
        probed.clear();

        fake.advance(Duration.ofSeconds(30));

        assertThat(probed).extracting(URI::getHost).contains("d.test").doesNotContain("a.test");
    }
}
