package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's route class, compiled as printed (only its ports changed) and run in this JVM with
 * camel-netty-http's own consumer in front of three agents: it streams, and does what the demo
 * proxy does with agent calls ({@link ProxyChecks}). End to end: real sockets and time.
 */
@Tag("e2e")
@Timeout(120)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamingRouteTest {

    private SwitchableAgents agents;
    private CamelContext camel;
    private ProxyChecks checks;
    private String base;

    @BeforeAll
    void start(@TempDir Path work) throws Exception {
        agents = new SwitchableAgents();
        int port = FreePorts.next();
        String route = DocBlocks.onPorts(DocBlocks.readmeRoute(), port, agents.ports());
        RoutesBuilder routes = (RoutesBuilder) ExampleRoutes.compileClass(work, DocBlocks.className(route), route)
                .getDeclaredConstructor().newInstance();
        camel = new DefaultCamelContext();
        camel.addRoutes(routes);
        camel.start();
        base = "http://127.0.0.1:" + port;
        checks = new ProxyChecks(base, agents);
    }

    @AfterAll
    void stop() {
        if (camel != null) {
            camel.stop();
        }
        if (agents != null) {
            agents.close();
        }
    }

    @Test
    void aJsonPostIsForwardedByteForByte() throws Exception {
        checks.jsonPostIsForwardedByteForByte();
    }

    @Test
    void serverSentEventsReachTheClientOneByOne() throws Exception {
        checks.eventsReachTheClientOneByOne();
    }

    @Test
    void aLargeAnswerStreamsThroughByteForByte() throws Exception {
        checks.aLargeAnswerStreamsThroughByteForByte(16L * 1024 * 1024 + 5);
    }

    @Test
    void aClientThatLeavesCancelsTheAgentCall() throws Exception {
        checks.aClientThatLeavesCancelsTheAgentCallWithinOneSecond();
    }

    @Test
    void everyAgentBusyIsA429WithRetryAfter() throws Exception {
        checks.everyAgentBusyIs429WithRetryAfterAndTheAgentsRest();
    }

    @Test
    void everyAgentUnavailableIsA503NotA429() throws Exception {
        checks.everyAgentUnavailableIsA503ThenTheAgentsRecover();
    }

    @Test
    void aKeptAliveConnectionCarriesAnswersOneAfterAnother() throws Exception {
        checks.aKeptAliveConnectionCarriesStreamedAnswersOneAfterAnother();
    }

    @Test
    void headIsAnsweredWithHeadersOnlySoTheNextAnswerStartsRightAfter() throws Exception {
        agents.answer((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, request.method().equals("HEAD") ? -1 : 2);
            if (!request.method().equals("HEAD")) {
                exchange.getResponseBody().write("{}".getBytes(StandardCharsets.UTF_8));
            }
        });
        URI uri = URI.create(base);
        String wire;
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("HEAD /process/h1?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String head = ProxyChecks.readUntil(socket.getInputStream(), "\r\n\r\n");
            socket.getOutputStream().write("GET /process/h2?user_id=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            wire = head + new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }

        assertThat(wire).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n{}");
        assertThat(wire.split("HTTP/1.1 200 OK", -1)).hasSize(3);
    }
}
