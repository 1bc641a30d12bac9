package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentFailure;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.NoAgentAvailableException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's log during an outage (a user's trial: 3 dead agents, 300 requests, 658 lines, a WARN
 * per request): the first failure of each agent and reason at WARN, its repeats within
 * {@link RepeatedWarnings#WINDOW} at DEBUG, counted by the next WARN of that reason. On an
 * injected clock.
 */
class ProxyAnswersLogTest {

    private final AtomicLong now = new AtomicLong(0);
    private final ProxyAnswers answers = new ProxyAnswers(ProxyConfig.ofDefaults(), () -> "rr", url -> url, now::get);
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Logger logger = ((LoggerContext) LogManager.getContext(false)).getLogger(ProxyRoutes.class.getName());
    private final AbstractAppender appender = new AbstractAppender("answers-log", null, null, true, Property.EMPTY_ARRAY) {
        @Override
        public void append(LogEvent event) {
            if (event.getLevel().isMoreSpecificThan(Level.INFO)) {
                lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        }
    };
    private CamelContext camel;

    @BeforeEach
    void capture() {
        camel = new DefaultCamelContext();
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void release() throws Exception {
        logger.removeAppender(appender);
        camel.close();
    }

    @Test
    void threeHundredRequestsToThreeDeadAgentsWithin10SecondsLogOneWarning() {
        for (int i = 0; i < 300; i++) {
            answers.noAgent(failed("r" + i, rotated(List.of("A1", "A2", "A3"), i)));
            now.addAndGet(Duration.ofMillis(30).toNanos());
        }

        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("WARN request=r0 answered 503: all 3 agents tried failed: A1 (connection refused)");
    }

    @Test
    void theNextWarningAfterTheWindowSaysHowManyWentToDebug() {
        for (int i = 0; i < 300; i++) {
            answers.noAgent(failed("r" + i, List.of("A1", "A2", "A3")));
        }
        now.addAndGet(RepeatedWarnings.WINDOW.toNanos());
        answers.noAgent(failed("late", List.of("A1", "A2", "A3")));

        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).isEqualTo("WARN request=late answered 503: all 3 agents tried failed: A1 (connection refused),"
                + " A2 (connection refused), A3 (connection refused) (and 299 more like it since, at DEBUG)");
    }

    @Test
    void theFirstOfEachDistinctReasonIsAWarning() {
        answers.noAgent(failed("r1", List.of("A1", "A2", "A3")));
        answers.noAgent(failed("r2", List.of("A1", "A2")));
        answers.noAgent(failed("r3", List.of("A1", "A2")));
        answers.noAgent(failed("r4", List.of()));
        answers.noAgent(failed("r5", List.of()));

        assertThat(lines).extracting(line -> line.substring(0, line.indexOf(" answered")))
                .containsExactly("WARN request=r1", "WARN request=r2", "WARN request=r4");
    }

    @Test
    void aSessionWhoseAgentIsDownIsToldWhichAgentAndWhatToDo() {
        Exchange exchange = failed("s1", List.of());
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, new NoAgentAvailableException("No agent available: the agent holding"
                + " this session, A2, is marked down by health checks; retry later, or start a new session", exchange, null,
                List.of(), Set.of("A2"), "A2"));
        answers.noAgent(exchange);
        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(503);
        // The JSON detail is the line's text after "answered 503: ".
        assertThat(lines).containsExactly("WARN request=s1 answered 503: the agent holding this session, A2, is marked down"
                + " by health checks; retry later, or start a new session");
        // Made elsewhere with another message: that message, never a failure of the proxy's own.
        Exchange other = failed("s2", List.of());
        other.setProperty(Exchange.EXCEPTION_CAUGHT, new NoAgentAvailableException("A2 is busy", other, null, List.of(),
                Set.of(), "A2"));
        answers.noAgent(other);
        assertThat(other.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(503);
        assertThat(lines).last().asString().startsWith("WARN request=s2 answered 503: A2 is busy");
    }

    /** Every agent busy (or unavailable) for a while: the proxy's own 429s are logged as its 503s are, bounded. */
    @Test
    void fiftyRequestsTurnedAwayBecauseEveryAgentIsBusyLogOneLine() {
        for (int i = 0; i < 50; i++) {
            Exchange exchange = failed("b" + i, List.of());
            exchange.setProperty(Exchange.EXCEPTION_CAUGHT, new io.github.agentlb.camel.AgentsBusyException(
                    "every agent is busy", exchange, 30 - i / 2));
            answers.allBusy(exchange);
            assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
            now.addAndGet(Duration.ofMillis(100).toNanos());
        }
        now.addAndGet(RepeatedWarnings.WINDOW.toNanos());
        Exchange late = failed("late", List.of());
        late.setProperty(Exchange.EXCEPTION_CAUGHT, new io.github.agentlb.camel.AgentsBusyException("every agent is busy", late, 5));
        answers.allBusy(late);

        assertThat(lines).containsExactly("INFO request=b0 answered 429: every agent is busy, retry after 30 s",
                "INFO request=late answered 429: every agent is busy, retry after 5 s (and 49 more like it since, at DEBUG)");
    }

    /** A request whose one agent (its session's, its handle's) is busy while others are free: the line names that agent. */
    @Test
    void aBusyAnswerForTheOneAgentOfARequestNamesItNotEveryAgent() {
        Exchange exchange = failed("h1", List.of());
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, new io.github.agentlb.camel.AgentsBusyException(
                "Agent A1 is busy", exchange, 3, "A1"));
        answers.allBusy(exchange);
        assertThat(exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
        assertThat(lines).containsExactly("INFO request=h1 answered 429: agent A1, the only one left for this request,"
                + " is busy, retry after 3 s");
    }

    /** An agent added at runtime by name (an agents file) is named in answers as the log names it, not by its URL. */
    @Test
    void anAgentAddedByNameIsNamedNotGivenByItsUrl() {
        ProxyAnswers fleet = new ProxyAnswers(ProxyConfig.ofDefaults(), () -> "rr",
                id -> id.equals("L3") ? "http://127.0.0.1:28293" : id, now::get);
        assertThat(fleet.label("L3")).isEqualTo("L3");
        assertThat(fleet.label("agent:http://127.0.0.1:28294")).as("an unnamed agent: its URL")
                .isEqualTo("agent:http://127.0.0.1:28294");
        Exchange exchange = failed("s3", List.of());
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, new NoAgentAvailableException("No agent available: the agent holding"
                + " this session, L3, is marked down by health checks; retry later, or start a new session", exchange, null,
                List.of(), Set.of("L3"), "L3"));
        fleet.noAgent(exchange);
        assertThat(lines).last().asString().contains("the agent holding this session, L3, is marked down");
    }

    /** A request the stopping balancer turned away (one that waited in its queue) closes its connection: the next goes elsewhere. */
    @Test
    void aRequestTurnedAwayWhileTheBalancerStopsClosesItsConnection() {
        Exchange exchange = failed("q1", List.of());
        io.netty.channel.embedded.EmbeddedChannel client = new io.netty.channel.embedded.EmbeddedChannel();
        io.github.agentlb.camel.http.NettyDownstream.install(exchange, client, new io.netty.handler.codec.http.DefaultFullHttpRequest(
                io.netty.handler.codec.http.HttpVersion.HTTP_1_1, io.netty.handler.codec.http.HttpMethod.POST, "/process/q1"),
                "/process/q1", null);
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, new NoAgentAvailableException("The balancer is stopping: it takes"
                + " no new request", exchange, null, List.of(), Set.of()));
        answers.noAgent(exchange);
        io.netty.handler.codec.http.HttpResponse answer = client.readOutbound();
        assertThat(answer.status().code()).isEqualTo(503);
        assertThat(answer.headers().get("Retry-After")).isEqualTo("5");
        assertThat(answer.headers().get("Connection")).isEqualTo("close");
    }

    /**
     * At DEBUG (an operator's trial: 200 requests while every agent was down gave 1 WARN and 400 DEBUG
     * lines), each request turned away writes one line of its own, its cause on it, with no
     * {@code Exchange[]} dump.
     */
    @Test
    void atDebugEachRequestTurnedAwayWritesOneLineWithItsCause() {
        List<String> all = atDebug(() -> {
            for (int i = 0; i < 3; i++) {
                answers.noAgent(failed("d" + i, List.of()));
            }
        });

        assertThat(all).hasSize(3);
        assertThat(all.get(0)).startsWith("WARN request=d0 answered 503: the rr balancer has no agent to try")
                .endsWith("; cause: NoAgentAvailableException: No agent available");
        assertThat(all.get(1)).startsWith("DEBUG request=d1 answered 503: the rr balancer has no agent to try")
                .endsWith("; cause: NoAgentAvailableException: No agent available").doesNotContain("Exchange[");
    }

    /**
     * A client that leaves is an everyday event (nginx's 499): one line at DEBUG, none at INFO (the
     * trial: 100 clients leaving a stream, 87 INFO lines beside their decision lines); a call the
     * proxy itself ended (a client that took none of the answer for the idle timeout) stays at INFO.
     */
    @Test
    void aClientThatLeftIsOneLineAtDebug() {
        Exchange left = failed("c1", List.of());
        left.setProperty(io.github.agentlb.camel.AgentLb.AGENT_PROPERTY, "A1");
        left.setProperty(Exchange.EXCEPTION_CAUGHT, null);
        Exchange early = failed("c2", List.of());
        early.setProperty(Exchange.EXCEPTION_CAUGHT, null);
        Exchange streaming = failed("c3", List.of());
        streaming.setProperty(io.github.agentlb.camel.AgentLb.AGENT_PROPERTY, "A1");
        streaming.setProperty(Exchange.EXCEPTION_CAUGHT, io.github.agentlb.camel.http.AgentCallCancelledException.clientLeft(
                "the client closed its connection: call to agent A1 cancelled"));
        Exchange slow = failed("c4", List.of());
        slow.setProperty(io.github.agentlb.camel.AgentLb.AGENT_PROPERTY, "A1");
        slow.setProperty(Exchange.EXCEPTION_CAUGHT, new io.github.agentlb.camel.http.AgentCallCancelledException(
                "the client took none of agent A1's answer for 1000 ms: cut"));

        List<String> all = atDebug(() -> {
            answers.cancelled(left);
            answers.cancelled(early);
            answers.cancelled(streaming);
            answers.cancelled(slow);
        });

        assertThat(all).containsExactly("DEBUG request=c1 cancelled: the client closed its connection, agent A1 call stopped",
                "DEBUG request=c2 cancelled: the client closed its connection before any agent was called",
                "DEBUG request=c3 cancelled: the client closed its connection: call to agent A1 cancelled",
                "INFO request=c4 cancelled: the client took none of agent A1's answer for 1000 ms: cut");
        assertThat(left.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(ProxyRoutes.CLIENT_CLOSED_REQUEST);
    }

    /** Every line {@code run} logs on the proxy's logger, the logger at DEBUG meanwhile. */
    private List<String> atDebug(Runnable run) {
        List<String> all = new CopyOnWriteArrayList<>();
        AbstractAppender every = new AbstractAppender("answers-debug", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                all.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        };
        Level before = logger.getLevel();
        every.start();
        logger.addAppender(every);
        logger.setLevel(Level.DEBUG);
        try {
            run.run();
        } finally {
            logger.setLevel(before);
            logger.removeAppender(every);
        }
        return all;
    }

    /** An exchange the balancer gave up on after {@code refused} agents refused the connection, in that order. */
    private Exchange failed(String requestId, List<String> refused) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.setProperty(ProxyRoutes.REQUEST_PROPERTY, new ProxyRequest(ProxyRequest.Kind.PROXY, "/process/" + requestId, null, requestId, null));
        List<AgentFailure> failures = new ArrayList<>();
        for (String agent : refused) {
            failures.add(new AgentFailure(agent, "connection refused", AttemptOutcome.FAILED_BEFORE_SEND,
                    new ConnectException("Connection refused")));
        }
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, new NoAgentAvailableException("No agent available", exchange, null,
                failures, refused.isEmpty() ? Set.of("A1", "A2", "A3") : Set.of()));
        return exchange;
    }

    private static List<String> rotated(List<String> agents, int by) {
        List<String> order = new ArrayList<>(agents);
        java.util.Collections.rotate(order, by);
        return order;
    }
}
