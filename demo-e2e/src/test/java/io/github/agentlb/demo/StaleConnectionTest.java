package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.http.RawHttp;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An agent that closes a kept-alive connection when the next request arrives on it (as a server
 * closes a connection it holds idle, racing the request): the proxy sends the request again once,
 * on a new connection to the same agent, when that is safe (the request was not written whole, or
 * it is idempotent), and the agent is not counted as failing.
 */
@Tag("e2e")
@Timeout(60)
class StaleConnectionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** Answers the first request of each connection with 200 and keep-alive, closes it at the second. */
    private static final class ClosingAgent implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger answered = new AtomicInteger();
        final AtomicInteger closedAtRequest = new AtomicInteger();

        ClosingAgent() throws IOException {
            Thread thread = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        Thread connection = new Thread(() -> serve(socket), "closing-agent-connection");
                        connection.setDaemon(true);
                        connection.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "closing-agent");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve(Socket socket) {
            try (socket) {
                InputStream in = socket.getInputStream();
                RawHttp.readRequest(in);
                // Counted before it is written: the client may have the answer before this thread runs again.
                answered.incrementAndGet();
                socket.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"
                        .getBytes(StandardCharsets.ISO_8859_1));
                socket.getOutputStream().flush();
                if (RawHttp.readRequest(in)) {
                    closedAtRequest.incrementAndGet();
                }
            } catch (IOException e) {
                // the proxy closed the connection
            }
        }


        String baseUrl() {
            return "http://127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    private ClosingAgent agent;
    private DemoProxy proxy;

    @BeforeEach
    void start() throws Exception {
        agent = new ClosingAgent();
        proxy = Proxies.start(List.of(agent.baseUrl()), "rr");
    }

    @AfterEach
    void stop() throws Exception {
        Resources.close(proxy, agent);
    }

    private HttpResponse<String> send(String method, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/process/r1?user_id=1"))
                .method(method, HttpRequest.BodyPublishers.ofString("{}")).timeout(TIMEOUT);
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anIdempotentRequestIsSentAgainOnANewConnectionAndTheAgentStaysIn() throws Exception {
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> answer = send("PUT");
            assertThat(answer.statusCode()).as("request %d", i).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("ok");
        }
        assertThat(agent.answered).hasValue(5);
        assertThat(agent.closedAtRequest).hasValue(4);
        assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
    }

    /**
     * A request whose body streams (over 64 KiB with {@code Content-Length}) cannot be sent again
     * once a part beyond its prefix is written: it takes a new connection, never one kept idle that
     * the agent may be closing (HAProxy's {@code http-reuse safe}: a request that cannot be retried
     * does not go on an idle connection), so it is answered (before: written on the connection the
     * agent closed, a 502, the agent counted as failing).
     */
    @Test
    void aRequestWhoseBodyStreamsTakesANewConnectionNotAnIdleOne() throws Exception {
        assertThat(send("POST").statusCode()).as("leaves a kept-alive connection").isEqualTo(200);
        HttpResponse<String> streamed = client.send(HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/process/r2?user_id=1"))
                .POST(HttpRequest.BodyPublishers.ofString("x".repeat(200 * 1024))).timeout(TIMEOUT).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(streamed.statusCode()).isEqualTo(200);
        assertThat(agent.answered).hasValue(2);
        assertThat(agent.closedAtRequest).hasValue(0);
        assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
    }

    /**
     * Whether a request written on a connection the agent closed is sent again is the balancer's
     * one rule for "may be sent twice" (its {@code idempotentMethods} or an {@code Idempotency-Key}),
     * as for failover and hedging: not RFC 9110's list when the balancer says otherwise.
     */
    @Test
    void theBalancersIdempotentMethodsDecideWhetherAStaleConnectionsRequestIsSentAgain() throws Exception {
        proxy.balancer().setIdempotentMethods("GET,HEAD,POST");
        assertThat(send("POST").statusCode()).isEqualTo(200);
        assertThat(send("POST").statusCode()).as("POST is idempotent here: sent again on a new connection").isEqualTo(200);
        assertThat(agent.answered).hasValue(2);

        proxy.balancer().setIdempotentMethods("GET");
        HttpResponse<String> put = send("PUT");
        assertThat(put.statusCode()).as("PUT is not idempotent here: not sent twice").isEqualTo(502);
        assertThat(agent.answered).hasValue(2);
    }

    @Test
    void aPostThatWasWrittenIsNotSentAgain() throws Exception {
        assertThat(send("POST").statusCode()).isEqualTo(200);
        HttpResponse<String> second = send("POST");
        // The agent may have taken it: not sent again (a 502 JSON), as Go's net/http decides.
        assertThat(second.statusCode()).isEqualTo(502);
        assertThat(second.body()).contains("\"error\"");
        assertThat(agent.answered).hasValue(1);
    }

    @Test
    void aPostWithAnIdempotencyKeyIsSentAgainButNotWithABlankOne() throws Exception {
        assertThat(send("POST").statusCode()).isEqualTo(200);
        assertThat(send("POST", "Idempotency-Key", "k-1").statusCode()).as("sent again on a new connection").isEqualTo(200);
        assertThat(agent.answered).hasValue(2);
        HttpResponse<String> blank = send("POST", "Idempotency-Key", "");
        assertThat(blank.statusCode()).as("an empty key makes nothing safe to send twice").isEqualTo(502);
        assertThat(agent.answered).hasValue(2);
    }
}
