package io.github.agentlb.camel.http;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An agent whose {@code Content-Length} counts characters, not UTF-8 bytes, sends more than it
 * announced: the answer ends at its {@code Content-Length} and is a success, and the connection
 * carrying the bytes over is closed, never used for another request (nginx: "upstream sent more
 * data than specified in Content-Length header"), whether the bytes over come with the body or a
 * little later, while the connection is idle. So is one that came with both framings
 * ({@code Content-Length} and {@code Transfer-Encoding: chunked}). End to end: real sockets.
 */
@Tag("e2e")
@Timeout(60)
class OverlongAnswersTest {

    /** 6 characters, 8 bytes in UTF-8: the agent announces 6. */
    private static final String TEXT = "r\u00e9sum\u00e9";
    private static final byte[] BYTES = TEXT.getBytes(StandardCharsets.UTF_8);
    private static final int ANNOUNCED = TEXT.length();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final BlockingQueue<AttemptOutcome> outcomes = new LinkedBlockingQueue<>();
    private CamelContext camel;
    private OverlongAgent agent;
    private String base;

    /** Sent the 2 bytes over at the next request on the connection, before its answer (the race). */
    private static final long AT_NEXT_REQUEST = -1;

    /** Answered with both framings ({@link #BOTH_FRAMINGS_ANSWER}) instead. */
    private static final long BOTH_FRAMINGS = -2;

    /** Both framing headers; the chunks say 5 bytes, {@code Content-Length} says 3. */
    private static final byte[] BOTH_FRAMINGS_ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);

    /**
     * Answers every request of a kept-alive connection {@code 200} with {@code Content-Length: 6}
     * and 8 bytes of body, the 2 over in the same write, {@code lateMs} later in a write of their
     * own, or ({@link #AT_NEXT_REQUEST}) just before the answer to the connection's next request;
     * or ({@link #BOTH_FRAMINGS}) with {@link #BOTH_FRAMINGS_ANSWER}; counts the requests, those per
     * connection, and the connections the proxy closed.
     */
    private static final class OverlongAgent implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final long lateMs;
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger connections = new AtomicInteger();
        final Map<Integer, AtomicInteger> perConnection = new ConcurrentHashMap<>();
        /** A permit for each connection whose end the agent saw. */
        final Semaphore closed = new Semaphore(0);

        OverlongAgent(long lateMs) throws IOException {
            this.lateMs = lateMs;
            Thread thread = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        int id = connections.incrementAndGet();
                        perConnection.put(id, new AtomicInteger());
                        Thread connection = new Thread(() -> serve(socket, id), "overlong-agent-connection");
                        connection.setDaemon(true);
                        connection.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "overlong-agent");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve(Socket socket, int id) {
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                while (RawHttp.readRequest(in)) {
                    requests.incrementAndGet();
                    int request = perConnection.get(id).incrementAndGet();
                    byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                            + ANNOUNCED + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
                    if (lateMs == BOTH_FRAMINGS) {
                        out.write(BOTH_FRAMINGS_ANSWER);
                        out.flush();
                    } else if (lateMs == AT_NEXT_REQUEST) {
                        byte[] over = Arrays.copyOfRange(BYTES, ANNOUNCED, BYTES.length);
                        out.write(concat(request == 1 ? new byte[0] : over, concat(head, Arrays.copyOf(BYTES, ANNOUNCED))));
                        out.flush();
                    } else if (lateMs == 0) {
                        out.write(concat(head, BYTES));
                        out.flush();
                    } else {
                        out.write(concat(head, Arrays.copyOf(BYTES, ANNOUNCED)));
                        out.flush();
                        Thread.sleep(lateMs);
                        out.write(Arrays.copyOfRange(BYTES, ANNOUNCED, BYTES.length));
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // the proxy reset the connection
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                closed.release();
            }
        }

        private static byte[] concat(byte[] a, byte[] b) {
            byte[] both = Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, both, a.length, b.length);
            return both;
        }


        String baseUrl() {
            return "http://127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @AfterEach
    void stop() throws IOException {
        if (camel != null) {
            camel.stop();
        }
        if (agent != null) {
            agent.close();
        }
    }

    private void route(long lateMs) throws Exception {
        agent = new OverlongAgent(lateMs);
        int port = FreePorts.next();
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setOutlierEjection(io.github.agentlb.core.health.OutlierEjection.disabled());
        balancer.addAttemptListener((strategy, id, outcome, elapsed) -> outcomes.add(outcome));
        camel = new DefaultCamelContext();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true")
                        .errorHandler(noErrorHandler())
                        .loadBalance(balancer).to("agent:" + agent.baseUrl()).end();
            }
        });
        camel.start();
        base = "http://127.0.0.1:" + port;
    }

    private HttpResponse<byte[]> send(String method, int i) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + "/process/r" + i))
                .method(method, "GET".equals(method) ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString("{\"n\":" + i + "}"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** 20 GETs then 20 POSTs, one after another; every count checked, each miss reported with its count. */
    private void expectEachAnsweredOnItsOwnConnection(boolean awaitClose) throws Exception {
        List<String> answers = new ArrayList<>();
        int notClosed = 0;
        for (String method : List.of("GET", "POST")) {
            for (int i = 0; i < 20; i++) {
                HttpResponse<byte[]> answer = send(method, i);
                String body = new String(answer.body(), StandardCharsets.UTF_8);
                answers.add(answer.statusCode() + " " + body.substring(0, Math.min(body.length(), 8)));
                // The bytes over came while the connection was idle in the pool: it is closed.
                if (awaitClose && !agent.closed.tryAcquire(2, TimeUnit.SECONDS)) {
                    notClosed++;
                }
            }
        }
        List<AttemptOutcome> seen = new ArrayList<>();
        for (AttemptOutcome outcome; seen.size() < 40 && (outcome = outcomes.poll(2, TimeUnit.SECONDS)) != null; ) {
            seen.add(outcome);
        }
        AttemptOutcome further = outcomes.poll(200, TimeUnit.MILLISECONDS);
        if (further != null) {
            seen.add(further);
        }
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(answers).as("answers (status, body)").containsOnly("200 " + TEXT.substring(0, ANNOUNCED - 1));
        soft.assertThat(answers.stream().filter(a -> !a.startsWith("200 ")).count()).as("answers not 200").isZero();
        soft.assertThat(notClosed).as("connections left open after the bytes over").isZero();
        soft.assertThat(agent.requests.get()).as("requests the agent received").isEqualTo(40);
        soft.assertThat(agent.connections.get()).as("connections: one per request").isEqualTo(40);
        soft.assertThat(agent.perConnection.values().stream().filter(n -> n.get() > 1).count())
                .as("connections that carried a second request").isZero();
        soft.assertThat(seen).as("attempt outcomes").hasSize(40).containsOnly(AttemptOutcome.SUCCESS);
        soft.assertAll();
    }

    /** The answers' statuses to {@code count} {@code method} requests, one after another. */
    private List<Integer> statuses(String method, int count) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            statuses.add(send(method, i).statusCode());
        }
        return statuses;
    }

    private List<AttemptOutcome> outcomes(int count) throws InterruptedException {
        List<AttemptOutcome> seen = new ArrayList<>();
        for (AttemptOutcome outcome; seen.size() < count && (outcome = outcomes.poll(2, TimeUnit.SECONDS)) != null; ) {
            seen.add(outcome);
        }
        AttemptOutcome further = outcomes.poll(200, TimeUnit.MILLISECONDS);
        if (further != null) {
            seen.add(further);
        }
        return seen;
    }

    @Test
    void bytesOverThatComeAfterTheConnectionWasReusedSendAnIdempotentRequestAgainOnANewConnection() throws Exception {
        route(AT_NEXT_REQUEST);

        List<Integer> statuses = statuses("GET", 3);

        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(statuses).as("answers").containsExactly(200, 200, 200);
        // GET 2 and 3 each went on a reused connection that then brought the bytes over: sent again once on a new one.
        soft.assertThat(agent.requests.get()).as("requests the agent received").isEqualTo(5);
        soft.assertThat(agent.connections.get()).as("connections").isEqualTo(3);
        soft.assertThat(outcomes(3)).as("attempt outcomes").containsExactly(AttemptOutcome.SUCCESS, AttemptOutcome.SUCCESS,
                AttemptOutcome.SUCCESS);
        soft.assertAll();
    }

    @Test
    void bytesOverThatComeAfterTheConnectionWasReusedFailAPostThatWasWrittenWithoutSendingItAgain() throws Exception {
        route(AT_NEXT_REQUEST);

        List<Integer> statuses = statuses("POST", 4);

        SoftAssertions soft = new SoftAssertions();
        // POST 2 and 4 went on a reused connection and reached the agent: not sent again (Go's net/http rule).
        soft.assertThat(statuses).as("answers").containsExactly(200, 500, 200, 500);
        soft.assertThat(agent.requests.get()).as("requests the agent received").isEqualTo(4);
        soft.assertThat(agent.connections.get()).as("connections").isEqualTo(2);
        soft.assertThat(outcomes(4)).as("attempt outcomes").containsExactly(AttemptOutcome.SUCCESS,
                AttemptOutcome.FAILED_AFTER_SEND, AttemptOutcome.SUCCESS, AttemptOutcome.FAILED_AFTER_SEND);
        soft.assertAll();
    }

    @Test
    void bytesOverTheContentLengthInTheSameWriteCloseTheConnectionAndTheAnswerIsASuccess() throws Exception {
        route(0);
        expectEachAnsweredOnItsOwnConnection(false);
    }

    @Test
    void bytesOverTheContentLengthArrivingWhileTheConnectionIsIdleCloseIt() throws Exception {
        route(20);
        expectEachAnsweredOnItsOwnConnection(true);
    }

    /**
     * An answer with both {@code Content-Length} and {@code Transfer-Encoding: chunked} (RFC 9112
     * §6.3 item 3: "ought to be handled as an error", a sign of request smuggling or response
     * splitting) is passed on, framed by its chunks, and the connection it came on is closed after
     * it, never used for another request; the client's own connection is kept alive as for any answer.
     */
    @Test
    void anAnswerWithBothContentLengthAndChunkedIsPassedOnAndItsConnectionClosedNeverReused() throws Exception {
        route(BOTH_FRAMINGS);

        List<String> answers = new ArrayList<>();
        List<String> connectionHeaders = new ArrayList<>();
        int notClosed = 0;
        for (int i = 0; i < 3; i++) {
            HttpResponse<byte[]> answer = send("GET", i);
            answers.add(answer.statusCode() + " " + new String(answer.body(), StandardCharsets.UTF_8));
            connectionHeaders.addAll(answer.headers().allValues("connection"));
            // The proxy closes the agent's connection after the answer, before the next request is sent.
            if (!agent.closed.tryAcquire(5, TimeUnit.SECONDS)) {
                notClosed++;
            }
        }

        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(answers).as("answers (status, body)").containsExactly("200 hello", "200 hello", "200 hello");
        // The client's connection stays open: it gets the consumer's own keep-alive, as for any answer, not a close.
        soft.assertThat(connectionHeaders).as("Connection headers the client got (it asked for no close)")
                .containsExactly("keep-alive", "keep-alive", "keep-alive");
        soft.assertThat(notClosed).as("agent connections left open after the answer").isZero();
        soft.assertThat(agent.requests.get()).as("requests the agent received").isEqualTo(3);
        soft.assertThat(agent.connections.get()).as("agent connections: one per request").isEqualTo(3);
        soft.assertThat(agent.perConnection.values().stream().filter(n -> n.get() > 1).count())
                .as("agent connections that carried a second request").isZero();
        soft.assertThat(outcomes(3)).as("attempt outcomes").containsExactly(AttemptOutcome.SUCCESS, AttemptOutcome.SUCCESS,
                AttemptOutcome.SUCCESS);
        soft.assertAll();
    }
}
