package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.orca.LoadReports;
import io.netty.handler.codec.DecoderException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One exchange's attempts step by step: a balancer whose strategy offers a fixed candidate order,
 * in-memory agents with scripted answers, an injected clock. Called from outside a route, Camel's
 * reactive executor runs every step before {@code process} returns, so nothing waits.
 */
class AttemptsTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** What an agent does with an attempt. */
    private interface Script {
        void run(Exchange attempt, AsyncCallback callback);
    }

    private static final Script OK = (attempt, callback) -> callback.done(true);

    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
    private final Map<String, Script> scripts = new HashMap<>();
    private final Map<String, Long> slowness = new HashMap<>();
    private final List<String> events = new ArrayList<>();
    private List<String> order = List.of("a", "b", "c");
    private RuntimeException completedFailure;
    private Error completedError;
    /** The key rank of every selection; NaN: keyless. */
    private double rank = Double.NaN;
    private Fixed balancer;

    /** A strategy that always offers {@link #order}; records the hooks it is called with. */
    private final class Fixed extends AgentLoadBalancerSupport {
        Fixed() {
            super(new Strategy() {
                @Override
                public String name() {
                    return "fixed";
                }

                @Override
                public Picker newPicker(BalancerState state) {
                    return exchange -> new Selection(order.iterator(), () -> "detail=1", rank);
                }

                @Override
                public void attemptStarted(String agentId, Exchange attempt) {
                    events.add("started " + agentId);
                }

                @Override
                public boolean needsAttemptTimes() {
                    return true;
                }

                @Override
                public void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos,
                        Selection selection) {
                    events.add("completed " + agentId + " " + outcome + " " + elapsedNanos / MS + " ms");
                    if (completedFailure != null) {
                        throw completedFailure;
                    }
                    if (completedError != null) {
                        throw completedError;
                    }
                }

                @Override
                public void agentReadmitted(String agentId) {
                    events.add("readmitted " + agentId);
                }
            });
        }
    }

    private ScriptedChild agent(String id) {
        return ScriptedChild.scripted(id, (attempt, callback) -> {
            clock.addAndGet(slowness.getOrDefault(id, 0L));
            attempt.getMessage().setBody("answer of " + id);
            scripts.getOrDefault(id, OK).run(attempt, callback);
            return true;
        });
    }

    private static Script failing(Exception failure) {
        return (attempt, callback) -> {
            attempt.setException(failure);
            callback.done(true);
        };
    }

    private static final Script REFUSE = failing(new ConnectException("Connection refused"));
    private static final Script READ_TIMEOUT = failing(new SocketTimeoutException("Read timed out"));

    /** An answer with {@code status} and, unless null, that {@code Retry-After}. */
    private static Script answering(int status, String retryAfter) {
        return (attempt, callback) -> {
            attempt.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
            if (retryAfter != null) {
                attempt.getMessage().setHeader(AnswerRules.RETRY_AFTER, retryAfter);
            }
            callback.done(true);
        };
    }

    /** A successful answer that carries a load report saying the agent is saturated. */
    private static final Script SATURATED = (attempt, callback) -> {
        attempt.getMessage().setHeader(LoadReports.HEADER, "TEXT named_metrics.kv_cache_usage_perc=0.9");
        callback.done(true);
    };


    @BeforeEach
    void startBalancer() {
        balancer = new Fixed();
        balancer.useNanoClock(clock::get);
        balancer.addAttemptListener((strategy, agent, outcome, elapsed) ->
                events.add("listener " + strategy + " " + agent + " " + outcome));
        balancer.addHealthListener(new RecordingHealthListener(events, "listener "));
        ScriptedChild.started(balancer, CAMEL.get(), agent("a"), agent("b"), agent("c"));
    }

    private Exchange send(String method) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setBody("ping");
        if (method != null) {
            exchange.getIn().setHeader(Exchange.HTTP_METHOD, method);
        }
        AtomicInteger callbacks = new AtomicInteger();
        balancer.process(exchange, sync -> callbacks.incrementAndGet());
        assertThat(callbacks.get()).as("the callback runs exactly once").isEqualTo(1);
        return exchange;
    }

    private static String body(Exchange exchange) {
        return exchange.getMessage().getBody(String.class);
    }

    @Test
    void aSuccessfulFirstAttemptAnswersAndNamesTheAgent() {
        slowness.put("a", 5 * MS);
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isNull();
        assertThat(body(exchange)).isEqualTo("answer of a");
        assertThat(exchange.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("a");
        assertThat(exchange.getProperty(AgentLb.STRATEGY_PROPERTY)).isEqualTo("fixed");
        assertThat(events).containsExactly("started a", "completed a SUCCESS 5 ms", "listener fixed a SUCCESS");
    }

    @Test
    void aRefusedAttemptIsEjectedAndTheNextCandidateAnswers() {
        scripts.put("a", REFUSE);
        slowness.put("a", 7 * MS);
        Exchange exchange = send("POST");
        assertThat(body(exchange)).isEqualTo("answer of b");
        assertThat(exchange.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("b");
        assertThat(events).containsExactly("started a", "completed a FAILED_BEFORE_SEND 7 ms",
                "listener fixed a FAILED_BEFORE_SEND", "listener ejected a 10 s",
                "started b", "completed b SUCCESS 0 ms", "listener fixed b SUCCESS");
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
        assertThat(balancer.getEjections()).isEqualTo(1);
    }

    @Test
    void unknownAndRepeatedCandidatesAreSkipped() {
        order = List.of("x", "a", "a", "y", "b");
        scripts.put("a", REFUSE);
        Exchange exchange = send("GET");
        assertThat(body(exchange)).isEqualTo("answer of b");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started a", "started b");
    }

    @Test
    void whenEveryCandidateFailsTheExceptionListsTriedFailuresAndEjectedAgents() {
        order = List.of("a", "b");
        scripts.put("a", REFUSE);
        scripts.put("b", READ_TIMEOUT);
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageStartingWith("No agent available: 2 of 3 agents tried, each failed: a (connection refused),"
                        + " b (timed out); ejected: a, b. Exchange[")
                .hasCauseInstanceOf(SocketTimeoutException.class);
        NoAgentAvailableException failure = (NoAgentAvailableException) exchange.getException();
        assertThat(failure.failures()).extracting(AgentFailure::toString)
                .containsExactly("a (connection refused)", "b (timed out)");
        assertThat(failure.failures()).extracting(AgentFailure::outcome)
                .containsExactly(AttemptOutcome.FAILED_BEFORE_SEND, AttemptOutcome.FAILED_AFTER_SEND);
        assertThat(failure.ejectedAgents()).containsExactlyInAnyOrder("a", "b");
        assertThat(exchange.getProperty(AgentLb.AGENT_PROPERTY)).isNull();
    }

    @Test
    void withoutEjectionsTheMessageEndsAtTheFailures() {
        balancer.setOutlierEjection(OutlierEjection.disabled());
        order = List.of("a");
        scripts.put("a", REFUSE);
        assertThat(send("GET").getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageStartingWith("No agent available: 1 of 3 agents tried, each failed: a (connection refused). Exchange[");
    }

    @Test
    void aStrategyThatSelectsNoAgentFailsTheExchangeSayingSo() {
        order = List.of("x");
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageStartingWith("No agent available: the fixed balancer selected no agent. Exchange[").hasNoCause();
        assertThat(((NoAgentAvailableException) exchange.getException()).failures()).isEmpty();
        assertThat(events).isEmpty();
    }

    @Test
    void ejectedCandidatesAreTriedLastOnTrialAndReadmittedWhenTheyAnswer() {
        scripts.put("a", REFUSE);
        send("GET");
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
        scripts.remove("a");
        scripts.put("b", REFUSE);
        scripts.put("c", REFUSE);
        events.clear();
        Exchange exchange = send("GET");
        assertThat(body(exchange)).as("a is still ejected: tried after b and c").isEqualTo("answer of a");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started b", "started c", "started a");
        assertThat(events).contains("readmitted a", "listener readmitted a");
        assertThat(events.indexOf("readmitted a")).isLessThan(events.indexOf("listener readmitted a"));
        assertThat(balancer.getEjectedAgents()).as("c not: at most 2 of 3 agents are ejected at once").containsExactly("b");
    }

    /** A call sent after its agent was re-admitted counts: its failure ejects the agent again (the generation of its send is the new one). */
    @Test
    void aReadmittedAgentsNextFailureEjectsItAgain() {
        scripts.put("a", REFUSE);
        send("GET");
        scripts.remove("a");
        clock.addAndGet(10 * SECOND);
        assertThat(body(send("GET"))).isEqualTo("answer of a");
        assertThat(balancer.getEjectedAgents()).isEmpty();
        scripts.put("a", REFUSE);
        for (int i = 0; i < 3 && balancer.getEjectedAgents().isEmpty(); i++) {
            send("GET");
        }
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
    }

    @Test
    void ejectedCandidatesThatFailTheirTrialAreEachTriedOnce() {
        List.of("a", "b", "c").forEach(agent -> scripts.put(agent, REFUSE));
        send("GET");
        assertThat(balancer.getEjectedAgents()).containsExactly("a", "b");
        events.clear();
        assertThat(send("GET").getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageStartingWith("No agent available: 3 of 3 agents tried, each failed: c (connection refused),"
                        + " a (connection refused), b (connection refused); ejected: a, b. Exchange[");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started c", "started a", "started b");
    }

    @Test
    void anAgentWhoseTimeIsUpIsTriedInItsTurn() {
        scripts.put("a", REFUSE);
        send("GET");
        scripts.remove("a");
        clock.addAndGet(10 * SECOND);
        events.clear();
        assertThat(body(send("GET"))).isEqualTo("answer of a");
        assertThat(events).containsExactly("started a", "completed a SUCCESS 0 ms", "listener fixed a SUCCESS",
                "readmitted a", "listener readmitted a");
        assertThat(balancer.getEjectedAgents()).isEmpty();
    }

    @Test
    void anAnswerThatIsAnErrorEndsTheExchangeWithoutFailover() {
        scripts.put("a", failing(new IllegalStateException("HTTP 500")));
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isInstanceOf(IllegalStateException.class).hasMessage("HTTP 500");
        assertThat(exchange.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("a");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started a");
        assertThat(balancer.getEjectedAgents()).isEmpty();
    }

    @Test
    void anAnswerThatIsNotHttpFailsOverAGetAndEjectsTheAgent() {
        // What camel-netty-http's producer reports through the demo proxy's binding for "NOT HTTP AT ALL".
        scripts.put("a", failing(new DecoderException(new IllegalArgumentException("invalid version format: NOT"))));
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isNull();
        assertThat(body(exchange)).isEqualTo("answer of b");
        assertThat(events).contains("completed a FAILED_AFTER_SEND 0 ms", "listener ejected a 10 s");
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
    }

    @Test
    void aFailureAfterSendOfAPostEndsWithTheAttemptsOwnException() {
        scripts.put("a", READ_TIMEOUT);
        Exchange exchange = send("POST");
        assertThat(exchange.getException()).isInstanceOf(SocketTimeoutException.class).hasMessage("Read timed out");
        assertThat(exchange.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("a");
        assertThat(events).contains("listener ejected a 10 s").filteredOn(e -> e.startsWith("started")).containsExactly("started a");
    }

    @Test
    void theFailoverLimitIsNamedInTheMessage() {
        List.of("a", "b", "c").forEach(agent -> scripts.put(agent, REFUSE));
        balancer.setOutlierEjection(OutlierEjection.disabled());
        balancer.setMaximumFailoverAttempts(0);
        assertThat(send("GET").getException()).hasMessageStartingWith(
                "No agent available: 1 of 3 agents tried, each failed (maximumFailoverAttempts=0): a (connection refused). Exchange[");
        balancer.setMaximumFailoverAttempts(1);
        assertThat(send("GET").getException()).hasMessageStartingWith("No agent available: 2 of 3 agents tried, each failed"
                + " (maximumFailoverAttempts=1): a (connection refused), b (connection refused). Exchange[");
    }

    @Test
    void theDeadlineIsNamedWhenItStopsFailoverBeforeTheCount() {
        List.of("a", "b", "c").forEach(agent -> scripts.put(agent, REFUSE));
        balancer.setOutlierEjection(OutlierEjection.disabled());
        balancer.setMaximumFailoverAttempts(3);
        balancer.setFailoverDeadline(Duration.ofMillis(10));
        slowness.put("a", 4 * MS);
        slowness.put("b", 6 * MS);
        assertThat(send("GET").getException()).as("b started at 4 ms, c would start at 10 ms").hasMessageStartingWith(
                "No agent available: 2 of 3 agents tried, each failed (failoverDeadline=10 ms):"
                        + " a (connection refused), b (connection refused). Exchange[");
    }

    @Test
    void aStoppedBalancerDoesNotFailOver() {
        scripts.put("a", (attempt, callback) -> {
            balancer.stop();
            attempt.setException(new ConnectException("Connection refused"));
            callback.done(true);
        });
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isInstanceOf(ConnectException.class);
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started a");
    }

    @Test
    void aHookThatThrowsDoesNotStopTheExchange() {
        completedFailure = new IllegalStateException("hook broke");
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isNull();
        assertThat(body(exchange)).isEqualTo("answer of a");
        assertThat(events).containsExactly("started a", "completed a SUCCESS 0 ms", "listener fixed a SUCCESS");
    }

    @Test
    void anAgentThatThrowsInsteadOfAnsweringIsAFailedAttempt() {
        scripts.put("a", (attempt, callback) -> {
            throw new IllegalStateException("agent threw");
        });
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isInstanceOf(IllegalStateException.class).hasMessage("agent threw");
        assertThat(events).containsExactly("started a", "completed a EXCEPTION_ANSWER 0 ms", "listener fixed a EXCEPTION_ANSWER");
    }

    @Test
    void anAgentThatAnswersThenThrowsCountsOnce() {
        scripts.put("a", (attempt, callback) -> {
            callback.done(true);
            throw new IllegalStateException("after the answer");
        });
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isNull();
        assertThat(events).containsExactly("started a", "completed a SUCCESS 0 ms", "listener fixed a SUCCESS");
    }

    @Test
    void aSecondCallbackFromAnAgentIsIgnored() {
        scripts.put("a", (attempt, callback) -> {
            callback.done(false);
            callback.done(true);
        });
        Exchange exchange = send("GET");
        assertThat(body(exchange)).isEqualTo("answer of a");
        assertThat(events).containsExactly("started a", "completed a SUCCESS 0 ms", "listener fixed a SUCCESS");
    }

    @Test
    void anAsynchronousAnswerIsMeasuredAndHandledAfterTheAgentReturns() {
        scripts.put("a", (attempt, callback) -> {
            clock.addAndGet(3 * MS);
            callback.done(false);
            events.add("agent returned");
        });
        Exchange exchange = send("GET");
        assertThat(body(exchange)).isEqualTo("answer of a");
        assertThat(events).containsExactly("started a", "agent returned", "completed a SUCCESS 3 ms",
                "listener fixed a SUCCESS");
    }

    @Test
    void aSynchronousAnswerIsHandledBeforeTheAgentReturns() {
        scripts.put("a", (attempt, callback) -> {
            callback.done(true);
            events.add("agent returned");
        });
        send("GET");
        assertThat(events).containsExactly("started a", "completed a SUCCESS 0 ms", "listener fixed a SUCCESS",
                "agent returned");
    }

    @Test
    void anErrorThatIsNotAnExceptionIsWrapped() {
        scripts.put("a", (attempt, callback) -> {
            throw new AssertionError("agent broke");
        });
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isInstanceOf(CamelExchangeException.class)
                .hasMessageStartingWith("Balancer failed: java.lang.AssertionError: agent broke")
                .hasCauseInstanceOf(AssertionError.class);
    }

    @Test
    void aCallbackThatThrowsAfterTheAnswerDoesNotChangeTheOutcome() {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        AtomicInteger callbacks = new AtomicInteger();
        balancer.process(exchange, sync -> {
            callbacks.incrementAndGet();
            throw new IllegalStateException("callback broke");
        });
        assertThat(callbacks.get()).isEqualTo(1);
        assertThat(exchange.getException()).isNull();
        assertThat(body(exchange)).isEqualTo("answer of a");
    }

    @Test
    void theDecisionLogNamesEachAttemptTrialAndFailover() {
        scripts.put("a", REFUSE);
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            send("GET");
            scripts.remove("a");
            scripts.put("b", REFUSE);
            scripts.put("c", REFUSE);
            Exchange second = new DefaultExchange(CAMEL.get());
            second.getIn().setHeader(AgentLb.REQUEST_ID_HEADER, "r2");
            second.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
            balancer.process(second, sync -> { });
            assertThat(log.lines()).hasSize(5);
            assertThat(log.lines().get(0)).endsWith(" strategy=fixed agent=a detail=1");
            assertThat(log.lines().get(1)).endsWith(" strategy=fixed failover to agent=b after a (connection refused)");
            assertThat(log.lines().subList(2, 5)).containsExactly(
                    "INFO request=r2 strategy=fixed agent=b detail=1 ejected=[a]",
                    "INFO request=r2 strategy=fixed failover to agent=c after b (connection refused)",
                    "INFO request=r2 strategy=fixed failover to agent=a (trial) after c (connection refused)");
        }
    }

    @Test
    void anAsynchronousAnswerWhoseHandlingThrowsAnErrorStillFailsTheExchangeOnce() {
        completedError = new AssertionError("hook broke badly");
        scripts.put("a", (attempt, callback) -> callback.done(false));
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isInstanceOf(CamelExchangeException.class)
                .hasMessageStartingWith("Balancer failed: java.lang.AssertionError: hook broke badly")
                .hasCauseInstanceOf(AssertionError.class);
    }

    @Test
    void aBusy503WithRetryAfterRestsTheAgentAndAGetGoesOn() {
        scripts.put("a", answering(503, "1"));
        Exchange exchange = send("GET");
        assertThat(body(exchange)).isEqualTo("answer of b");
        assertThat(events).contains("completed a BUSY 0 ms", "listener fixed a BUSY");
        events.clear();
        assertThat(body(send("GET"))).as("a rests for its Retry-After").isEqualTo("answer of b");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started b");
    }

    @Test
    void aFailoverAfterABusyAnswerNamesItBusyAndAfterA503WithoutRetryAfterUnavailable() {
        scripts.put("a", answering(429, null));
        scripts.put("b", answering(503, null));
        scripts.put("c", answering(503, "1"));
        order = List.of("a", "b", "c");
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            send("GET");
            assertThat(log.lines().get(1)).endsWith(" failover to agent=b after a (busy 429)");
            assertThat(log.lines().get(2)).endsWith(" failover to agent=c after b (unavailable 503)");
        }
        clock.addAndGet(10 * SECOND);
        order = List.of("c", "a");
        scripts.put("a", OK);
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            send("GET");
            assertThat(log.lines()).element(1).asString().endsWith(" failover to agent=a after c (busy 503)");
        }
    }

    @Test
    void aBusyAnswerIsLoggedWithItsStatusAndRest() {
        scripts.put("a", answering(429, "2"));
        try (CapturedLog log = new CapturedLog("io.github.agentlb.health")) {
            send("GET");
            assertThat(log.lines()).containsExactly("INFO strategy=fixed agent=a busy status=429 rests=2000 ms");
        }
    }

    @Test
    void anAgentWhoseRestEndsNowIsTriedInItsTurnWhileAnotherStillRests() {
        scripts.put("a", answering(429, "1"));
        scripts.put("b", answering(429, "2"));
        assertThat(body(send("GET"))).isEqualTo("answer of c");
        scripts.clear();
        clock.addAndGet(SECOND);
        events.clear();
        assertThat(body(send("GET"))).isEqualTo("answer of a");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started a");
        events.clear();
        order = List.of("b", "c");
        assertThat(body(send("GET"))).as("b rests a second more").isEqualTo("answer of c");
    }

    @Test
    void whenEveryOfferedAgentRestsTheClientWaitsForTheShortestRestStillRunning() {
        scripts.put("a", answering(429, "1"));
        scripts.put("b", answering(429, "4"));
        scripts.put("c", answering(429, "4"));
        Exchange first = send("GET");
        assertThat(first.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(first.getMessage().getHeader(AnswerRules.RETRY_AFTER)).as("a rests 1 s").isEqualTo("1");
        assertThat(body(first)).isEqualTo("answer of c");

        clock.addAndGet(SECOND);
        order = List.of("b", "c");
        events.clear();
        Exchange second = send("GET");
        assertThat(second.getException()).isInstanceOf(AgentsBusyException.class)
                .hasMessageStartingWith("Every agent is busy: retry after 3 s");
        assertThat(((AgentsBusyException) second.getException()).retryAfterSeconds())
                .as("a's rest ended just now: b and c rest 3 s more").isEqualTo(3);
        assertThat(events).isEmpty();
    }

    @Test
    void aBusyAnswerGivenWhenNoRestIsLeftSaysRetryAfterOneSecond() {
        order = List.of("a", "b");
        scripts.put("a", answering(429, "1"));
        scripts.put("b", REFUSE);
        slowness.put("b", 2 * SECOND);
        Exchange exchange = send("GET");
        assertThat(exchange.getException()).isNull();
        assertThat(body(exchange)).isEqualTo("answer of a");
        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(exchange.getMessage().getHeader(AnswerRules.RETRY_AFTER)).as("a's rest ended a second ago").isEqualTo("1");
    }

    /** An agent tried long after its rest ended does not shorten the Retry-After of another agent's rest still running. */
    @Test
    void anAgentTriedLongAfterItsRestEndedLeavesTheRetryAfterToTheRestStillRunning() {
        order = List.of("a", "b");
        scripts.put("a", answering(429, "1"));
        assertThat(body(send("GET"))).isEqualTo("answer of b");
        clock.addAndGet(60 * SECOND);
        scripts.put("a", REFUSE);
        scripts.put("b", answering(429, "3"));

        Exchange exchange = send("GET");

        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(body(exchange)).isEqualTo("answer of b");
        assertThat(exchange.getMessage().getHeader(AnswerRules.RETRY_AFTER)).as("b's rest, not a's long over").isEqualTo("3");
    }

    /** An agent passed over whose rest ends just as the exchange gives up does not shorten the Retry-After to 1 s. */
    @Test
    void anAgentWhoseRestEndsAsTheExchangeGivesUpLeavesTheRetryAfterToTheRestStillRunning() {
        order = List.of("a", "b");
        scripts.put("a", answering(429, "1"));
        assertThat(body(send("GET"))).isEqualTo("answer of b");
        scripts.put("b", answering(429, "3"));
        slowness.put("b", SECOND);

        Exchange exchange = send("GET");

        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(body(exchange)).isEqualTo("answer of b");
        assertThat(exchange.getMessage().getHeader(AnswerRules.RETRY_AFTER)).as("a's rest is over at b's answer").isEqualTo("3");
    }

    @Test
    void aBusyAnswerFailsOverWithinTheFailoverCount() {
        balancer.setMaximumFailoverAttempts(1);
        scripts.put("a", answering(429, "1"));
        assertThat(body(send("GET"))).isEqualTo("answer of b");
        clock.addAndGet(SECOND);
        scripts.put("b", answering(429, "1"));
        events.clear();
        Exchange exchange = send("GET");
        assertThat(body(exchange)).as("one failover only: c is not asked").isEqualTo("answer of b");
        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started a", "started b");
    }

    @Test
    void aBusyAnswerFailsOverWithinTheFailoverDeadline() {
        balancer.setFailoverDeadline(Duration.ofMillis(10));
        scripts.put("a", answering(429, "1"));
        slowness.put("a", 4 * MS);
        assertThat(body(send("GET"))).as("b starts 4 ms after a").isEqualTo("answer of b");
    }

    @Test
    void errorAnswersInARowEjectTheAgentAndTellTheHealthListener() {
        scripts.put("a", answering(500, null));
        for (int i = 0; i < 4; i++) {
            assertThat(body(send("GET"))).isEqualTo("answer of a");
        }
        assertThat(events).noneMatch(e -> e.contains("ejected"));
        send("GET");
        assertThat(events).filteredOn(e -> e.contains("ejected")).containsExactly("listener ejected a 10 s");
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
    }

    @Test
    void aReadmittedAgentRampsUpAgainWithSlowStart() {
        balancer.setSlowStart(new SlowStart(Duration.ofSeconds(60), 1.0, 0.5));
        scripts.put("a", REFUSE);
        send("GET");
        scripts.remove("a");
        clock.addAndGet(10 * SECOND);
        assertThat(body(send("GET"))).as("a's trial").isEqualTo("answer of a");
        assertThat(balancer.balancerState().warmingSince()).containsOnlyKeys("a");
        assertThat(List.of(body(send("GET")), body(send("GET")), body(send("GET")), body(send("GET"))))
                .as("a keeps half of its share").containsExactly("answer of b", "answer of a", "answer of b", "answer of a");
    }

    @Test
    void anAgentThatSlowStartHoldsBackIsTriedWhenTheOthersFail() {
        balancer.setSlowStart(new SlowStart(Duration.ofSeconds(60), 1.0, 0.1));
        balancer.addAgent("d", agent("d"), 1.0);
        order = List.of("d", "a");
        assertThat(body(send("GET"))).as("d keeps a tenth of its share").isEqualTo("answer of a");
        scripts.put("a", REFUSE);
        events.clear();
        assertThat(body(send("GET"))).isEqualTo("answer of d");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started a", "started d");

        scripts.put("d", REFUSE);
        order = List.of("d", "b");
        scripts.put("b", REFUSE);
        events.clear();
        assertThat(send("GET").getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageStartingWith("No agent available: 2 of 4 agents tried, each failed: b (connection refused),"
                        + " d (connection refused)");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started b", "started d");
    }

    @Test
    void aWarmingAgentKeepsTheKeysRankedBelowItsPartOfItsShare() {
        balancer.setSlowStart(new SlowStart(Duration.ofSeconds(10), 1.0, 0.1));
        balancer.addAgent("d", agent("d"), 1.0);
        order = List.of("d", "a");
        clock.addAndGet(5 * SECOND);
        rank = 0.5;
        assertThat(body(send("GET"))).as("halfway through its ramp d keeps keys ranked below 0.5").isEqualTo("answer of a");
        rank = Math.nextDown(0.5);
        assertThat(body(send("GET"))).isEqualTo("answer of d");
    }

    @Test
    void aSaturatedAgentIsTriedAfterTheOthersFailAndOnlyOnce() {
        balancer.setOutlierEjection(OutlierEjection.disabled());
        order = List.of("a");
        scripts.put("a", SATURATED);
        send("GET");
        order = List.of("a", "b");
        scripts.put("b", REFUSE);
        events.clear();
        assertThat(body(send("GET"))).isEqualTo("answer of a");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started b", "started a");

        scripts.put("a", REFUSE);
        events.clear();
        assertThat(send("GET").getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageStartingWith("No agent available: 2 of 3 agents tried, each failed: b (connection refused),"
                        + " a (connection refused). Exchange[");
        assertThat(events).filteredOn(e -> e.startsWith("started")).containsExactly("started b", "started a");
    }

    /** a and b report saturation; c answers 429 and rests 100 ms (the reports stay fresh 200 ms). */
    private void saturateAAndBWhileCRests() {
        balancer.setDefaultRest(Duration.ofMillis(100));
        scripts.put("a", SATURATED);
        scripts.put("b", SATURATED);
        scripts.put("c", answering(429, null));
        for (String agent : List.of("c", "a", "b")) {
            order = List.of(agent);
            send("GET");
        }
        scripts.clear();
        order = List.of("a", "b", "c");
    }

    /**
     * Sends a GET and checks that {@code agent} answered it and that the one decision line logged
     * for it ends with {@code agent=<agent> <detail>}.
     */
    private void assertAnsweredByWithDecision(String agent, String detail) {
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            assertThat(body(send("GET"))).isEqualTo("answer of " + agent);
            assertThat(log.lines()).singleElement().asString().endsWith(" strategy=fixed agent=" + agent + " " + detail);
        }
    }

    @Test
    void aRestingAgentDoesNotCountWhenAskingWhetherEveryAgentIsSaturated() {
        saturateAAndBWhileCRests();
        clock.addAndGet(50 * MS);
        assertAnsweredByWithDecision("a", "detail=1");
    }

    @Test
    void anAgentWhoseRestEndsNowCountsAsNotSaturated() {
        saturateAAndBWhileCRests();
        clock.addAndGet(100 * MS);
        assertAnsweredByWithDecision("c", "detail=1 saturated=[a, b]");
    }

    @Test
    void anEjectedAgentDoesNotCountWhenAskingWhetherEveryAgentIsSaturated() {
        order = List.of("c");
        scripts.put("c", REFUSE);
        send("GET");
        scripts.put("a", SATURATED);
        scripts.put("b", SATURATED);
        order = List.of("a");
        send("GET");
        order = List.of("b");
        send("GET");
        order = List.of("a", "b", "c");
        assertAnsweredByWithDecision("a", "detail=1 ejected=[c]");
    }

    @Test
    void aDrainFinishesWhenItsLastRequestInFlightAnswers() {
        List<AsyncCallback> held = new ArrayList<>();
        scripts.put("a", (attempt, callback) -> held.add(callback));
        Exchange exchange = new DefaultExchange(CAMEL.get());
        AtomicInteger callbacks = new AtomicInteger();
        balancer.process(exchange, sync -> callbacks.incrementAndGet());
        assertThat(held).hasSize(1);
        var drained = balancer.drainAgent("a");
        assertThat(drained).isNotDone();
        assertThat(balancer.balancerState().members()).contains("a");
        held.get(0).done(false);
        assertThat(callbacks.get()).isEqualTo(1);
        assertThat(body(exchange)).isEqualTo("answer of a");
        assertThat(drained).isDone();
        assertThat(balancer.balancerState().members()).containsExactly("b", "c");
    }

    @Test
    void anAnswerToARequestSentBeforeTheEjectionLeavesTheAgentEjected() {
        List<AsyncCallback> held = new ArrayList<>();
        scripts.put("a", (attempt, callback) -> held.add(callback));
        Exchange slow = new DefaultExchange(CAMEL.get());
        balancer.process(slow, sync -> { });
        scripts.put("a", REFUSE);
        assertThat(body(send("GET"))).isEqualTo("answer of b");
        assertThat(balancer.getEjectedAgents()).containsExactly("a");
        held.get(0).done(false);
        assertThat(body(slow)).isEqualTo("answer of a");
        assertThat(balancer.getEjectedAgents()).as("the answer says nothing of a now").containsExactly("a");
        assertThat(events).doesNotContain("readmitted a");
    }
}
