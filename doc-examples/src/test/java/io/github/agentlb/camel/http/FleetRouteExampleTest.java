package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/fleet-sources.md's route, as printed but for its port and the agents file's path: its
 * agents are the file's, follow the file, and its source stops reading when the context stops.
 * End to end (sockets, the file source's own thread): waits bounded by 10 s.
 */
@Tag("e2e")
class FleetRouteExampleTest {

    @TempDir
    Path work;

    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    @Timeout(60)
    void theRoutesAgentsAreTheFilesAndFollowIt() throws Exception {
        String block = DocBlocks.blocks("docs/fleet-sources.md", "java").stream()
                .filter(b -> b.contains("class FleetRoute")).findFirst().orElseThrow();
        Path agents = work.resolve("agents.txt");
        int port = FreePorts.next();
        try (LocalHttpServer a1 = agent("A1"); LocalHttpServer a2 = agent("A2")) {
            Files.writeString(agents, "A1=http://127.0.0.1:" + a1.port() + "\n");
            String route = block.replace("Path.of(\"agents.txt\")", "Path.of(\"" + agents.toString().replace("\\", "\\\\") + "\")")
                    .replace("0.0.0.0:8000", "127.0.0.1:" + port);
            RoutesBuilder builder = (RoutesBuilder) ExampleRoutes.compileClass(work.resolve("classes"), "FleetRoute", route)
                    .getDeclaredConstructor().newInstance();
            try (CamelContext camel = new DefaultCamelContext()) {
                camel.addRoutes(builder);
                camel.start();
                assertThat(get(port)).isEqualTo("A1");

                Files.writeString(work.resolve("next.txt"), "A2=http://127.0.0.1:" + a2.port() + "\n");
                Files.move(work.resolve("next.txt"), agents, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                String answer = get(port);
                while (!answer.equals("A2") && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                    answer = get(port);
                }
                assertThat(answer).as("the file's new agent within 10 s").isEqualTo("A2");
                camel.stop();
                assertThat(Thread.getAllStackTraces().keySet()).as("the source's thread ended with the context")
                        .noneMatch(thread -> thread.getName().startsWith("agentlb-fleet-file") && thread.isAlive()
                                && awaitEnd(thread));
            }
        }
    }

    private String get(int port) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/process/r1")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return response.body();
    }

    /** Whether {@code thread} is still alive after waiting 5 s for it to end. */
    private static boolean awaitEnd(Thread thread) {
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return thread.isAlive();
    }

    private static LocalHttpServer agent(String id) {
        return new LocalHttpServer(exchange -> {
            byte[] body = id.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
    }
}
