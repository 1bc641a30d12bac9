package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A request that arrives while the server's consumer is suspended (shutting down) gets a JSON 503. */
@Tag("e2e")
class WhileStoppingTest {

    @Test
    void aSuspendedServerAnswersJson503AndServesAgainWhenResumed() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A1").host("127.0.0.1").port(0)
                .delayMs(0, 0).build())) {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpRequest get = HttpRequest.newBuilder(URI.create(agent.baseUrl() + "/process/r1?user_id=1"))
                    .timeout(Duration.ofSeconds(5)).build();
            assertThat(client.send(get, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

            agent.camelContext().getRouteController().suspendRoute("agent-A1");
            HttpResponse<String> refused = client.send(get, HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(refused.headers().firstValue("retry-after")).hasValue("5");
            assertThat(refused.body()).isEqualTo(
                    "{\"error\":\"unavailable\",\"detail\":\"the server is shutting down: send the request elsewhere\"}");

            agent.camelContext().getRouteController().resumeRoute("agent-A1");
            assertThat(client.send(get, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        }
    }

    /**
     * An answer that ends while the server stops says {@code Connection: close} and its connection
     * closes after it: the client's next request goes elsewhere, not to a connection that refuses it.
     */
    @Test
    void anAnswerThatEndsWhileTheServerStopsClosesItsConnection() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A1").host("127.0.0.1").port(0)
                .delayMs(1_000, 1_000).build());
                java.net.Socket socket = new java.net.Socket("127.0.0.1", java.net.URI.create(agent.baseUrl()).getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write("GET /process/r1?user_id=1 HTTP/1.1\r\nHost: a\r\n\r\n"
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            for (int i = 0; i < 400 && agent.load().inService() + agent.load().queued() == 0; i++) {
                Thread.sleep(25); // in service before the stop begins, whatever a starved CPU's delay
            }
            assertThat(agent.load().inService() + agent.load().queued()).as("the request in service").isEqualTo(1);
            Thread suspending = suspendInBackground(agent);
            String answer = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            suspending.join(30_000);

            assertThat(answer).startsWith("HTTP/1.1 200 ");
            assertThat(answer.toLowerCase(java.util.Locale.ROOT)).contains("\r\nconnection: close\r\n");
            agent.camelContext().getRouteController().resumeRoute("agent-A1");
        }
    }

    /**
     * So does an answer that began before the server stopped and ends while it stops (a stream):
     * its connection closes after its last chunk, so the client's next request, a resumption
     * included, goes elsewhere.
     */
    @Test
    void aStreamThatBeganBeforeTheStopClosesItsConnectionAfterItsEnd() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A1").host("127.0.0.1").port(0)
                .chat(new ChatShape(0, 20, 30)).build());
                java.net.Socket socket = new java.net.Socket("127.0.0.1", java.net.URI.create(agent.baseUrl()).getPort())) {
            socket.setSoTimeout(20_000);
            String body = "{\"model\":\"m1\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            java.io.InputStream in = socket.getInputStream();
            StringBuilder seen = new StringBuilder();
            while (!seen.toString().contains("data: ")) {
                seen.append((char) in.read());
            }
            Thread suspending = suspendInBackground(agent);
            seen.append(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII)); // to the connection's end
            suspending.join(30_000);

            assertThat(seen.toString()).startsWith("HTTP/1.1 200 ").contains("[DONE]").endsWith("0\r\n\r\n");
        }
    }

    /** Suspends the agent's route on a thread of its own (the suspension waits for the requests in flight), started. */
    private static Thread suspendInBackground(StubAgent agent) {
        Thread suspending = new Thread(() -> {
            try {
                agent.camelContext().getRouteController().suspendRoute("agent-A1");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        suspending.start();
        return suspending;
    }
}
