package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.agentlb.camel.http.DocBlocks;
import io.github.agentlb.camel.http.ExampleRoutes;
import io.github.agentlb.camel.http.ScriptedAgent;
import io.github.agentlb.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The platform-http route of docs/using-the-strategies.md, compiled from the page's text and run
 * as a user would: Camel Main's platform-http server in front, camel-http to three agents. Only
 * the agents' host and port differ from the page's text ({@code http://localhost:8081} ...), as
 * the test's agents are on free ports.
 */
@Tag("e2e")
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadmeSnippetTest {

    /**
     * The page's {@code PlatformHttpRoute}, compiled from the page's text; only
     * {@code http://localhost:8081}..{@code 8083} are replaced by {@code agents}, in order.
     */
    static RoutesBuilder userRoute(Path work, List<String> agents) throws Exception {
        String printed = DocBlocks.blocks("docs/using-the-strategies.md", "java").stream()
                .filter(block -> block.contains("class PlatformHttpRoute")).findFirst().orElseThrow();
        String route = printed;
        for (int i = 0; i < agents.size(); i++) {
            assertThat(route).contains("http://localhost:808" + (i + 1));
            route = route.replace("http://localhost:808" + (i + 1), agents.get(i));
        }
        return (RoutesBuilder) ExampleRoutes.compileClass(work, DocBlocks.className(route), route)
                .getDeclaredConstructor().newInstance();
    }

    /** Camel Main's platform-http server on {@code port} with the page's route over {@code agents}, started. */
    static Main startMain(Path work, int port, List<String> agents) throws Exception {
        Main main = new Main();
        main.configure().addRoutesBuilder(userRoute(work, agents));
        main.addOverrideProperty("camel.server.enabled", "true");
        main.addOverrideProperty("camel.server.host", "127.0.0.1");
        main.addOverrideProperty("camel.server.port", Integer.toString(port));
        // The demo's application.properties is on this classpath: keep its management server off.
        main.addOverrideProperty("camel.management.enabled", "false");
        main.addOverrideProperty("camel.metrics.enabled", "false");
        main.start();
        return main;
    }

    private final Http http = new Http();
    private Agents agents;
    private Main main;
    private String base;

    @BeforeAll
    void start(@TempDir Path work) throws Exception {
        agents = Agents.start(3, 0, 2);
        int port = FreePorts.next();
        main = startMain(work, port, agents.urls());
        base = "http://127.0.0.1:" + port;
    }

    @AfterAll
    void stop() throws Exception {
        Resources.close(main == null ? null : main::stop, agents);
    }

    @Test
    void forwardsPathAndQueryAndKeepsEachUserOnOneAgent() {
        Set<String> agentsOfUser42 = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = http.get(base + "/process/r" + i + "?user_id=42");

            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            JsonNode body = Http.json(response);
            assertThat(body.path("request_id").asText()).isEqualTo("r" + i);
            assertThat(body.path("user_id").asText()).isEqualTo("42");
            agentsOfUser42.add(body.path("agent_id").asText());
        }
        assertThat(agentsOfUser42).hasSize(1);
    }

    @Test
    void differentUsersReachEveryAgent() {
        Set<String> seen = new HashSet<>();
        for (int user = 1; user <= 30; user++) {
            seen.add(Http.agentId(http.get(base + "/process/u" + user + "?user_id=" + user)));
        }
        assertThat(seen).containsExactlyInAnyOrder("A1", "A2", "A3");
    }

    @Test
    void passesEscapesThroughAndAnswersWithTheAgentsStatusTypeAndBodyOnly() {
        HttpResponse<String> response = http.get(base + "/process/a%20b?user_id=c%20d&x=%2B");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = Http.json(response);
        assertThat(body.path("request_id").asText()).isEqualTo("a b");
        assertThat(body.path("user_id").asText()).isEqualTo("c d");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        // Without the removeHeaders line the agent's X-Agent-* headers and the query parameters
        // (user_id, x) came back as response headers.
        assertThat(response.headers().map().keySet()).allMatch(
                name -> Set.of(":status", "content-type", "content-length").contains(name.toLowerCase()), "only "
                        + ":status, content-type, content-length");
    }

    @Test
    void passesAnAgentsErrorAnswerThrough() {
        HttpResponse<String> response = http.get(base + "/nowhere/x?user_id=1");

        // matchOnUriPrefix only covers /process: platform-http answers 404 itself here.
        assertThat(response.statusCode()).isEqualTo(404);
        HttpResponse<String> agentError = http.get(base + "/process/a%2Fb?user_id=5");
        assertThat(agentError.statusCode()).isEqualTo(404);
        assertThat(Http.json(agentError).path("error").asText()).isEqualTo("not found");
    }

    @Test
    void otherMethodsGetA405AndAFormPostEchoesNothing() {
        long servedBefore = served();
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base + "/process/z5?user_id=43"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("x=1")));

        // Without httpMethodRestrict=GET: an empty 500 before the balancer, with "x: 1" and
        // "user_id: 43" as answer headers.
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("x")).isEmpty();
        assertThat(post.headers().firstValue("user_id")).isEmpty();
        assertThat(served()).isEqualTo(servedBefore);
    }

    /**
     * HttpClient 5, under camel-http, retries a 429 or a 503 itself (after the answer's Retry-After)
     * unless its retries are off: each agent then got the same GET twice, and a GET over three
     * agents answering 429 "Retry-After: 7" took 21 s. The balancer fails over itself.
     */
    @Test
    void eachAgentIsCalledAtMostOncePerRequestWhenItAnswers429Or503(@TempDir Path work) throws Exception {
        for (int status : new int[] {429, 503}) {
            List<ScriptedAgent> scripted = new ArrayList<>();
            Main busy = null;
            try {
                for (int i = 0; i < 3; i++) {
                    scripted.add(ScriptedAgent.start((exchange, request) -> {
                        byte[] answer = "{\"error\":\"busy\"}".getBytes(StandardCharsets.UTF_8);
                        exchange.getResponseHeaders().set("Content-Type", "application/json");
                        if (status == 429) {
                            exchange.getResponseHeaders().set("Retry-After", "7");
                        }
                        exchange.sendResponseHeaders(status, answer.length);
                        exchange.getResponseBody().write(answer);
                    }));
                }
                int port = FreePorts.next();
                busy = startMain(work.resolve("s" + status), port, scripted.stream().map(ScriptedAgent::baseUrl).toList());

                long started = System.nanoTime();
                HttpResponse<String> response = http.get("http://127.0.0.1:" + port + "/process/r1?user_id=1");
                long tookMs = (System.nanoTime() - started) / 1_000_000;

                assertThat(response.statusCode()).as(response.body()).isIn(429, 503);
                assertThat(tookMs).as("no wait for a Retry-After").isLessThan(5_000);
                for (ScriptedAgent agent : scripted) {
                    assertThat(agent.calls()).as("calls of one agent for one GET answered " + status).isLessThanOrEqualTo(1);
                    if (agent.calls() == 1) {
                        ScriptedAgent.Received received = agent.next();
                        assertThat(received.target()).isEqualTo("/process/r1?user_id=1");
                        assertThat(received.headers().keySet()).as("request headers an agent received")
                                .noneMatch(name -> name.equals("*"));
                    }
                }
                if (status == 429) {
                    int calls = scripted.stream().mapToInt(ScriptedAgent::calls).sum();
                    HttpResponse<String> resting = http.get("http://127.0.0.1:" + port + "/process/r2?user_id=2");
                    assertThat(resting.statusCode()).as("every agent resting").isEqualTo(429);
                    assertThat(resting.body()).isEqualTo("{\"error\":\"agents busy\"}");
                    assertThat(resting.headers().firstValue("Retry-After")).isPresent();
                    assertThat(scripted.stream().mapToInt(ScriptedAgent::calls).sum()).as("no agent called while they rest")
                            .isEqualTo(calls);
                }
                if (status == 503) { // without Retry-After: an outage, not rate limiting
                    // An agent whose 1 s rest ended first (a starved machine) answers its 503 again and rests again.
                    HttpResponse<String> resting;
                    int tries = 0;
                    int calls;
                    do {
                        calls = scripted.stream().mapToInt(ScriptedAgent::calls).sum();
                        resting = http.get("http://127.0.0.1:" + port + "/process/r2?user_id=2");
                        assertThat(resting.statusCode()).as("every agent resting after a 503").isEqualTo(503);
                    } while (!resting.body().equals("{\"error\":\"agents unavailable\"}") && ++tries < 5);
                    assertThat(resting.body()).isEqualTo("{\"error\":\"agents unavailable\"}");
                    assertThat(resting.headers().firstValue("Retry-After")).isPresent();
                    assertThat(scripted.stream().mapToInt(ScriptedAgent::calls).sum()).as("no agent called while they rest")
                            .isEqualTo(calls);
                }
            } finally {
                Main started = busy;
                Resources.close(started == null ? null : started::stop);
                scripted.forEach(ScriptedAgent::close);
            }
        }
    }

    private long served() {
        long served = 0;
        for (int i = 0; i < 3; i++) {
            served += agents.get(i).requestsServed();
        }
        return served;
    }
}
