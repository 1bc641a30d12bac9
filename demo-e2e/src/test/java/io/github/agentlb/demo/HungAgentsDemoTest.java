package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hung agents (they accept connections and never answer, not even {@code /health}) behind the
 * demo proxy with its defaults (60 s first-byte timeout): its active health checks mark them down
 * within seconds and end the calls waiting on them, so a hung agent of three holds at most one
 * request, and with every agent hung a client gets a JSON 5xx long before the first-byte timeout.
 */
@Tag("e2e")
@Timeout(120)
class HungAgentsDemoTest {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A listener that accepts every connection and never writes a byte, until closed. */
    static final class HungAgent implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> held = new CopyOnWriteArrayList<>();

        HungAgent() throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        held.add(server.accept());
                    } catch (IOException e) {
                        // closed
                    }
                }
            }, "hung-agent-" + server.getLocalPort());
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    /** The demo proxy as {@code java -jar demo-routes.jar} runs it, with only the port, agents and strategy given. */
    private static Main startDemo(int port, String agents) throws Exception {
        Main main = DemoMain.createMain();
        main.addOverrideProperty("port", Integer.toString(port));
        main.addOverrideProperty("agents", agents);
        main.addOverrideProperty("strategy", "rr");
        main.addOverrideProperty("camel.management.enabled", "false");
        main.start();
        return main;
    }

    private HttpResponse<String> send(String method, String url, Duration limit) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(limit);
        request = method.equals("POST") ? request.POST(HttpRequest.BodyPublishers.ofString("{}")) : request.GET();
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void oneHungAgentOfThreeUnderRrHoldsAtMostTwoOfThirtySequentialRequestsOverASecond() throws Exception {
        try (Agents agents = Agents.start(2, 0, 2); HungAgent hung = new HungAgent()) {
            int port = FreePorts.next();
            Main main = startDemo(port, "A1=" + agents.urls().get(0) + ",A2=" + agents.urls().get(1) + ",A3=" + hung.baseUrl());
            try {
                List<Long> millis = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    long start = System.nanoTime();
                    HttpResponse<String> response = send("GET", "http://127.0.0.1:" + port + "/process/h" + i + "?user_id=" + i,
                            Duration.ofSeconds(20));
                    millis.add((System.nanoTime() - start) / 1_000_000);
                    assertThat(response.statusCode()).as("request %d", i).isEqualTo(200);
                    assertThat(Http.agentId(response)).isIn("A1", "A2");
                }
                System.out.println("hung agent of three, rr, demo defaults: request times (ms) " + millis);
                assertThat(millis.stream().filter(ms -> ms > 1_000).count()).as("requests over 1 s: %s", millis)
                        .isLessThanOrEqualTo(2);
            } finally {
                main.stop();
            }
        }
    }

    /**
     * An agent whose {@code /health} answers 200 while every request hangs (a server process alive, its
     * work stuck): the health checks see nothing wrong, so the requests themselves must tell. Clients
     * give up after 5 s, long before the 60 s first-byte timeout.
     */
    @Test
    void oneAgentHungOnRequestsButHealthyOnItsProbeHoldsAtMostThreeOfThirtySequentialRequestsOverASecond() throws Exception {
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        try (Agents agents = Agents.start(2, 0, 2);
             io.github.agentlb.camel.http.ScriptedAgent stuck = io.github.agentlb.camel.http.ScriptedAgent.start((exchange, request) -> {
                 if (exchange.getRequestURI().getPath().equals("/health")) {
                     byte[] up = "{\"status\":\"UP\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                     exchange.sendResponseHeaders(200, up.length);
                     exchange.getResponseBody().write(up);
                 } else {
                     never.await();
                 }
             })) {
            int port = FreePorts.next();
            Main main = startDemo(port, "A1=" + agents.urls().get(0) + ",A2=" + agents.urls().get(1) + ",A3=" + stuck.baseUrl());
            try {
                List<Long> millis = new ArrayList<>();
                int answered = 0;
                for (int i = 0; i < 30; i++) {
                    long start = System.nanoTime();
                    try {
                        HttpResponse<String> response = send("GET", "http://127.0.0.1:" + port + "/process/s" + i + "?user_id=" + i,
                                Duration.ofSeconds(5));
                        answered += response.statusCode() == 200 ? 1 : 0;
                    } catch (java.net.http.HttpTimeoutException e) {
                        // the client gave up
                    }
                    millis.add((System.nanoTime() - start) / 1_000_000);
                }
                System.out.println("agent hung on requests, healthy probe, rr, demo defaults: request times (ms) " + millis);
                // Two clients that left eject the agent; a third may reach it when the proxy sees the second
                // client's connection close after that client's next two requests (about 20 ms: once in a
                // fresh build, [111, 35, 5004, 29, 9, 5003, 12, 5, 5003, ...]). Without the rule: 10 of 30.
                assertThat(millis.stream().filter(ms -> ms > 1_000).count()).as("requests over 1 s: %s", millis)
                        .isLessThanOrEqualTo(3);
                assertThat(answered).isGreaterThanOrEqualTo(28);
            } finally {
                main.stop();
                never.countDown();
            }
        }
    }

    @Test
    void everyAgentHungAClientGetsAJson5xxWithin35Seconds() throws Exception {
        try (HungAgent a = new HungAgent(); HungAgent b = new HungAgent(); HungAgent c = new HungAgent()) {
            int port = FreePorts.next();
            Main main = startDemo(port, "A1=" + a.baseUrl() + ",A2=" + b.baseUrl() + ",A3=" + c.baseUrl());
            try {
                for (String method : List.of("POST", "GET")) {
                    long start = System.nanoTime();
                    HttpResponse<String> response = send(method, "http://127.0.0.1:" + port + "/process/all-hung?user_id=1",
                            Duration.ofSeconds(35));
                    long ms = (System.nanoTime() - start) / 1_000_000;
                    System.out.println("every agent hung, " + method + ": " + response.statusCode() + " after " + ms
                            + " ms: " + response.body());
                    assertThat(response.statusCode()).as(method).isBetween(500, 599);
                    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
                    assertThat(Http.json(response).path("error").asText()).isNotEmpty();
                    assertThat(ms).isLessThan(35_000);
                }
            } finally {
                main.stop();
            }
        }
    }
}
