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
 * An agent whose answer has both {@code Content-Length} and {@code Transfer-Encoding: chunked}
 * (RFC 9112 §6.3 item 3: "ought to be handled as an error", a sign of request smuggling or response
 * splitting): the answer is passed on, framed by its chunks, and the connection it came on is closed
 * after it, never used for another request; the client's own connection is kept alive as for any
 * answer. End to end: real sockets.
 */
@Tag("e2e")
@Timeout(60)
class ChunkedWithContentLengthAnswersTest {

    /** Both framing headers; the chunks say 5 bytes, {@code Content-Length} says 3. */
    private static final byte[] ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final BlockingQueue<AttemptOutcome> outcomes = new LinkedBlockingQueue<>();
    private CamelContext camel;
    private BothFramingsAgent agent;
    private String base;

    /**
     * Answers every request of a kept-alive connection with {@link #ANSWER}; counts the requests,
     * the connections, those per connection, and the connections whose end it saw.
     */
    private static final class BothFramingsAgent implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger connections = new AtomicInteger();
        final Map<Integer, AtomicInteger> perConnection = new ConcurrentHashMap<>();
        /** A permit for each connection whose end the agent saw. */
        final Semaphore closed = new Semaphore(0);

        BothFramingsAgent() throws IOException {
            Thread thread = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        int id = connections.incrementAndGet();
                        perConnection.put(id, new AtomicInteger());
                        Thread connection = new Thread(() -> serve(socket, id), "both-framings-agent-connection");
                        connection.setDaemon(true);
                        connection.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "both-framings-agent");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve(Socket socket, int id) {
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                while (readRequest(in)) {
                    requests.incrementAndGet();
                    perConnection.get(id).incrementAndGet();
                    out.write(ANSWER);
                    out.flush();
                }
            } catch (IOException e) {
                // the proxy reset the connection
            } finally {
                closed.release();
            }
        }

        /** Reads a request head and its Content-Length body; false at the end of the stream. */
        private static boolean readRequest(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            int matched = 0;
            byte[] end = {'\r', '\n', '\r', '\n'};
            for (int b; matched < end.length; ) {
                if ((b = in.read()) < 0) {
                    return false;
                }
                head.append((char) b);
                matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            for (String line : head.toString().split("\r\n")) {
                if (line.toLowerCase().startsWith("content-length:")) {
                    in.readNBytes(Integer.parseInt(line.substring(15).trim()));
                }
            }
            return true;
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

    private void route() throws Exception {
        agent = new BothFramingsAgent();
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

    @Test
    void anAnswerWithBothContentLengthAndChunkedIsPassedOnAndItsConnectionClosedNeverReused() throws Exception {
        route();

        List<String> answers = new ArrayList<>();
        List<String> connectionHeaders = new ArrayList<>();
        int notClosed = 0;
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(base + "/process/r" + i))
                    .GET().timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            answers.add(answer.statusCode() + " " + answer.body());
            connectionHeaders.addAll(answer.headers().allValues("connection"));
            // The proxy closes the agent's connection after the answer, before the next request is sent.
            if (!agent.closed.tryAcquire(5, TimeUnit.SECONDS)) {
                notClosed++;
            }
        }
        List<AttemptOutcome> seen = new ArrayList<>();
        for (AttemptOutcome outcome; seen.size() < 3 && (outcome = outcomes.poll(2, TimeUnit.SECONDS)) != null; ) {
            seen.add(outcome);
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
        soft.assertThat(seen).as("attempt outcomes").containsExactly(AttemptOutcome.SUCCESS, AttemptOutcome.SUCCESS,
                AttemptOutcome.SUCCESS);
        soft.assertAll();
    }
}
