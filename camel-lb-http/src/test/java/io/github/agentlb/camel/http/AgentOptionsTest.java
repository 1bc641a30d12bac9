package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.FailureClassifier;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.testing.FreePorts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each endpoint option at work behind camel-netty-http's consumer: the timeouts, the answer size
 * limit, the pool; and the meters an endpoint registers. End to end: real sockets and time.
 */
@Tag("e2e")
@Timeout(60)
class AgentOptionsTest {

    /** The head of a Server-Sent Events answer and its first event, after which a hanging agent goes quiet. */
    private static final String ONE_EVENT = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n";
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final BlockingQueue<AttemptOutcome> outcomes = new LinkedBlockingQueue<>();
    private SimpleMeterRegistry meters;
    private CamelContext camel;
    private String base;

    @AfterEach
    void stop() {
        if (camel != null) {
            camel.stop();
        }
    }

    /** A route over one agent at {@code agentUrl} with these options: 504 for an answer timeout, 502 for any other failure. */
    private void route(String agentUrl, String options) throws Exception {
        route(FreePorts.next(), agentUrl, options);
    }

    /** {@link #route(String, String)} listening on {@code port}. */
    private void route(int port, String agentUrl, String options) throws Exception {
        route(port, List.of(agentUrl), options);
    }

    /** A route over the agents at {@code agentUrls}, each with these options, listening on {@code port}. */
    private void route(int port, List<String> agentUrls, String options) throws Exception {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.addAttemptListener((strategy, agent, outcome, elapsed) -> outcomes.add(outcome));
        camel = new DefaultCamelContext();
        meters = new SimpleMeterRegistry();
        camel.getRegistry().bind(AgentComponent.METER_REGISTRY_NAME, meters);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true")
                        .errorHandler(noErrorHandler())
                        .doTry()
                            .loadBalance(balancer).to(agentUrls.stream().map(u -> "agent:" + u + "?" + options)
                                    .toArray(String[]::new)).end()
                        .endDoTry()
                        .doCatch(Exception.class)
                            .process(e -> {
                                boolean timeout = FailureClassifier.classify(e.getProperty(Exchange.EXCEPTION_CAUGHT,
                                        Exception.class)) == AttemptOutcome.ANSWER_TIMED_OUT;
                                e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, timeout ? 504 : 502);
                                e.getMessage().setBody("{\"error\":\"" + (timeout ? "gateway timeout" : "bad gateway") + "\"}");
                            })
                        .end();
            }
        });
        camel.start();
        base = "http://127.0.0.1:" + port;
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void noFirstByteWithinItsTimeoutIs504AndAnAnswerTimeout() throws Exception {
        try (ScriptedAgent slow = ScriptedAgent.slow(1_500)) {
            route(slow.baseUrl(), "firstByteTimeout=300ms");

            HttpResponse<String> response = get("/process/slow");

            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.ANSWER_TIMED_OUT);
        }
    }

    @Test
    void anAgentQuietLongerThanTheIdleTimeoutHasItsAnswerCut() throws Exception {
        try (HangingAgent agent = new HangingAgent(ONE_EVENT)) {
            route(agent.baseUrl(), "idleTimeout=300ms");

            String wire = RawHttp.talk(base, "GET /process/sse HTTP/1.1\r\nHost: x\r\n\r\n");

            assertThat(wire).startsWith("HTTP/1.1 200 OK").contains("data: 1").doesNotEndWith("0\r\n\r\n");
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.FAILED_AFTER_FIRST_BYTE);
            assertThat(agent.closed.await(1, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** A GET through a route over {@code agent} (first-byte timeout 30 s), once the agent has it. */
    private java.util.concurrent.CompletableFuture<HttpResponse<String>> callHanging(HangingAgent agent) throws Exception {
        route(agent.baseUrl(), "firstByteTimeout=30s");
        java.util.concurrent.CompletableFuture<HttpResponse<String>> response = client.sendAsync(
                HttpRequest.newBuilder(URI.create(base + "/process/r1")).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(agent.requested.await(10, TimeUnit.SECONDS)).isTrue();
        return response;
    }

    /**
     * The endpoint stopping (its route or the CamelContext stops, a drain timeout run out) cuts the
     * calls it has in flight: they end cancelled, never counted against their agent (no ejection,
     * no failover to another agent).
     */
    @Test
    void aCallCutByTheEndpointsStopEndsCancelledNotAgainstItsAgent() throws Exception {
        try (HangingAgent agent = new HangingAgent("")) {
            java.util.concurrent.CompletableFuture<HttpResponse<String>> response = callHanging(agent);

            camel.getEndpoint("agent:" + agent.baseUrl() + "?firstByteTimeout=30s").stop();

            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(agent.closed.await(5, TimeUnit.SECONDS)).isTrue();
            response.cancel(true);
        }
    }

    /**
     * So does one cut when the CamelContext's shutdown timeout runs out (the demo's drain timeout):
     * the consumer's event loops, which the agent connections share, close them as they shut down.
     */
    @Test
    void aCallCutWhenTheShutdownTimeoutRunsOutEndsCancelledNotAgainstItsAgent() throws Exception {
        try (HangingAgent agent = new HangingAgent("")) {
            java.util.concurrent.CompletableFuture<HttpResponse<String>> response = callHanging(agent);

            camel.getShutdownStrategy().setTimeout(1);
            camel.stop();

            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(outcomes).as("no failover").isEmpty();
            response.cancel(true);
        }
    }

    /**
     * The stall rule needs two in a row: one client that leaves a call far slower than recent
     * answers is a cancellation (a user pressing stop before an LLM's first token), the same agent's
     * next stall is its answer timeout, and an answer in between starts the count again. One stall
     * ejected a healthy agent for 10 s (consecutiveFailures 1).
     */
    @Test
    void aStallCountsAgainstItsAgentOnlyTheSecondTimeInARow() throws Exception {
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            if (!request.target().contains("fast")) {
                never.await();
            }
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("ok".getBytes(StandardCharsets.UTF_8));
        })) {
            // Factor 1: the wait past one fast answer is a stall even when a starved CPU slowed that answer.
            route(agent.baseUrl(), "minStallTime=200ms&stallFactor=1");
            assertThat(get("/process/fast").statusCode()).isEqualTo(200);
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);

            assertThat(leaveAfter("/process/slow1", 500)).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(leaveAfter("/process/slow2", 500)).isEqualTo(AttemptOutcome.ANSWER_TIMED_OUT);

            assertThat(get("/process/fast").statusCode()).isEqualTo(200);
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(leaveAfter("/process/slow3", 500)).as("counted from the answer").isEqualTo(AttemptOutcome.CANCELLED);
        } finally {
            never.countDown();
        }
    }

    /**
     * The stall rule while clients wait: an agent that hangs on calls (its probe may still answer)
     * held each patient client until the first-byte timeout (60 s by default), a third of all
     * requests under rr, and stayed in the rotation meanwhile. Now a call waiting past the rule's
     * wait while another agent answers counts as a stall, and the second in a row ends as the hung
     * agent's failure after send: the agent is ejected, the GET and the next requests go to the
     * other. The first is left to run.
     */
    @Test
    void aSecondCallInARowWaitingPastTheStallRuleWhileOthersAnswerIsTheAgentsFailure() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (ScriptedAgent hung = ScriptedAgent.start((exchange, request) -> {
                    if (!request.target().contains("fast")) {
                        release.await();
                    }
                    exchange.sendResponseHeaders(200, 4);
                    exchange.getResponseBody().write("hung".getBytes(StandardCharsets.UTF_8));
                });
                ScriptedAgent other = ScriptedAgent.start((exchange, request) -> {
                    exchange.sendResponseHeaders(200, 5);
                    exchange.getResponseBody().write("other".getBytes(StandardCharsets.UTF_8));
                })) {
            route(FreePorts.next(), List.of(hung.baseUrl(), other.baseUrl()),
                    "minStallTime=200ms&stallFactor=1&firstByteTimeout=30s&stallWhileWaiting=true");
            assertThat(get("/process/fast").statusCode()).isEqualTo(200);
            if (get("/process/fast").body().equals("hung")) {
                assertThat(get("/process/fast").body()).as("rr's turns").isEqualTo("other");
            }
            int hungBefore = hung.calls();

            // rr, the hung agent's turn next: slow1 and slow3 to the hung agent, slow2 and slow4 answered by the other while they wait.
            java.util.concurrent.CompletableFuture<HttpResponse<String>> first = sendAsync("/process/slow1");
            awaitCalls(hung, hungBefore + 1); // each at the balancer before the next: their turns are in order
            assertThat(sendAsync("/process/slow2").get(20, TimeUnit.SECONDS).body()).isEqualTo("other");
            java.util.concurrent.CompletableFuture<HttpResponse<String>> third = sendAsync("/process/slow3");
            awaitCalls(hung, hungBefore + 2);
            assertThat(sendAsync("/process/slow4").get(20, TimeUnit.SECONDS).body()).isEqualTo("other");

            AttemptOutcome cut = outcomes.poll(20, TimeUnit.SECONDS);
            while (cut == AttemptOutcome.SUCCESS) { // the other agent's answers, recorded just after they went out
                cut = outcomes.poll(20, TimeUnit.SECONDS);
            }
            assertThat(cut).as("the second wait in a row, long before the first-byte timeout")
                    .isEqualTo(AttemptOutcome.FAILED_AFTER_SEND);
            assertThat(java.util.concurrent.CompletableFuture.anyOf(first, third).get(20, TimeUnit.SECONDS))
                    .as("a GET failed over").extracting(r -> ((HttpResponse<?>) r).body()).isEqualTo("other");
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(get("/process/next").body()).as("the hung agent ejected").isEqualTo("other");
            assertThat(get("/process/next").body()).isEqualTo("other");
            java.util.concurrent.CompletableFuture<HttpResponse<String>> waiting = first.isDone() ? third : first;
            assertThat(waiting.isDone()).as("the first wait in a row is left to run").isFalse();
            release.countDown();
            assertThat(waiting.get(20, TimeUnit.SECONDS).body()).isEqualTo("hung");
            assertThat(hung.calls() - hungBefore).as("no call sent twice to the hung agent").isEqualTo(2);
        } finally {
            release.countDown();
        }
    }

    /**
     * Long calls beside short ones on one agent (an LLM asked for a long answer after quick tool
     * calls) are no stall while their clients wait, by default: the agent's recent answers took
     * milliseconds, so two overlapping 20 s calls waited past the rule's wait while another agent
     * answered, and the second was cut after 1 s (a POST got a 502 while the agent ran it to its
     * end, a GET ran a third time elsewhere) and the agent was ejected. Only the option
     * {@code stallWhileWaiting=true} judges a waiting call.
     */
    @Test
    void longCallsBesideShortOnesAreNotCutWhileTheirClientsWaitByDefault() throws Exception {
        try (ScriptedAgent mixed = ScriptedAgent.start((exchange, request) -> {
                    if (!request.target().contains("fast")) {
                        Thread.sleep(1_500);
                    }
                    exchange.sendResponseHeaders(200, 5);
                    exchange.getResponseBody().write("mixed".getBytes(StandardCharsets.UTF_8));
                });
                ScriptedAgent other = ScriptedAgent.start((exchange, request) -> {
                    exchange.sendResponseHeaders(200, 5);
                    exchange.getResponseBody().write("other".getBytes(StandardCharsets.UTF_8));
                })) {
            route(FreePorts.next(), List.of(mixed.baseUrl(), other.baseUrl()),
                    "minStallTime=200ms&stallFactor=1&firstByteTimeout=30s");
            assertThat(get("/process/fast").statusCode()).isEqualTo(200);
            if (get("/process/fast").body().equals("mixed")) {
                assertThat(get("/process/fast").body()).as("rr's turns").isEqualTo("other");
            }
            int mixedBefore = mixed.calls();
            outcomes.clear();

            // rr, the mixed agent's turn next: long1 and long3 to it, long2 and long4 answered by the other while they wait.
            java.util.concurrent.CompletableFuture<HttpResponse<String>> first = sendAsync("/process/long1");
            awaitCalls(mixed, mixedBefore + 1);
            assertThat(sendAsync("/process/long2").get(20, TimeUnit.SECONDS).body()).isEqualTo("other");
            java.util.concurrent.CompletableFuture<HttpResponse<String>> third = sendAsync("/process/long3");
            awaitCalls(mixed, mixedBefore + 2);
            assertThat(sendAsync("/process/long4").get(20, TimeUnit.SECONDS).body()).isEqualTo("other");

            assertThat(first.get(20, TimeUnit.SECONDS).body()).isEqualTo("mixed");
            assertThat(third.get(20, TimeUnit.SECONDS).body()).as("the second long call, not cut").isEqualTo("mixed");
            assertThat(mixed.calls() - mixedBefore).as("each long call run once").isEqualTo(2);
            for (int i = 0; i < 4; i++) {
                assertThat(outcomes.poll(5, TimeUnit.SECONDS)).as("four answers, no failure").isEqualTo(AttemptOutcome.SUCCESS);
            }
        }
    }

    /**
     * An agent slower than the others by nature (another model, other hardware) is not stalled: its
     * calls waited past ten times the p99 of recent answers, nearly all the fast agents', and the
     * rule cut its second overlapping call and ejected it, again after each re-admission. While the
     * client waits the rule also measures against the agent's own recent answers.
     */
    @Test
    void anAgentSlowByNatureIsNotCutWhileItsClientsWait() throws Exception {
        try (ScriptedAgent fast = ScriptedAgent.echo();
                ScriptedAgent slow = ScriptedAgent.start((exchange, request) -> {
                    Thread.sleep(600);
                    exchange.sendResponseHeaders(200, 4);
                    exchange.getResponseBody().write("slow".getBytes(StandardCharsets.UTF_8));
                })) {
            int port = FreePorts.next();
            int direct = FreePorts.next();
            String options = "minStallTime=100ms&stallFactor=3&firstByteTimeout=30s&stallWhileWaiting=true";
            route(port, List.of(fast.baseUrl(), slow.baseUrl()), options);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("netty-http:http://127.0.0.1:" + direct + "/?matchOnUriPrefix=true").to("agent:" + fast.baseUrl() + "?" + options);
                }
            });
            String balanced = base;
            for (int i = 0; i < 4; i++) {
                assertThat(get("/process/warm" + i).statusCode()).isEqualTo(200); // two answers of each: 600 ms the slow one's
            }
            base = "http://127.0.0.1:" + direct;
            for (int i = 0; i < 300; i++) {
                assertThat(get("/process/fast" + i).statusCode()).isEqualTo(200); // the component's p99 now the fast agent's
            }
            base = balanced;
            int slowBefore = slow.calls();
            outcomes.clear();

            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                calls.add(sendAsync("/process/c" + i));
            }
            base = "http://127.0.0.1:" + direct;
            for (int i = 0; i < 40; i++) {
                get("/process/meanwhile" + i); // other answers while the slow agent's calls wait
            }
            for (var call : calls) {
                assertThat(call.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            assertThat(slow.calls() - slowBefore).as("the slow agent kept its turns").isEqualTo(3);
            assertThat(outcomes).doesNotContain(AttemptOutcome.FAILED_AFTER_SEND, AttemptOutcome.ANSWER_TIMED_OUT);
        }
    }

    private static void awaitCalls(ScriptedAgent agent, int calls) throws InterruptedException {
        for (int i = 0; i < 400 && agent.calls() < calls; i++) {
            Thread.sleep(25);
        }
        assertThat(agent.calls()).isEqualTo(calls);
    }

    private java.util.concurrent.CompletableFuture<HttpResponse<String>> sendAsync(String path) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(40)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Sends a GET on a socket of its own, closes it after {@code millis} without an answer, and gives the attempt's outcome. */
    private AttemptOutcome leaveAfter(String target, long millis) throws Exception {
        URI uri = URI.create(base);
        try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            Thread.sleep(millis);
        }
        return outcomes.poll(5, TimeUnit.SECONDS);
    }

    @Test
    void aStreamLongerThanTheRequestTimeoutIsCut() throws Exception {
        try (ScriptedAgent sse = ScriptedAgent.sse(50, 50)) {
            route(sse.baseUrl(), "requestTimeout=400ms");

            String wire = RawHttp.talk(base, "GET /process/sse HTTP/1.1\r\nHost: x\r\n\r\n");

            assertThat(wire).startsWith("HTTP/1.1 200 OK").contains("data: 1").doesNotContain("data: 50")
                    .doesNotEndWith("0\r\n\r\n");
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.FAILED_AFTER_FIRST_BYTE);
        }
    }

    @Test
    void anAnswerOverMaxAnswerBytesIsRefusedBeforeItsHeadOrCutAfter() throws Exception {
        try (ScriptedAgent withLength = ScriptedAgent.big(2_000, true);
                ScriptedAgent chunked = ScriptedAgent.big(2_000, false)) {
            route(withLength.baseUrl(), "maxAnswerBytes=1000");
            HttpResponse<String> announced = get("/process/big");
            assertThat(announced.statusCode()).isEqualTo(502);
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.EXCEPTION_ANSWER);
            stop();

            route(chunked.baseUrl(), "maxAnswerBytes=1000");
            String wire = RawHttp.talk(base, "GET /process/big HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(wire).startsWith("HTTP/1.1 200 OK").doesNotEndWith("0\r\n\r\n");
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.EXCEPTION_ANSWER);
        }
    }

    /**
     * An answer over {@code maxAnswerBytes} is the answer to that request, as long from any agent:
     * the request goes to no other agent (each would do the whole work again), and the agent, which
     * answered, is not counted as failing (no ejection): the route's 502.
     */
    @Test
    void anAnswerOverMaxAnswerBytesGoesToNoOtherAgentAndCountsAgainstNone() throws Exception {
        try (ScriptedAgent a1 = ScriptedAgent.big(2_000, true); ScriptedAgent a2 = ScriptedAgent.big(2_000, true)) {
            route(FreePorts.next(), List.of(a1.baseUrl(), a2.baseUrl()), "maxAnswerBytes=1000");

            assertThat(get("/process/big").statusCode()).isEqualTo(502);

            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.EXCEPTION_ANSWER);
            assertThat(a1.calls() + a2.calls()).as("agent calls").isEqualTo(1);
            assertThat(outcomes.poll(200, TimeUnit.MILLISECONDS)).as("no second attempt").isNull();
        }
    }

    /**
     * A {@code Content-Length} over {@code maxAnswerBytes} announces no body to a HEAD request, nor
     * in a 304: the answer passes (RFC 9110 9.3.2, 15.4.5), as the same answer with a small length does.
     */
    @Test
    void aHeadAnswerOrA304AnnouncingMoreThanMaxAnswerBytesPasses() throws Exception {
        try (HangingAgent head = new HangingAgent("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n");
                HangingAgent cached = new HangingAgent("HTTP/1.1 304 Not Modified\r\nContent-Length: 5000\r\n\r\n")) {
            route(head.baseUrl(), "maxAnswerBytes=1000");
            String headWire = RawHttp.talk(base, "HEAD /process/big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertThat(headWire).startsWith("HTTP/1.1 200 OK").containsIgnoringCase("content-length: 5000");
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
            stop();

            route(cached.baseUrl(), "maxAnswerBytes=1000");
            String cachedWire = RawHttp.talk(base, "GET /process/cached HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertThat(cachedWire).startsWith("HTTP/1.1 304");
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
        }
    }

    /** The bytes meter counts what went to the client: not the part that crossed {@code maxAnswerBytes}. */
    @Test
    void theBytesMeterCountsOnlyWhatWentToTheClient() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write("ab".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush(); // a chunk of its own
            exchange.getResponseBody().write("cdefg".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
        })) {
            route(agent.baseUrl(), "maxAnswerBytes=4");

            String wire = RawHttp.talk(base, "GET /process/m HTTP/1.1\r\nHost: x\r\n\r\n");

            assertThat(wire).startsWith("HTTP/1.1 200 OK").contains("\r\nab\r\n").doesNotContain("cdefg");
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.EXCEPTION_ANSWER);
            assertThat(meters.get(AgentMetrics.BYTES).tag(AgentMetrics.TAG_AGENT, agent.baseUrl()).functionCounter()
                    .count()).isEqualTo(2);
        }
    }

    @Test
    void callsReuseAKeptAliveConnectionUnlessThePoolIsZero() throws Exception {
        List<Integer> ports = new CopyOnWriteArrayList<>();
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            ports.add(exchange.getRemoteAddress().getPort());
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("ok".getBytes(StandardCharsets.UTF_8));
        })) {
            route(agent.baseUrl(), "poolSize=64");
            for (int i = 0; i < 3; i++) {
                assertThat(get("/process/p" + i).body()).isEqualTo("ok");
            }
            assertThat(ports).hasSize(3).containsOnly(ports.get(0));
            stop();
            ports.clear();

            route(agent.baseUrl(), "poolSize=0");
            for (int i = 0; i < 3; i++) {
                assertThat(get("/process/q" + i).body()).isEqualTo("ok");
            }
            assertThat(ports).hasSize(3).doesNotHaveDuplicates();
        }
    }

    /**
     * With the registry bound before the routes start, an endpoint's meters are there at 0 from the
     * first scrape, before any call: an agent down from the start, never called, had none, and
     * dashboards and alerts on its series found nothing.
     */
    @Test
    void anEndpointsMetersAreThereAtZeroBeforeItsFirstCall() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            route(agent.baseUrl(), "");
            String id = agent.baseUrl();

            assertThat(meters.find(AgentMetrics.ACTIVE).tag(AgentMetrics.TAG_AGENT, id).gauge()).isNotNull()
                    .extracting(g -> g.value()).isEqualTo(0.0);
            assertThat(meters.find(AgentMetrics.ANSWERS).tags(AgentMetrics.TAG_AGENT, id, AgentMetrics.TAG_STATUS, "5xx")
                    .functionCounter()).isNotNull().extracting(c -> c.count()).isEqualTo(0.0);
            assertThat(meters.find(AgentMetrics.BYTES).tag(AgentMetrics.TAG_AGENT, id).functionCounter()).isNotNull();
            assertThat(agent.calls()).isZero();

            assertThat(get("/process/one").statusCode()).isEqualTo(200);
            assertThat(meters.get(AgentMetrics.ANSWERS).tags(AgentMetrics.TAG_AGENT, id, AgentMetrics.TAG_STATUS, "2xx")
                    .functionCounter().count()).isEqualTo(1);
            assertThat(meters.find(AgentMetrics.ACTIVE).tag(AgentMetrics.TAG_AGENT, id).gauges()).as("registered once").hasSize(1);
        }
    }

    @Test
    void anEndpointCountsItsCallsInFlightAnswersByStatusClassAndBytes() throws Exception {
        java.util.concurrent.Semaphore go = new java.util.concurrent.Semaphore(0);
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            exchange.sendResponseHeaders(request.target().endsWith("missing") ? 404 : 200, 0);
            exchange.getResponseBody().write("ab".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            go.acquire();
            exchange.getResponseBody().write("cde".getBytes(StandardCharsets.UTF_8));
        })) {
            route(agent.baseUrl(), "poolSize=1");
            String id = agent.baseUrl();
            var streaming = client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/process/m1")).build(),
                    HttpResponse.BodyHandlers.ofString());
            var search = meters.find(AgentMetrics.ACTIVE).tag(AgentMetrics.TAG_AGENT, id);
            for (int i = 0; i < 200 && (search.gauge() == null || search.gauge().value() < 1); i++) {
                Thread.sleep(25); // registered at the endpoint's first call
            }
            var active = meters.get(AgentMetrics.ACTIVE).tag(AgentMetrics.TAG_AGENT, id).gauge();
            assertThat(active.value()).as("in flight while the answer streams").isEqualTo(1);
            go.release();
            assertThat(streaming.get(10, TimeUnit.SECONDS).body()).isEqualTo("abcde");
            go.release();
            assertThat(get("/process/missing").statusCode()).isEqualTo(404);

            for (int i = 0; i < 200 && active.value() > 0; i++) {
                Thread.sleep(25); // the call ends just after its last byte went out
            }
            assertThat(active.value()).isZero();
            assertThat(meters.get(AgentMetrics.ANSWERS).tags(AgentMetrics.TAG_AGENT, id, AgentMetrics.TAG_STATUS, "2xx")
                    .functionCounter().count()).isEqualTo(1);
            assertThat(meters.get(AgentMetrics.ANSWERS).tags(AgentMetrics.TAG_AGENT, id, AgentMetrics.TAG_STATUS, "4xx")
                    .functionCounter().count()).isEqualTo(1);
            assertThat(meters.get(AgentMetrics.BYTES).tag(AgentMetrics.TAG_AGENT, id).functionCounter().count())
                    .isEqualTo(10);
        }
    }

    /**
     * http-component.md: calls slow by design go through a component of their own, with its own
     * times to first byte for the stall rule.
     */
    @Test
    void aSecondAgentComponentUnderAnotherNameCallsAgentsWithItsOwnFirstByteTimes() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            int port = FreePorts.next();
            camel = new DefaultCamelContext();
            AgentComponent slow = new AgentComponent();
            camel.addComponent("slow-agent", slow);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true")
                            .loadBalance(new RoundRobinLB()).to("slow-agent:" + agent.baseUrl()).end();
                }
            });
            camel.start();
            base = "http://127.0.0.1:" + port;

            assertThat(get("/process/slow").statusCode()).isEqualTo(200);
            assertThat(agent.calls()).isEqualTo(1);
            assertThat(slow.firstByteTimes().p99()).isNotNegative();
            assertThat(camel.getComponent("agent", AgentComponent.class).firstByteTimes().p99()).isNegative();
        }
    }

    /**
     * A client's request that already names {@code agentlb} in {@code Via} more than ten times (a
     * spoofed loop) is sent to no agent and counts against none: before, each agent tried was
     * ejected "after a loop", so one request a second kept every agent of a fleet out.
     */
    @Test
    void aRequestThatArrivesWithTooManyHopsReachesNoAgentAndCountsAgainstNone() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            route(agent.baseUrl(), "");

            HttpResponse<String> spoofed = client.send(HttpRequest.newBuilder(URI.create(base + "/process/spoof"))
                    .header("Via", String.join(", ", java.util.Collections.nCopies(11, "1.1 agentlb")))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(spoofed.statusCode()).isEqualTo(502);
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(outcomes.poll(200, TimeUnit.MILLISECONDS)).as("no other attempt").isNull();
            assertThat(agent.calls()).isZero();
            assertThat(get("/process/next").statusCode()).as("the agent still serves").isEqualTo(200);
            assertThat(agent.calls()).isEqualTo(1);
        }
    }

    /**
     * An agent address that leads back to the route (a proxy listed in its own fleet): each pass
     * adds {@code agentlb} to {@code Via}, and the eleventh is not sent: 11 attempts in all, not one
     * per pass until the first-byte timeout.
     */
    @Test
    void anAgentAddressThatLoopsBackEndsAfterTenHops() throws Exception {
        int port = FreePorts.next();
        route(port, "http://127.0.0.1:" + port, "firstByteTimeout=5s");

        HttpResponse<String> answer = get("/loop");

        assertThat(answer.statusCode()).isEqualTo(502);
        // The outer passes' outcomes are told as their answers end, the client's last: poll for them.
        List<AttemptOutcome> seen = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            AttemptOutcome next = outcomes.poll(5, TimeUnit.SECONDS);
            assertThat(next).as("outcome %d of 11", i + 1).isNotNull();
            seen.add(next);
        }
        assertThat(outcomes.poll(200, TimeUnit.MILLISECONDS)).as("no twelfth attempt").isNull();
        assertThat(seen).hasSize(11);
    }
}
