package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.github.agentlb.agent.http.Http11Component;
import io.github.agentlb.camel.http.RawHttp;
import io.github.agentlb.testing.FreePorts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request body larger than the held prefix goes to the agent as it arrives: the agent reads
 * its first byte while the client still holds back the second half; the body limit still
 * answers 413 JSON before the agent gets anything (a chunked body is gathered whole, as before:
 * {@code ProxyRequestEdgesTest}).
 */
@Tag("e2e")
@Timeout(60)
class StreamedRequestBodyTest {

    private static final int LIMIT = 256 * 1024;
    private static final int BODY = 200 * 1024;

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch agentReadFirstByte = new CountDownLatch(1);
    private final AtomicReference<byte[]> agentGot = new AtomicReference<>();
    private final AtomicInteger calls = new AtomicInteger();
    private HttpServer agent;
    private DemoProxy proxy;

    @BeforeEach
    void start() throws Exception {
        agent = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        agent.setExecutor(threads);
        agent.createContext("/", exchange -> {
            try (exchange; InputStream in = exchange.getRequestBody()) {
                calls.incrementAndGet();
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                int first = in.read();
                agentReadFirstByte.countDown();
                if (first >= 0) {
                    got.write(first);
                    in.transferTo(got);
                }
                agentGot.set(got.toByteArray());
                byte[] answer = ("{\"bytes\":" + got.size() + "}").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
            }
        });
        agent.start();
        proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                .agentUrls("http://127.0.0.1:" + agent.getAddress().getPort())
                .strategy("rr").maxBodyBytes(LIMIT).clientTimeoutMs(10_000).build());
    }

    @AfterEach
    void stop() throws Exception {
        Resources.close(proxy);
        agent.stop(0);
        threads.shutdownNow();
    }

    @Test
    void theAgentGetsTheBodysFirstByteBeforeTheClientSentItsLast() throws Exception {
        assertThat(BODY).isGreaterThan(Http11Component.DEFAULT_HELD_BODY_BYTES);
        byte[] body = new byte[BODY];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) ('a' + i % 26);
        }
        int half = BODY / 2;
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port())) {
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Length: " + BODY + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body, 0, half);
            out.flush();

            boolean before = agentReadFirstByte.await(10, TimeUnit.SECONDS);

            out.write(body, half, BODY - half);
            out.flush();
            String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(before).as("the agent read the body's first byte before the client sent its second half").isTrue();
            assertThat(answer).startsWith("HTTP/1.1 200").endsWith("{\"bytes\":" + BODY + "}");
        }
        assertThat(Arrays.equals(agentGot.get(), body)).as("the agent got the body byte for byte").isTrue();
    }

    /**
     * With a prompt key, a chat request whose key is complete in its first 64 KiB (the first turn
     * comes first, 200 KB of history after it) still reaches the agent while the client sends.
     */
    @Test
    void withAPromptKeyTheAgentStillGetsTheFirstByteBeforeTheLast() throws Exception {
        StringBuilder json = new StringBuilder("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"")
                .append("Read this. ".repeat(200)).append("\"}");
        while (json.length() < BODY) {
            json.append(",{\"role\":\"assistant\",\"content\":\"").append("Noted. ".repeat(100)).append("\"}");
        }
        byte[] body = json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        try (DemoProxy keyed = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                .agentUrls("http://127.0.0.1:" + agent.getAddress().getPort())
                .strategy("ch").maxBodyBytes(LIMIT).clientTimeoutMs(10_000).build(), () -> {
                    io.github.agentlb.camel.ConsistentHashLB ch = new io.github.agentlb.camel.ConsistentHashLB();
                    ch.setKeys("session,prompt,user_id");
                    return ch;
                });
                Socket client = new Socket(InetAddress.getLoopbackAddress(), keyed.port())) {
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body, 0, body.length / 2);
            out.flush();

            boolean before = agentReadFirstByte.await(10, TimeUnit.SECONDS);

            out.write(body, body.length / 2, body.length - body.length / 2);
            out.flush();
            String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(before).as("the agent read the body's first byte before the client sent its second half").isTrue();
            assertThat(answer).startsWith("HTTP/1.1 200");
        }
        assertThat(Arrays.equals(agentGot.get(), body)).as("the agent got the body byte for byte").isTrue();
    }

    /**
     * A client that stops sending the rest of its body is slow, not the agent: after the first-byte
     * timeout of silence it gets a JSON 408 and its connection is closed (the rest is not read as a
     * next request); a client that closes mid-body is gone; neither ejects the agent.
     */
    @Test
    void aClientSlowOrGoneWithItsBodyGets408OrNothingAndTheAgentIsNotBlamed() throws Exception {
        try (DemoProxy slow = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                .agentUrls("A1=http://127.0.0.1:" + agent.getAddress().getPort())
                .strategy("rr").maxBodyBytes(LIMIT).clientTimeoutMs(10_000).firstByteTimeoutMs(1_000).build())) {
            byte[] part = new byte[70 * 1024];
            Arrays.fill(part, (byte) 'a');
            for (int round = 0; round < 2; round++) {
                try (Socket client = new Socket(InetAddress.getLoopbackAddress(), slow.port())) {
                    client.setSoTimeout(10_000);
                    OutputStream out = client.getOutputStream();
                    out.write(("POST /process/slow" + round + "?user_id=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                            + "Content-Length: " + BODY + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(part);
                    out.flush();
                    String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                    assertThat(answer).startsWith("HTTP/1.1 408").contains("connection: close")
                            .contains("\"error\":\"request timeout\"")
                            .contains("for 1000 ms; agent A1 was waiting for it"); // named as in every other answer
                }
            }
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), slow.port())) {
                OutputStream out = client.getOutputStream();
                out.write(("POST /process/gone?user_id=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                        + "Content-Length: " + BODY + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(part);
                out.flush();
                assertThat(agentReadFirstByte.await(10, TimeUnit.SECONDS)).isTrue();
            }
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                    .until(() -> slow.balancer().getEjectedAgents().isEmpty()); // no agent blamed for its clients
            String after = post(slow, 1000);
            assertThat(after).as("the agent still serves").startsWith("HTTP/1.1 200");
        }
    }

    /**
     * An agent that streams its answer while the body still arrives (an SSE answer begun at once),
     * and a client that then stops sending its body: after the first-byte timeout of the body's
     * silence the call ends, its answer cut (no last chunk) and the agent's request closed, as before
     * the answer began (before: nothing bounded the body's silence once the answer had begun; the
     * agent waited for the body for as long as it streamed).
     */
    @Test
    void aBodyThatStopsWhileTheAnswerStreamsEndsTheCallAfterTheFirstByteTimeout() throws Exception {
        HttpServer streaming = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        streaming.setExecutor(threads);
        CountDownLatch bodyEnded = new CountDownLatch(1);
        streaming.createContext("/", exchange -> {
            try (exchange; InputStream in = exchange.getRequestBody()) {
                exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
                exchange.sendResponseHeaders(200, 0);
                exchange.getResponseBody().write("data: 1\n\n".getBytes(StandardCharsets.UTF_8));
                exchange.getResponseBody().flush();
                in.transferTo(OutputStream.nullOutputStream());
            } catch (IOException e) {
                // the proxy closed the call: what this test waits for
            } finally {
                bodyEnded.countDown();
            }
        });
        streaming.start();
        try (DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                .agentUrls("A1=http://127.0.0.1:" + streaming.getAddress().getPort())
                .strategy("rr").maxBodyBytes(LIMIT).clientTimeoutMs(10_000).firstByteTimeoutMs(1_000).build());
                Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            client.setSoTimeout(20_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /process/sse?user_id=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Length: " + BODY + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(new byte[70 * 1024]);
            out.flush();

            String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(answer).startsWith("HTTP/1.1 200").contains("data: 1").doesNotEndWith("0\r\n\r\n");
            assertThat(bodyEnded.await(10, TimeUnit.SECONDS)).as("the agent's request ended").isTrue();
        } finally {
            streaming.stop(0);
        }
    }

    @Test
    void aBodyAnnouncedOverTheLimitStillGets413JsonAndTheAgentNothing() {
        String wire = RawHttp.talk(proxy.baseUrl(), "POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + (LIMIT + 1) + "\r\n\r\n" + "x".repeat(100));

        assertThat(wire).startsWith("HTTP/1.1 413 Request Entity Too Large").contains("content-type: application/json")
                .endsWith("{\"error\":\"content too large\",\"detail\":\"the request body is over " + LIMIT + " bytes\"}");
        assertThat(calls).hasValue(0);
    }

    /** nginx's rule: a request whose body was partly sent is passed to no other agent; a busy answer then goes to the client. */
    @Test
    void aBusyAnswerAfterTheBodyWasSentGoesToTheClientAndNoOtherAgentIsTried() throws Exception {
        HttpServer busy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        busy.setExecutor(threads);
        AtomicInteger busyCalls = new AtomicInteger();
        busy.createContext("/", exchange -> {
            try (exchange; InputStream in = exchange.getRequestBody()) {
                busyCalls.incrementAndGet();
                in.transferTo(OutputStream.nullOutputStream());
                exchange.getResponseHeaders().set("Retry-After", "1");
                exchange.sendResponseHeaders(429, -1);
            }
        });
        busy.start();
        try (DemoProxy twoAgents = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                .agentUrls("http://127.0.0.1:" + busy.getAddress().getPort(), "http://127.0.0.1:" + agent.getAddress().getPort())
                .strategy("rr").maxBodyBytes(LIMIT).clientTimeoutMs(10_000).build())) {
            java.util.List<String> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();
            twoAgents.balancer().addAttemptListener((strategy, agentId, outcome, elapsed) -> attempts.add(agentId + " " + outcome));
            for (int i = 0; i < 2; i++) {
                String answer = post(twoAgents, BODY);
                assertThat(answer).matches("(?s)HTTP/1.1 (429|200) .*");
            }
            // The busy answer went to the client as it came: no failover attempt, none refused and counted.
            assertThat(attempts).as("one attempt per request").hasSize(2)
                    .containsExactlyInAnyOrder("http://127.0.0.1:" + busy.getAddress().getPort() + " BUSY",
                            "http://127.0.0.1:" + agent.getAddress().getPort() + " SUCCESS");
        } finally {
            busy.stop(0);
        }
        assertThat(busyCalls).hasValue(1);
        assertThat(calls).as("the other agent got only its own request").hasValue(1);
    }

    /** Before any of the rest was sent (the first agent refused the connection) the held prefix lets the next agent get it whole. */
    @Test
    void anAgentThatRefusesTheConnectionFailsOverWithTheWholeBody() throws Exception {
        int dead = FreePorts.next(); // nothing listens on it, and no other test's server will
        try (DemoProxy twoAgents = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                .agentUrls("http://127.0.0.1:" + dead, "http://127.0.0.1:" + agent.getAddress().getPort())
                .strategy("rr").maxBodyBytes(LIMIT).clientTimeoutMs(10_000).build())) {
            for (int i = 0; i < 2; i++) {
                assertThat(post(twoAgents, BODY)).startsWith("HTTP/1.1 200").endsWith("{\"bytes\":" + BODY + "}");
                assertThat(agentGot.get()).hasSize(BODY);
            }
        }
        assertThat(calls).hasValue(2);
    }

    /** A POST of {@code size} bytes written at once; the whole answer, the connection closed after it. */
    private static String post(DemoProxy to, int size) throws Exception {
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), java.net.URI.create(to.baseUrl()).getPort())) {
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /process/r1?user_id=1 HTTP/1.1\r\nHost: x\r\nContent-Length: " + size
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(new byte[size]);
            out.flush();
            return new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private int port() {
        return java.net.URI.create(proxy.baseUrl()).getPort();
    }
}
