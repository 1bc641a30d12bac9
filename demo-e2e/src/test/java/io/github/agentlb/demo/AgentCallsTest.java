package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.ChatShape;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.http.HangingAgent;
import io.github.agentlb.camel.http.RawHttp;
import io.github.agentlb.camel.http.ScriptedAgent;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Agent calls as AI agents make them, through the proxy: a JSON prompt by POST, answers that take
 * seconds, Server-Sent Events, large answers, clients that give up. Each test is one of the cases
 * a user met (the proxy answered 405, buffered a stream, cut it at 5 s, sent one prompt to three
 * agents, failed on a 2 MiB answer, ran agent calls to their end after the client had left).
 */
@Tag("e2e")
@Timeout(60)
class AgentCallsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** The head of a Server-Sent Events answer and its first event, after which a hanging agent goes quiet. */
    private static final String ONE_EVENT = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n";
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    private static ProxyConfig.Builder config(String... agentUrls) {
        return ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(agentUrls).strategy("rr");
    }

    /** A chat prompt of exactly {@code bytes} UTF-8 bytes, mostly two-byte characters. */
    private static String prompt(int bytes) {
        String head = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"";
        String tail = "\"}]}";
        int room = bytes - head.length() - tail.length();
        return head + "é".repeat(room / 2) + (room % 2 == 1 ? "a" : "") + tail;
    }

    @Test
    void aJsonPromptByPostReachesTheAgentByteForByteUnderEveryStrategy() throws Exception {
        String body = prompt(2048);
        assertThat(body.getBytes(StandardCharsets.UTF_8)).hasSize(2048);
        List<String> strategies = new ArrayList<>(Strategies.names());
        strategies.addAll(Strategies.baselines());
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            for (String strategy : strategies) {
                try (DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).strategy(strategy).build())) {
                    HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(
                                    URI.create(proxy.baseUrl() + "/process/p1?user_id=42"))
                            .header("Content-Type", "application/json; charset=utf-8")
                            .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(TIMEOUT).build(),
                            HttpResponse.BodyHandlers.ofByteArray());

                    assertThat(response.statusCode()).as(strategy).isEqualTo(200);
                    assertThat(response.body()).as(strategy).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
                    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
                    ScriptedAgent.Received seen = agent.next();
                    assertThat(seen.method()).isEqualTo("POST");
                    assertThat(seen.target()).isEqualTo("/process/p1?user_id=42");
                    assertThat(seen.body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
    }

    /** The default body limit is 16 MiB: a 2 MiB prompt (over the old 1 MiB) passes. */
    @Test
    void aTwoMebibytePromptPassesWithTheDefaults() throws Exception {
        byte[] body = new byte[2 * 1024 * 1024];
        java.util.Arrays.fill(body, (byte) 'x');
        try (ScriptedAgent agent = ScriptedAgent.echo();
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).build())) {
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(
                            URI.create(proxy.baseUrl() + "/process/p2?user_id=42"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofByteArray());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(body);
        }
    }

    /** A busy answer (503 with Retry-After) is held back whole, then reaches the client with its headers. */
    @Test
    void aBusyAnswerReachesTheClientWholeWithItsRetryAfter() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
                    exchange.getResponseHeaders().set("Retry-After", "3");
                    exchange.getResponseHeaders().set("Content-Type", "application/json");
                    exchange.sendResponseHeaders(503, 0);
                    exchange.getResponseBody().write("{\"error\":".getBytes(StandardCharsets.UTF_8));
                    exchange.getResponseBody().flush();
                    exchange.getResponseBody().write("\"busy\"}".getBytes(StandardCharsets.UTF_8));
                });
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).build()); CapturedLog log = new CapturedLog(ProxyRoutes.class.getName())) {
            String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/b?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Length: 2\r\n\r\n{}" + "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

            assertThat(wire).startsWith("HTTP/1.1 503 Service Unavailable").containsIgnoringCase("Retry-After: 3")
                    .contains("{\"error\":\"busy\"}").contains("HTTP/1.1 404 Not Found");
            assertThat(wire.split("HTTP/1.1 503")).hasSize(2);
            assertThat(agent.calls()).isEqualTo(1);
            // The proxy says why the client got an agent's busy answer, as it does for its own 429s and 503s.
            assertThat(log.lines("request=b ")).containsExactly("INFO request=b answered 503: agent "
                    + agent.baseUrl() + "'s busy answer passed on, Retry-After: 3");
        }
    }

    /**
     * A busy answer held back and passed on keeps only its end-to-end headers: the agent's
     * {@code Connection: close} and {@code Keep-Alive} are its own connection's,
     * and the client's connection stays open for its next request (before: closed, 8 of 8 in a trial).
     */
    @Test
    void aBusyAnswerPassedOnLeavesTheAgentsHopByHopHeadersBehind() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
                    exchange.getResponseHeaders().set("Retry-After", "2");
                    exchange.getResponseHeaders().set("Connection", "close");
                    exchange.getResponseHeaders().set("Keep-Alive", "timeout=1");
                    exchange.getResponseHeaders().set("X-End", "ok");
                    byte[] body = "{\"error\":\"busy\"}".getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(429, body.length);
                    exchange.getResponseBody().write(body);
                });
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).build())) {
            String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/b?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Length: 2\r\n\r\n{}" + "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

            assertThat(wire).as("the next answer on the same connection").contains("HTTP/1.1 404 Not Found");
            String busy = wire.substring(0, wire.indexOf("HTTP/1.1 404"));
            assertThat(busy).startsWith("HTTP/1.1 429 Too Many Requests").containsIgnoringCase("X-End: ok")
                    .containsIgnoringCase("Connection: keep-alive").doesNotContainIgnoringCase("Keep-Alive: timeout").doesNotContainIgnoringCase("Connection: close");
            assertThat(wire).contains("HTTP/1.1 404 Not Found");
        }
    }

    @Test
    void aChunkedRequestBodyIsForwardedWhole() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo();
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).build())) {
            String wire = RawHttp.talk(proxy.baseUrl(), "PUT /process/c1?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");

            assertThat(wire).startsWith("HTTP/1.1 200 OK").endsWith("\r\n\r\nhello world");
            assertThat(agent.next().header("Content-Length")).isEqualTo("11");
        }
    }

    /** Each event reaches the client while the agent is still producing: the agent sends the next only once the client has the previous one. */
    @Test
    void serverSentEventsReachTheClientOneByOne() throws Exception {
        java.util.concurrent.Semaphore go = new java.util.concurrent.Semaphore(0);
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
                    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
                    exchange.sendResponseHeaders(200, 0);
                    OutputStream out = exchange.getResponseBody();
                    for (int i = 1; i <= 3; i++) {
                        out.write(("data: " + i + "\n\n").getBytes(StandardCharsets.UTF_8));
                        out.flush();
                        if (i < 3) {
                            go.acquire(); // the test has seen event i
                        }
                    }
                });
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).build())) {
            HttpResponse<Stream<String>> response = client.send(HttpRequest.newBuilder(
                    URI.create(proxy.baseUrl() + "/process/s1?user_id=1")).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofLines());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("text/event-stream");
            Iterator<String> lines = response.body().iterator();
            List<String> events = new ArrayList<>();
            while (lines.hasNext()) {
                String line = lines.next();
                if (line.startsWith("data: ")) {
                    events.add(line);
                    go.release();
                }
            }
            assertThat(events).containsExactly("data: 1", "data: 2", "data: 3");
        }
    }

    /** The first-byte timeout does not cut a stream whose bytes flow; it ran past it three times over. */
    @Test
    void aStreamLongerThanTheFirstByteTimeoutRunsToItsEnd() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.sse(10, 100);
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).firstByteTimeoutMs(300).build())) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                    URI.create(proxy.baseUrl() + "/process/s2?user_id=1")).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(List.of(response.body().split("\n\n"))).hasSize(10).last().isEqualTo("data: 10");
        }
    }

    /** With the default settings a call of more than the old 5 s runs once, on one agent, and is answered. */
    @Test
    void aLongCallRunsOnceWithTheDefaults() throws Exception {
        try (ScriptedAgent a1 = ScriptedAgent.slow(5_500);
                ScriptedAgent a2 = ScriptedAgent.slow(5_500);
                ScriptedAgent a3 = ScriptedAgent.slow(5_500);
                DemoProxy proxy = DemoProxy.start(config(a1.baseUrl(), a2.baseUrl(), a3.baseUrl()).build())) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                    URI.create(proxy.baseUrl() + "/process/long?user_id=1"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"think\"}"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("{\"ok\":true}");
            assertThat(a1.calls() + a2.calls() + a3.calls()).isEqualTo(1);
            assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
        }
    }

    @Test
    void anAnswerOverOneMebibytePassesWholeInOneCall() throws Exception {
        long size = 2L * 1024 * 1024 + 17;
        try (ScriptedAgent a1 = ScriptedAgent.big(size, false);
                ScriptedAgent a2 = ScriptedAgent.big(size, true);
                DemoProxy proxy = DemoProxy.start(config(a1.baseUrl(), a2.baseUrl()).build())) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(
                        URI.create(proxy.baseUrl() + "/process/big?user_id=1")).timeout(TIMEOUT).build(),
                        HttpResponse.BodyHandlers.ofByteArray());

                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body()).hasSize((int) size);
                assertThat(response.body()[(int) size - 1]).isEqualTo(ScriptedAgent.patternByte((size - 1) % (64 * 1024)));
            }
            assertThat(a1.calls()).isEqualTo(1);
            assertThat(a2.calls()).isEqualTo(1);
            assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
        }
    }

    /** Tens of MiB stream through, read as they come: every byte arrives, in order. */
    @Test
    void aLargeAnswerStreamsThroughByteForByte() throws Exception {
        long size = 48L * 1024 * 1024;
        try (ScriptedAgent agent = ScriptedAgent.big(size, false);
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).build())) {
            HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(
                    URI.create(proxy.baseUrl() + "/process/huge?user_id=1")).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            long[] read;
            try (InputStream in = response.body()) {
                read = ScriptedAgent.readPattern(in);
            }
            assertThat(read[0]).isEqualTo(size);
            assertThat(read[1]).isZero();
        }
    }

    /** A client that leaves cancels its agent call: the agent sees its connection closed, the attempt is cancelled, no one is ejected. */
    /** What a client does on its socket to the proxy before it leaves. */
    private interface Visit {
        void on(Socket socket, HangingAgent agent) throws Exception;
    }

    /**
     * A client that visits the proxy over an agent first answering {@code agentAnswer}, then leaves:
     * checks that the agent sees its connection closed within 5 s (a starved CPU still meets it; without
     * the cancel it would stay open for the 60 s answer timeouts), the attempt is cancelled and no
     * one is ejected.
     */
    private static void assertLeavingCancelsTheAgentCall(String agentAnswer, Visit visit) throws Exception {
        BlockingQueue<AttemptOutcome> outcomes = new LinkedBlockingQueue<>();
        try (HangingAgent agent = new HangingAgent(agentAnswer);
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).build(), () -> listened(outcomes))) {
            try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
                visit.on(socket, agent);
            }
            assertThat(agent.closed.await(5, TimeUnit.SECONDS)).as("agent connection closed within 5 s").isTrue();
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
        }
    }

    @Test
    void aClientThatLeavesCancelsTheAgentCall() throws Exception {
        assertLeavingCancelsTheAgentCall("", (socket, agent) -> {
            socket.getOutputStream().write(("POST /process/bye?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
            assertThat(agent.requested.await(5, TimeUnit.SECONDS)).isTrue();
        });
    }

    @Test
    void aClientThatLeavesMidStreamCancelsTheAgentCall() throws Exception {
        assertLeavingCancelsTheAgentCall(ONE_EVENT, (socket, agent) -> {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write("GET /process/sse?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String seen = readUntil(socket.getInputStream(), "data: 1");
            assertThat(seen).startsWith("HTTP/1.1 200 OK").contains("transfer-encoding: chunked");
        });
    }

    /** An agent that goes quiet mid-stream: the client's answer is cut (no terminating chunk), the agent counts as failed. */
    @Test
    void anAgentSilentLongerThanTheIdleTimeoutHasItsAnswerCut() throws Exception {
        BlockingQueue<AttemptOutcome> outcomes = new LinkedBlockingQueue<>();
        try (HangingAgent agent = new HangingAgent(ONE_EVENT);
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).idleTimeoutMs(300).build(),
                        () -> listened(outcomes))) {
            try (CapturedLog log = new CapturedLog(ProxyRoutes.class.getName())) {
                String wire = RawHttp.talk(proxy.baseUrl(), "GET /process/sse-cut?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n");

                assertThat(wire).contains("data: 1").doesNotEndWith("0\r\n\r\n");
                assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.FAILED_AFTER_FIRST_BYTE);
                assertThat(agent.closed.await(5, TimeUnit.SECONDS)).isTrue();
                // The proxy cut the answer because the agent failed: logged as that, never as the client leaving.
                assertThat(log.lines("request=sse-cut")).singleElement().asString()
                        .startsWith("WARN request=sse-cut answer cut: agent ").doesNotContain("cancelled");
            }
        }
    }

    /**
     * A client that stops reading a large answer: the proxy stops reading the agent (backpressure),
     * and that silence is the client's, not the agent's. Taking nothing for the idle timeout, the
     * client has its answer cut, the call ends cancelled and no agent is ejected; a client that
     * pauses for less and reads on gets every byte.
     */
    @Test
    void aClientThatStopsReadingIsCutAgainstNoAgentAndOneThatPausesGetsEverything() throws Exception {
        long size = 32L * 1024 * 1024;
        BlockingQueue<AttemptOutcome> outcomes = new LinkedBlockingQueue<>();
        try (ScriptedAgent agent = ScriptedAgent.big(size, false);
                DemoProxy proxy = DemoProxy.start(config(agent.baseUrl()).idleTimeoutMs(1_000).build(),
                        () -> listened(outcomes))) {
            try (CapturedLog log = new CapturedLog(ProxyRoutes.class.getName())) {
                assertThat(readPausing(proxy, 3_000)).as("cut after 3 s of taking nothing").isLessThan(size);
                assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.CANCELLED);
                // Logged as the client's slowness, not as the client leaving.
                assertThat(log.lines("request=slow-reader")).singleElement().asString()
                        .contains("the client took none of agent").doesNotContain("closed its connection");
            }
            assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
            assertThat(readPausing(proxy, 400)).as("a pause shorter than the idle timeout").isGreaterThan(size);
            assertThat(outcomes.poll(5, TimeUnit.SECONDS)).isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
        }
    }

    /** Reads an answer through a small receive window, pausing {@code pauseMs} twice; returns the bytes read, head included. */
    private static long readPausing(DemoProxy proxy, long pauseMs) throws Exception {
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(16 * 1024);
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", proxy.port()));
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /process/slow-reader?user_id=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            long read = 0;
            for (int pause = 0; pause < 2; pause++) {
                for (long target = read + 4 * 1024 * 1024; read < target; ) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        return read;
                    }
                    read += n;
                }
                Thread.sleep(pauseMs);
            }
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    read += n;
                }
            } catch (java.net.SocketException e) {
                // the cut: a reset rather than an end
            }
            return read;
        }
    }

    private static AgentLoadBalancerSupport listened(BlockingQueue<AttemptOutcome> outcomes) {
        AgentLoadBalancerSupport rr = Strategies.create("rr");
        rr.addAttemptListener((strategy, agent, outcome, elapsed) -> outcomes.add(outcome));
        return rr;
    }

    private static String readUntil(InputStream in, String marker) throws java.io.IOException {
        StringBuilder seen = new StringBuilder();
        for (int b; !seen.toString().contains(marker) && (b = in.read()) >= 0; ) {
            seen.append((char) b);
        }
        return seen.toString();
    }

    /** The stub agent's streamed chat through the proxy, and a caller leaving reaches the stub, which ends its answer. */
    @Test
    void theStubsStreamedChatPassesThroughAndACallerLeavingEndsIt() throws Exception {
        try (StubAgent stub = StubAgent.start(AgentConfig.custom().agentId("L1").host("127.0.0.1").port(0)
                        .chat(new ChatShape(0, 200, 32)).build());
                DemoProxy proxy = DemoProxy.start(config(stub.baseUrl()).build())) {
            HttpResponse<String> whole = client.send(HttpRequest.newBuilder(
                    URI.create(proxy.baseUrl() + "/process/c1?user_id=1"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"stream\":true,\"max_tokens\":5,\"messages\":[]}"))
                    .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(whole.statusCode()).isEqualTo(200);
            assertThat(whole.headers().firstValue("Content-Type")).hasValue("text/event-stream");
            assertThat(whole.headers().firstValue("X-Agent-Utilization")).isEmpty();
            assertThat(whole.body().lines().filter(l -> l.startsWith("data: ")).count()).isEqualTo(6);

            try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
                socket.setSoTimeout(5_000);
                String body = "{\"stream\":true,\"max_tokens\":10000,\"messages\":[]}";
                socket.getOutputStream().write(("POST /process/c2?user_id=1 HTTP/1.1\r\nHost: x\r\nContent-Length: "
                        + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
                readUntil(socket.getInputStream(), "data: ");
            }
            for (int i = 0; i < 100 && stub.chat().callsCancelled() == 0; i++) {
                Thread.sleep(20);
            }
            assertThat(stub.chat().callsCancelled()).isEqualTo(1);
            assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
        }
    }
}
