package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.testing.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MCP 2025-11-25 session streams through an {@code agent:} endpoint: a client that leaves does not
 * cancel the agent's call, and an agent that closes the stream after a {@code retry:} field (to make
 * its client poll) is not failed. 2026-07-28 requests and streams without a session keep today's
 * behaviour. End to end: real sockets and time.
 */
@Tag("e2e")
@Timeout(60)
class LegacyMcpStreamsTest {

    private static final String LEGACY = "MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: s-1\r\n";
    /** What an MCP client's {@code POST} must accept. */
    private static final String MCP_ACCEPT = "Accept: application/json, text/event-stream\r\n";
    private static final String MODERN = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Session-Id: s-1\r\n";
    /** A 2026-07-28 {@code subscriptions/listen} request. */
    private static final String LISTEN = "POST /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nContent-Length: 2\r\n"
            + "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n\r\n{}";
    private final BlockingQueue<AttemptOutcome> outcomes = new LinkedBlockingQueue<>();
    private final List<String> ejected = new ArrayList<>();
    private CamelContext camel;
    private String base;

    /**
     * One answered stream through a route before any check: the first request in a JVM loads the
     * classes of the whole path (the agent connection's pipeline, the route's streaming), which on a
     * starved CPU with the client compiler alone took more than the 1 s the checks give a stream's head
     * to reach its client; they time the forwarding of a head, not that loading.
     */
    @BeforeAll
    static void warmUp() throws Exception {
        LegacyMcpStreamsTest warm = new LegacyMcpStreamsTest();
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write("data: 1\n\n".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().close();
        })) {
            warm.route(agent.baseUrl());
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(warm.base + "/mcp"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.body()).isEqualTo("data: 1\n\n");
        } finally {
            warm.stop();
        }
    }

    @AfterEach
    void stop() {
        if (camel != null) {
            camel.stop();
        }
    }

    private void route(String agentUrl) throws Exception {
        route(agentUrl, "idleTimeout=2s");
    }

    private void route(String agentUrl, String options) throws Exception {
        int port = FreePorts.next();
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.addAttemptListener((strategy, agent, outcome, elapsed) -> outcomes.add(outcome));
        balancer.addHealthListener(new io.github.agentlb.camel.HealthListener() {
            @Override
            public void agentEjected(String agentId, java.time.Duration ejectionTime) {
                ejected.add(agentId);
            }
        });
        camel = new DefaultCamelContext();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true")
                        .errorHandler(noErrorHandler())
                        .loadBalance(balancer).to("agent:" + agentUrl + "?" + options).end();
            }
        });
        camel.start();
        base = "http://127.0.0.1:" + port;
    }

    /**
     * An agent on a raw socket that answers each request with an SSE head and one chunk, {@code event},
     * then closes the connection without the terminating chunk.
     */
    private static final class ClosingAgent implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger calls = new AtomicInteger();

        ClosingAgent(String event) throws IOException {
            Thread thread = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket socket = server.accept()) {
                        HangingAgent.skipHead(socket.getInputStream());
                        calls.incrementAndGet();
                        byte[] body = event.getBytes(StandardCharsets.UTF_8);
                        OutputStream out = socket.getOutputStream();
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + Integer.toHexString(body.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        out.write(body);
                        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "closing-agent");
            thread.setDaemon(true);
            thread.start();
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @Test
    void aLegacyStreamClosedAfterARetryFieldEndsCleanlyAndEjectsNoAgent() throws Exception {
        try (ClosingAgent agent = new ClosingAgent("id: s-1/0\nretry: 10\ndata: \n\n")) {
            route(agent.baseUrl());
            for (int i = 0; i < 8; i++) {
                String wire = RawHttp.talk(base, "GET /mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\nLast-Event-ID: s-1/0\r\n" + LEGACY + "\r\n");
                assertThat(wire).startsWith("HTTP/1.1 200 OK").contains("retry: 10").endsWith("0\r\n\r\n");
                assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
            }
            assertThat(agent.calls.get()).isEqualTo(8);
            assertThat(ejected).isEmpty();
        }
    }

    @Test
    void aModernOrSessionlessStreamClosedMidwayIsStillCutAndCounted() throws Exception {
        try (ClosingAgent agent = new ClosingAgent("id: 0\nretry: 10\ndata: \n\n")) {
            route(agent.baseUrl());
            for (String headers : List.of(MODERN, "", "Mcp-Session-Id: s-1\r\n".replace("s-1", "s-2") + "MCP-Protocol-Version: 2027-01-01\r\n")) {
                String wire = RawHttp.talk(base, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n" + headers + "\r\n{}");
                assertThat(wire).startsWith("HTTP/1.1 200 OK").doesNotEndWith("0\r\n\r\n");
                assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.FAILED_AFTER_FIRST_BYTE);
            }
        }
    }

    /**
     * An agent that answers a 20-event stream, one event every 50 ms ({@code ids}: each with an
     * {@code id:} field); sets {@code whole[0]} when it wrote them all, counts {@code ended} down when it stops.
     */
    private static ScriptedAgent twentyEvents(boolean ids, CountDownLatch ended, boolean[] whole) throws IOException {
        return ScriptedAgent.start((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            try {
                for (int i = 1; i <= 20; i++) {
                    out.write(((ids ? "id: " + i + "\n" : "") + "data: " + i + "\n\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    Thread.sleep(50);
                }
                out.close();
                whole[0] = true;
            } finally {
                ended.countDown();
            }
        });
    }

    /** Starts a 20-event stream (one event every 50 ms), reads its first event and leaves; returns whether the agent wrote all 20. */
    private boolean leaveAStream(String headers) throws Exception {
        return leaveAStreamOf("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n" + headers + "\r\n{}");
    }

    private boolean leaveAStreamOf(String clientRequest) throws Exception {
        return leaveAStreamOf(clientRequest, true);
    }

    /** As {@link #leaveAStreamOf(String)}; {@code ids}: whether the agent's events carry an {@code id:} field. */
    private boolean leaveAStreamOf(String clientRequest, boolean ids) throws Exception {
        CountDownLatch ended = new CountDownLatch(1);
        boolean[] whole = {false};
        try (ScriptedAgent agent = twentyEvents(ids, ended, whole)) {
            route(agent.baseUrl());
            try (Socket socket = sent(clientRequest)) {
                readUntil(socket.getInputStream(), new StringBuilder(), "data: 1\n");
            }
            assertThat(ended.await(10, TimeUnit.SECONDS)).isTrue();
            return whole[0];
        }
    }

    @Test
    void aClientLeavingALegacySessionStreamDoesNotCancelTheAgentsCall() throws Exception {
        assertThat(leaveAStream(MCP_ACCEPT + LEGACY)).as("the agent wrote its 20 events").isTrue();
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
    }

    /**
     * A streamed chat completion whose client sends {@code Mcp-Session-Id} (a route whose learned
     * sessions use that header for LLM calls too) and accepts only JSON, as the OpenAI SDKs do, is no
     * MCP stream: MCP's clients must accept {@code text/event-stream}. Its client leaving cancels it.
     */
    @Test
    void aStreamWhoseClientAcceptsNoEventStreamIsNoLegacyMcpStream() throws Exception {
        assertThat(leaveAStream("Accept: application/json\r\nMcp-Session-Id: s-1\r\n"))
                .as("the agent's writes failed").isFalse();
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(leaveAStream("Accept: application/json, text/event-stream\r\n" + LEGACY))
                .as("an MCP client's stream, read to its end").isTrue();
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
    }

    /**
     * A stream whose agent gives its events no id cannot be resumed (a client resumes from the last
     * event id it saw), so it is no legacy MCP session stream whatever the request carries: an LLM
     * stream whose client sends a learned {@code Mcp-Session-Id} and {@code Accept: *}{@code /*}
     * (curl's) is cancelled when its client leaves, as every other stream.
     */
    @Test
    void aClientLeavingAStreamWithoutEventIdsCancelsTheAgentsCallWhateverItsHeaders() throws Exception {
        String chat = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n";
        assertThat(leaveAStreamOf(chat + "Accept: */*\r\nMcp-Session-Id: s-1\r\n\r\n{}", false))
                .as("the agent's writes failed").isFalse();
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(leaveAStreamOf(chat + "Accept: text/event-stream\r\n" + LEGACY + "\r\n{}", false))
                .as("the agent's writes failed").isFalse();
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(leaveAStreamOf(chat + MCP_ACCEPT + "Mcp-Session-Id: s-1\r\n\r\n{}", true))
                .as("with event ids and MCP's Accept: read to its end, for a resumption").isTrue();
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
    }

    /**
     * An LLM stream whose events carry ids, to a client that sends a learned {@code Mcp-Session-Id}
     * and accepts anything ({@code *}{@code /*}: curl, fetch, Python's requests) or sends no
     * {@code Accept}: no MCP client's {@code POST}, which must name {@code text/event-stream}. Its
     * client leaving cancels it.
     */
    @Test
    void aPostWhoseClientDoesNotNameEventStreamsIsNoLegacyMcpStreamEvenWithEventIds() throws Exception {
        String chat = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nMcp-Session-Id: s-1\r\n";
        for (String accept : List.of("Accept: */*\r\n", "", "Accept: text/*\r\n")) {
            assertThat(leaveAStreamOf(chat + accept + "\r\n{}", true)).as("[%s] the agent's writes failed", accept).isFalse();
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).as(accept).isEqualTo(AttemptOutcome.CANCELLED);
        }
    }

    /**
     * A legacy session's GET stream (its standing stream, or a resumption) is closed when its
     * client leaves: the server keeps its events for the next resumption, and one that allows a
     * single standing stream per session (the TypeScript SDK answers a second with 409) takes the
     * client's reconnect.
     */
    @Test
    void aClientLeavingALegacyGetStreamCancelsTheAgentsCall() throws Exception {
        assertThat(leaveAStreamOf("GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n" + LEGACY + "\r\n"))
                .as("the agent's writes failed").isFalse();
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
    }

    @Test
    void aClientLeavingAModernStreamCancelsTheAgentsCallAsBefore() throws Exception {
        assertThat(leaveAStream(MODERN)).as("the agent's writes failed").isFalse();
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
    }

    /** Opens a GET stream whose agent sends only an SSE head and then nothing; returns what the client read. */
    private String idleStream(String headers) throws Exception {
        return idleStreamOf("GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n" + headers + "\r\n");
    }

    private String idleStreamOf(String clientRequest) throws Exception {
        return idleStreamOf(clientRequest, "");
    }

    /** As {@link #idleStreamOf(String)}, the agent sending {@code firstEvent} after its head. */
    private String idleStreamOf(String clientRequest, String firstEvent) throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write(firstEvent.getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            Thread.sleep(4_000);
        })) {
            route(agent.baseUrl());
            URI uri = URI.create(base);
            try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
                socket.setSoTimeout(1_000);
                socket.getOutputStream().write(clientRequest.getBytes(StandardCharsets.US_ASCII));
                InputStream in = socket.getInputStream();
                StringBuilder seen = new StringBuilder();
                // The head within 1 s (the idle timeout is 2 s): it goes to the client as it arrives.
                while (!seen.toString().endsWith("\r\n\r\n")) {
                    int b = read(in);
                    assertThat(b).isNotNegative();
                    seen.append((char) b);
                }
                socket.setSoTimeout(10_000);
                // Then to the answer's end (a kept-alive connection) or the connection's.
                for (int b = in.read(); b >= 0 && !seen.toString().endsWith("\r\n0\r\n\r\n"); b = in.read()) {
                    seen.append((char) b);
                    if (seen.toString().endsWith("\r\n0\r\n\r\n")) {
                        break;
                    }
                }
                return seen.toString();
            }
        }
    }

    /** One byte, or an assertion error naming the wait that passed. */
    private static int read(InputStream in) throws IOException {
        try {
            return in.read();
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("no answer head within 1 s of the agent's", e);
        }
    }

    /**
     * Streams that wait for events rather than an answer never end by themselves, so a proxy that
     * stops would wait its whole shutdown timeout for them (30 s in the demo, each resumable on
     * another replica): when the CamelContext begins to stop, a legacy session's GET stream ends
     * cleanly, as at its idle timeout, for its client to resume elsewhere, and the stop goes on.
     */
    @Test
    void aLegacyGetStreamEndsCleanlyWhenTheProxyBeginsToStop() throws Exception {
        String wire = streamWhileTheProxyStops("GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n" + LEGACY + "\r\n");
        assertThat(wire).as("ended cleanly").endsWith("\r\n0\r\n\r\n");
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
    }

    /**
     * A legacy session's {@code POST} stream after an event id (a tool call under way) ends for its
     * client too, to resume on another replica, and its agent's call is read on to its end, as when the
     * client leaves: a rolling restart does not cut the tool call whose result the client resumes for.
     */
    @Test
    void aLegacyPostStreamEndsForItsClientWhenTheProxyBeginsToStopAndItsAgentsCallRunsToItsEnd() throws Exception {
        CountDownLatch ended = new CountDownLatch(1);
        boolean[] whole = {false};
        try (ScriptedAgent agent = twentyEvents(true, ended, whole)) {
            route(agent.baseUrl());
            camel.getShutdownStrategy().setTimeout(30);
            try (Socket socket = sent("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n" + MCP_ACCEPT + LEGACY
                    + "\r\n{}")) {
                StringBuilder seen = new StringBuilder();
                java.util.concurrent.CompletableFuture<Void> stopped = stopWhileReading(socket.getInputStream(), seen,
                        "data: 1\n");
                assertThat(seen.toString()).as("ended cleanly for its client").endsWith("\r\n0\r\n\r\n");
                assertThat(ended.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(whole[0]).as("the agent wrote its 20 events").isTrue();
                stopped.get(10, TimeUnit.SECONDS);
            }
        }
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
    }

    /** So does a 2026-07-28 {@code subscriptions/listen}, closed as at its idle timeout, not counted against its agent. */
    @Test
    void aListenStreamIsClosedWhenTheProxyBeginsToStop() throws Exception {
        assertClosedNotCounted(streamWhileTheProxyStops(LISTEN));
    }

    /** A stream closed, not ended (the client sees it cut), and its attempt cancelled, ejecting no agent. */
    private void assertClosedNotCounted(String wire) throws InterruptedException {
        assertThat(wire).startsWith("HTTP/1.1 200 OK").doesNotEndWith("0\r\n\r\n");
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(ejected).isEmpty();
    }

    /**
     * Opens a stream whose agent sends a head and one event, then nothing (idle timeout 60 s), stops
     * the CamelContext (shutdown timeout 30 s) and checks that it stopped within 10 s; returns what
     * the client read to the answer's end or the connection's.
     */
    private String streamWhileTheProxyStops(String clientRequest) throws Exception {
        try (HangingAgent agent = new HangingAgent("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n13\r\nid: s-1/0\ndata: 1\n\n\r\n")) {
            route(agent.baseUrl(), "idleTimeout=60s");
            camel.getShutdownStrategy().setTimeout(30);
            try (Socket socket = sent(clientRequest)) {
                StringBuilder seen = new StringBuilder();
                stopWhileReading(socket.getInputStream(), seen, "data: 1").get(10, TimeUnit.SECONDS);
                assertThat(agent.closed.await(5, TimeUnit.SECONDS)).isTrue();
                return seen.toString();
            }
        }
    }

    /**
     * Reads {@code in} into {@code seen} up to {@code mark}, then stops the CamelContext on another
     * thread and reads on to the answer's end or the connection's; returns the stop.
     */
    private java.util.concurrent.CompletableFuture<Void> stopWhileReading(InputStream in, StringBuilder seen, String mark)
            throws IOException {
        readUntil(in, seen, mark);
        java.util.concurrent.CompletableFuture<Void> stopped = java.util.concurrent.CompletableFuture.runAsync(camel::stop);
        for (int b = in.read(); b >= 0 && !seen.toString().endsWith("\r\n0\r\n\r\n"); b = in.read()) {
            seen.append((char) b);
        }
        return stopped;
    }

    /** A connection to the route with {@code clientRequest} sent on it, reads timing out after 10 s. */
    private Socket sent(String clientRequest) throws java.io.IOException {
        URI uri = URI.create(base);
        Socket socket = new Socket(uri.getHost(), uri.getPort());
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(clientRequest.getBytes(StandardCharsets.US_ASCII));
        return socket;
    }

    /** Reads {@code in} into {@code seen} until it holds {@code mark}; the stream's end before that fails the test. */
    private static void readUntil(InputStream in, StringBuilder seen, String mark) throws java.io.IOException {
        while (!seen.toString().contains(mark)) {
            int b = in.read();
            assertThat(b).isNotNegative();
            seen.append((char) b);
        }
    }

    @Test
    void anIdleLegacyStreamGetsItsHeadAtOnceAndEndsCleanlyAtTheIdleTimeout() throws Exception {
        String wire = idleStream(LEGACY);
        assertThat(wire).startsWith("HTTP/1.1 200 OK").endsWith("0\r\n\r\n");
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
        assertThat(ejected).isEmpty();
    }

    /**
     * A GET's event stream without a session header, as MCP 2024-11-05's HTTP+SSE transport opens its
     * session ({@code GET /sse}, its first event the endpoint to post to) and a browser's EventSource
     * listens, both naming {@code text/event-stream} in {@code Accept}, waits for events: its silence is no
     * failure of its agent. At the idle timeout it is ended cleanly (the client reconnects) and its attempt
     * is a success, ejecting no agent. A GET that does not ask for an event stream is an answer like any
     * other (AgentOptionsTest: cut and counted).
     */
    @Test
    void anIdleSessionlessGetStreamEndsCleanlyAtTheIdleTimeoutAndEjectsNoAgent() throws Exception {
        for (String accept : List.of("Accept: text/event-stream\r\n", "Accept: application/json, text/event-stream\r\n")) {
            String wire = idleStreamOf("GET /sse HTTP/1.1\r\nHost: x\r\n" + accept + "\r\n",
                    "event: endpoint\ndata: /messages?sessionId=abc\n\n");
            assertThat(wire).as(accept).startsWith("HTTP/1.1 200 OK").contains("data: /messages?sessionId=abc")
                    .endsWith("0\r\n\r\n");
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).as(accept).isEqualTo(AttemptOutcome.SUCCESS);
        }
        assertThat(ejected).isEmpty();
    }

    /**
     * A legacy session's POST stream that stays quiet is ended cleanly for its client to resume only
     * once its agent gave an event an id; before that nothing can resume it, so the client's answer
     * is cut, and the attempt ends cancelled: a long tool call's silence is no failure of the agent.
     */
    @Test
    void aStalledLegacyPostStreamEndsCleanlyOnlyAfterAnEventId() throws Exception {
        String post = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n" + MCP_ACCEPT + LEGACY + "\r\n{}";
        String withoutId = idleStreamOf(post, "data: 1\n\n");
        assertThat(withoutId).startsWith("HTTP/1.1 200 OK").contains("data: 1").doesNotEndWith("0\r\n\r\n");
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(ejected).isEmpty();
        String withId = idleStreamOf(post, "id: 7\ndata: 1\n\n");
        assertThat(withId).startsWith("HTTP/1.1 200 OK").contains("id: 7").endsWith("0\r\n\r\n");
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
    }

    @Test
    void anIdleModernStreamGetsItsHeadAtOnceAndIsCutAtTheIdleTimeout() throws Exception {
        String wire = idleStream(MODERN);
        assertThat(wire).startsWith("HTTP/1.1 200 OK").doesNotEndWith("0\r\n\r\n");
        assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.FAILED_AFTER_FIRST_BYTE);
    }

    /**
     * A 2026-07-28 {@code subscriptions/listen} waits for notifications, so its silence is no
     * failure of its agent: at the idle timeout it is closed (the client reconnects) and the attempt
     * ends cancelled, ejecting no agent.
     */
    @Test
    void anIdleListenStreamIsClosedAtTheIdleTimeoutAndNotCountedAgainstItsAgent() throws Exception {
        assertClosedNotCounted(idleStreamOf(LISTEN));
    }
}
