package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.camel.http.ScriptedAgent;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A legacy MCP session's {@code GET} stream waits for events and never ends by itself: one in flight
 * when the proxy begins to stop ends at once, for its client to resume on another replica. So does
 * one that begins during the stop, on a connection the client kept open (early in the stop the proxy
 * serves such a request, then refuses it with a 503): else it held the stop to its whole timeout.
 */
@Tag("e2e")
@Timeout(60)
class LegacyStreamsWhileStoppingTest {

    private static final String LEGACY = "MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: s-1\r\n"
            + "Accept: application/json, text/event-stream\r\n";

    /**
     * An agent whose {@code GET /mcp} is a standing stream (one event with an id, then 20 s of nothing),
     * whose {@code POST /mcp} is a tool call streaming without event ids for 3 s, and whose
     * {@code GET /process/...} answers at once.
     */
    private static ScriptedAgent agent() throws IOException {
        return ScriptedAgent.start((exchange, request) -> {
            if (request.method().equals("GET") && exchange.getRequestURI().getPath().startsWith("/process/")) {
                byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.getResponseBody().close();
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            boolean standing = request.method().equals("GET");
            exchange.getResponseBody().write((standing ? "id: e-1\ndata: 1\n\n" : "data: working\n\n")
                    .getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            Thread.sleep(standing ? 20_000 : 3_000);
            exchange.getResponseBody().write("data: done\n\n".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().close();
        });
    }

    @Test
    void aStandingStreamBegunWhileTheProxyStopsEndsAtOnceAndDoesNotHoldTheStop() throws Exception {
        try (ScriptedAgent agent = agent()) {
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(agent.baseUrl())
                    .strategy("rr").build();
            DemoProxy proxy = DemoProxy.start(config, RoundRobinLB::new);
            proxy.camelContext().getShutdownStrategy().setTimeout(30);
            try (Socket kept = connect(proxy); Socket call = connect(proxy)) {
                send(kept, "GET /process/q1?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n");
                String quick = readUntil(kept.getInputStream(), "\r\n\r\n");
                assertThat(quick).startsWith("HTTP/1.1 200");
                readUntil(kept.getInputStream(), quick.toLowerCase().contains("transfer-encoding: chunked")
                        ? "\r\n0\r\n\r\n" : "{}"); // the whole answer: the connection is clear for the next
                send(call, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                        + LEGACY + "\r\n{}");
                readUntil(call.getInputStream(), "data: working");

                // The tool call, without event ids, goes on to its end: it holds the stop about 3 s.
                CompletableFuture<Void> stopped = CompletableFuture.runAsync(proxy::close);
                while (!proxy.camelContext().isStopping() && !stopped.isDone()) {
                    Thread.sleep(5);
                }
                send(kept, "GET /mcp HTTP/1.1\r\nHost: x\r\n" + LEGACY + "\r\n");
                String head = readUntil(kept.getInputStream(), "\r\n\r\n");
                if (head.startsWith("HTTP/1.1 503")) {
                    // Sent a moment later in the stop: refused (by the proxy's admission, or its front end
                    // once the route is suspended), and the connection closed.
                    assertThat(head.toLowerCase()).contains("connection: close");
                } else {
                    assertThat(head).startsWith("HTTP/1.1 200");
                    // Ended at its head, as those in flight were: the terminating chunk, for its client to resume.
                    assertThat(readUntil(kept.getInputStream(), "0\r\n\r\n")).as("ended for its client to resume")
                            .matches("(?s)(.*\r\n)?0\r\n\r\n");
                }
                assertThat(readUntil(call.getInputStream(), "\r\n0\r\n\r\n")).as("the tool call ran to its end")
                        .contains("data: done");
                stopped.get(15, TimeUnit.SECONDS); // not the 30 s of the shutdown timeout
            } finally {
                proxy.close();
            }
        }
    }

    /** A call still running when the stop's timeout runs out is cut, and one WARN line says which. */
    @Test
    void aCallCutAtTheEndOfTheStopsTimeoutIsNamedInTheLog() throws Exception {
        try (ScriptedAgent agent = agent(); CapturedLog log = new CapturedLog("io.github.agentlb.camel.http.AgentProducer")) {
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(agent.baseUrl())
                    .strategy("rr").build();
            DemoProxy proxy = DemoProxy.start(config, RoundRobinLB::new);
            proxy.camelContext().getShutdownStrategy().setTimeout(1);
            try (Socket call = connect(proxy)) {
                // No session, no event stream asked for (which would make it a listening stream, ended at the stop's
                // start): a plain answer that streams, which the stop cuts when its timeout runs out.
                send(call, "GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n");
                readUntil(call.getInputStream(), "data: 1");
                proxy.close();
                assertThat(log.lines("cut by the proxy's stop")).singleElement().asString()
                        .startsWith("WARN agent " + agent.baseUrl()).contains("GET call cut");
            } finally {
                proxy.close();
            }
        }
    }

    private static Socket connect(DemoProxy proxy) throws IOException {
        Socket socket = new Socket("127.0.0.1", proxy.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static void send(Socket socket, String request) throws IOException {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
    }

    /** What {@code in} gives up to and with {@code mark}; the stream's end or 10 s of silence first fails the test. */
    private static String readUntil(InputStream in, String mark) throws IOException {
        StringBuilder seen = new StringBuilder();
        try {
            while (!seen.toString().endsWith(mark)) {
                int b = in.read();
                assertThat(b).as("%s before %s", seen, mark).isNotNegative();
                seen.append((char) b);
            }
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("no " + mark + " within 10 s; read: " + seen, e);
        }
        return seen.toString();
    }
}
