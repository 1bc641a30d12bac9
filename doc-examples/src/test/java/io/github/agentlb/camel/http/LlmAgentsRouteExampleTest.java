package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end (real sockets and time): the route class of docs/llm-agents.md ("A route of your
 * own"), compiled as printed and run in front of three chat agents that mint MCP-style session ids:
 * a conversation stays on its agent and gets its session id back sealed; a forged id, an agent that
 * fails or hangs mid-call and every agent down each get a JSON error, never a stack trace, and no
 * agent is called twice for one request. The agents' first-byte timeout is 3 s, which a starved CPU
 * still answers within; a hung agent holds its call until it is closed, so it times out whatever
 * the CPU.
 */
@Tag("e2e")
@Timeout(60)
class LlmAgentsRouteExampleTest {

    private static final String HEADER = "Mcp-Session-Id";

    @TempDir
    Path work;

    private final List<ChatAgent> agents = new ArrayList<>();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private CamelContext camel;
    private int port;

    @BeforeEach
    void start() throws Exception {
        for (int i = 1; i <= 3; i++) {
            agents.add(new ChatAgent("A" + i));
        }
        port = FreePorts.next();
        String route = example().replace(":8000/", ":" + port + "/").replace("firstByteTimeout=5m", "firstByteTimeout=3s");
        for (int i = 0; i < 3; i++) {
            route = route.replace("localhost:808" + (i + 1), "localhost:" + agents.get(i).port());
        }
        camel = new DefaultCamelContext();
        camel.addRoutes((RoutesBuilder) ExampleRoutes.compileClass(work, DocBlocks.className(route), route)
                .getDeclaredConstructor().newInstance());
        camel.start();
    }

    @AfterEach
    void stop() {
        if (camel != null) {
            camel.stop();
        }
        agents.forEach(ChatAgent::close);
    }

    /** The java block of the doc's "A route of your own". */
    static String example() throws IOException {
        String doc = Files.readString(Path.of("../docs/llm-agents.md"));
        Matcher block = Pattern.compile("## A route of your own.*?```java\\R(.*?)\\R```", Pattern.DOTALL).matcher(doc);
        assertThat(block.find()).as("docs/llm-agents.md has the route").isTrue();
        return block.group(1);
    }

    @Test
    void aConversationStaysOnItsAgentAndItsSessionIdComesBackSealed() throws Exception {
        HttpResponse<String> first = chat("hello, conversation one", null);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        String agent = agentOf(first);
        String sealed = first.headers().firstValue(HEADER).orElseThrow();
        assertThat(sealed).startsWith("a1.").doesNotContain(agent + "-s");

        HttpResponse<String> second = chat("hello, conversation one", sealed);
        assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
        assertThat(agentOf(second)).isEqualTo(agent);
        ChatAgent owner = agents.stream().filter(a -> a.id.equals(agent)).findFirst().orElseThrow();
        assertThat(owner.sessionsReceived).containsExactly("(none)", agent + "-s1");
    }

    @Test
    void aForgedSessionIdIsA400JsonAndCallsNoAgent() throws Exception {
        HttpResponse<String> response = chat("hello", "a1.QTE.N2YzYQ.forged");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.body()).startsWith("{\"error\":\"bad session id\",\"detail\":\"Mcp-Session-Id is not a session id");
        assertThat(response.headers().firstValue(HEADER)).as("the forged id is not sent back").isEmpty();
        HttpResponse<String> garbage = chat("hello", "x".repeat(7_000));
        assertThat(garbage.statusCode()).isEqualTo(400);
        assertThat(garbage.headers().firstValue(HEADER)).as("the garbage id is not sent back").isEmpty();
        assertThat(garbage.body()).hasSizeLessThan(1_000);
        assertThat(calls()).isZero();
    }

    @Test
    void anAgentThatFailsOrHangsMidCallIsA502JsonAndTheCallIsNotRepeated() throws Exception {
        agents.forEach(a -> a.mode = Mode.DROP);
        HttpResponse<String> dropped = chat("hello", null);
        assertThat(dropped.statusCode()).isEqualTo(502);
        assertThat(dropped.body()).isEqualTo("{\"error\":\"the agent failed or did not answer in time\"}");
        assertThat(dropped.headers().firstValue("x-should-retry")).as("SDKs told not to send it again")
                .hasValue("false");
        assertThat(calls()).isEqualTo(1);

        agents.forEach(a -> a.mode = Mode.HANG);
        HttpResponse<String> hung = chat("hello again", null);
        assertThat(hung.statusCode()).isEqualTo(502);
        assertThat(hung.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(hung.headers().firstValue("x-should-retry")).hasValue("false");
        assertThat(calls()).isEqualTo(2);
    }

    @Test
    void everyAgentDownIsA503Json() throws Exception {
        agents.forEach(ChatAgent::close);
        HttpResponse<String> response = chat("hello", null);
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).isEqualTo("{\"error\":\"no agent available\"}");
    }

    @Test
    void anErrorTheRouteMakesForASessionSendsNoSessionIdBack() throws Exception {
        HttpResponse<String> first = chat("hello, conversation two", null);
        String sealed = first.headers().firstValue(HEADER).orElseThrow();
        ChatAgent owner = agents.stream().filter(a -> a.id.equals(agentOf(first))).findFirst().orElseThrow();

        owner.mode = Mode.DROP;
        HttpResponse<String> dropped = chat("hello, conversation two", sealed);
        assertThat(dropped.statusCode()).isEqualTo(502);
        assertThat(dropped.headers().firstValue(HEADER)).as("the client's id is not sent back with a 502").isEmpty();

        owner.close();
        HttpResponse<String> down = chat("hello, conversation two", sealed);
        assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
        assertThat(down.headers().firstValue(HEADER)).as("the client's id is not sent back with a 503").isEmpty();
        assertThat(calls()).as("the session's calls went to its agent alone").isEqualTo(owner.calls.get());
    }

    private int calls() {
        return agents.stream().mapToInt(a -> a.calls.get()).sum();
    }

    private static String agentOf(HttpResponse<String> response) {
        return response.body().replaceAll(".*\"agent\":\"(A\\d)\".*", "$1");
    }

    private HttpResponse<String> chat(String firstUserMessage, String sessionId) throws Exception {
        String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"You help.\"},"
                + "{\"role\":\"user\",\"content\":\"" + firstUserMessage + "\"}]}";
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (sessionId != null) {
            request.header(HEADER, sessionId);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private enum Mode { ANSWER, DROP, HANG }

    /** A chat agent: answers its id and mints {@code <id>-s<n>} for a request without a session id. */
    private static final class ChatAgent {
        final String id;
        final LocalHttpServer server;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger minted = new AtomicInteger();
        final List<String> sessionsReceived = new CopyOnWriteArrayList<>();
        final CountDownLatch closed = new CountDownLatch(1);
        volatile Mode mode = Mode.ANSWER;

        ChatAgent(String id) {
            this.id = id;
            server = new LocalHttpServer(exchange -> {
                calls.incrementAndGet();
                exchange.getRequestBody().readAllBytes();
                try {
                    if (mode == Mode.DROP) {
                        return; // closed below without an answer
                    }
                    if (mode == Mode.HANG) {
                        closed.await();
                        return;
                    }
                    String session = exchange.getRequestHeaders().getFirst(HEADER);
                    sessionsReceived.add(session == null ? "(none)" : session);
                    if (session == null) {
                        session = id + "-s" + minted.incrementAndGet();
                    }
                    byte[] answer = ("{\"agent\":\"" + id + "\",\"choices\":[]}").getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().add("Content-Type", "application/json");
                    exchange.getResponseHeaders().add(HEADER, session);
                    exchange.sendResponseHeaders(200, answer.length);
                    exchange.getResponseBody().write(answer);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    exchange.close();
                }
            });
        }

        int port() {
            return server.port();
        }

        void close() {
            closed.countDown();
            server.close();
        }
    }
}
