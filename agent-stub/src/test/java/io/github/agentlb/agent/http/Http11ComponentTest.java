package io.github.agentlb.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.agentlb.testing.FreePorts;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(60)
class Http11ComponentTest {

    /**
     * Netty's buffers, recyclers and codecs keep per-thread state in {@code FastThreadLocal}s, read
     * through a JDK {@code ThreadLocal} on any other thread: the servers' event loops are Netty's own
     * kind of thread, named as Camel names its worker threads (a route without
     * {@code usingExecutorService}, as the demo proxy's, runs on them).
     */
    @Test
    void requestsRunOnNettysFastThreadLocalThreadsNamedAsCamelNamesItsWorkers() throws Exception {
        int port = FreePorts.next();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            Http11Component.register(context);
            context.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from(Http11Component.SCHEME + ":http://127.0.0.1:" + port + "/t?usingExecutorService=false").routeId("served")
                            .process(exchange -> ranOn.set(Thread.currentThread()))
                            .setBody(constant("ok"));
                }
            });
            context.start();
            for (int start = 1; start <= 2; start++) {
                ranOn.set(null);
                HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/t")).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());

                assertThat(answer.body()).as("start %d", start).isEqualTo("ok");
                assertThat(ranOn.get()).as("start %d", start).isInstanceOf(FastThreadLocalThread.class);
                assertThat(ranOn.get().getName()).startsWith("Camel Thread #").endsWith(" - NettyServerTCPWorker");
                // Stopped and started again, the component makes its event loops again.
                context.getRouteController().stopRoute("served");
                context.getComponent(Http11Component.SCHEME).stop();
                context.getComponent(Http11Component.SCHEME).start();
                context.getRouteController().startRoute("served");
            }
        }
    }

    /** A started context whose server on {@code port} answers "ok" to any request, holding bodies as {@code held} says. */
    private static DefaultCamelContext answeringOk(int port, long requestReadTimeoutMs, HeldBodies held) throws Exception {
        DefaultCamelContext context = new DefaultCamelContext();
        Http11Component.register(context, requestReadTimeoutMs, held);
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from(Http11Component.SCHEME + ":http://127.0.0.1:" + port + "/?matchOnUriPrefix=true&chunkedMaxContentLength=16777216")
                        .setBody(constant("ok"));
            }
        });
        context.start();
        return context;
    }

    /**
     * Many clients that send part of a large body and go quiet hold no more of the server's memory
     * than its most for all bodies (and a read each): those whose least held does not fit are not
     * read; a small request is answered meanwhile; what they held is given back when they leave.
     */
    @Test
    void quietClientsHoldNoMoreThanTheMostForAllBodiesAndASmallRequestIsAnswered() throws Exception {
        int port = FreePorts.next();
        HeldBodies held = new HeldBodies(256 * 1024, 256 * 1024, 0, 600 * 1024, (head, bytes) -> true);
        List<Socket> quiet = new ArrayList<>();
        try (DefaultCamelContext context = answeringOk(port, 30_000, held)) {
            for (int client = 0; client < 10; client++) {
                Socket socket = new Socket("127.0.0.1", port);
                quiet.add(socket);
                OutputStream out = socket.getOutputStream();
                out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 1000000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[200_000]);
                out.flush();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> held.connectionsWaiting() == 8);
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/small"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(answer.body()).isEqualTo("ok");
            assertThat(held.bytesHeld()).as("two bodies' least (512 KiB) and a read each of the 8 waiting; 2,000,000 unbounded")
                    .isBetween(512L * 1024, 512L * 1024 + 8 * HeldBodies.WAKE_BYTES);
            for (Socket socket : quiet) {
                socket.close();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> held.bytesHeld() == 0);
        } finally {
            for (Socket socket : quiet) {
                socket.close();
            }
        }
    }

    /**
     * Chunked bodies, gathered whole, are held to the same most: Netty's aggregator reads on while
     * a body is incomplete even with reading paused, and must not while the body waits for bytes.
     */
    @Test
    void quietChunkedClientsHoldNoMoreThanTheMostForAllBodies() throws Exception {
        int port = FreePorts.next();
        HeldBodies held = new HeldBodies(256 * 1024, 256 * 1024, 0, 600 * 1024, (head, bytes) -> true);
        List<Socket> quiet = new ArrayList<>();
        try (DefaultCamelContext context = answeringOk(port, 3_000, held)) {
            byte[] chunk = ("10000\r\n" + "x".repeat(65_536) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            for (int client = 0; client < 10; client++) {
                Socket socket = new Socket("127.0.0.1", port);
                quiet.add(socket);
                OutputStream out = socket.getOutputStream();
                out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                for (int i = 0; i < 4; i++) {
                    out.write(chunk);
                }
                out.flush();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> held.connectionsWaiting() >= 1);
            Thread.sleep(500); // what an aggregator reading on would read meanwhile
            assertThat(held.bytesHeld()).as("600 KiB and a read each of 10; 2,621,440 read on")
                    .isLessThanOrEqualTo(600L * 1024 + 10 * HeldBodies.WAKE_BYTES);
            // A connection not read does not see its client leave: its read timeout (3 s here) ends it at the latest.
            for (Socket socket : quiet) {
                socket.close();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> held.bytesHeld() == 0);
        } finally {
            for (Socket socket : quiet) {
                socket.close();
            }
        }
    }
}
