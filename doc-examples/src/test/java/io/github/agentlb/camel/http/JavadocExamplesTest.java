package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.LoadBalanceDefinition;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.loadbalancer.CustomLoadBalancerDefinition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each strategy's class Javadoc example, compiled from the source file's text and run as written:
 * the route is read from the class's {@code <pre>{@code ...}</pre>} block, only its ports are
 * changed (8000 for the route, 8081..8083 for the agents, to free ports), it is compiled with the
 * test classpath and started in a Camel context in front of three HTTP agents.
 */
@Timeout(120)
class JavadocExamplesTest {

    private static final Pattern EXAMPLE = Pattern.compile("<pre>\\{@code\\R(.*?)\\R \\* }</pre>", Pattern.DOTALL);
    private static final int CONCURRENT = 90;

    @TempDir
    Path work;

    private final List<Agent> agents = new ArrayList<>();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private CamelContext camel;
    private AgentLoadBalancerSupport balancer;
    private int port;

    @BeforeEach
    void startAgents() throws IOException {
        for (int i = 1; i <= 3; i++) {
            agents.add(new Agent("A" + i));
        }
        port = FreePorts.next();
    }

    @AfterEach
    void stop() {
        if (camel != null) {
            camel.stop();
        }
        agents.forEach(Agent::close);
    }

    @Tag("e2e")
    @ParameterizedTest
    @ValueSource(strings = {"RoundRobinLB", "ConsistentHashLB", "PidWeightedLB", "AdaptiveVirtualNodeLB", "LeastRequestLB"})
    void theExampleForwardsPathAndQueryAnswersOnlyTheAgentsAnswerAndHoldsNoThreadPerCall(String strategy)
            throws Exception {
        start(strategy);
        List<String> ids = agents.stream().map(a -> "http://localhost:" + a.port()).toList();
        assertThat(balancer.getAgentIds()).as("agent ids: the agent endpoint's address, without options")
                .containsExactlyInAnyOrderElementsOf(ids);

        Set<String> agentsOfUser42 = new HashSet<>();
        Set<String> agentsSeen = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> response = get("/process/r" + i + "%20x?user_id=" + (i % 3 == 0 ? 42 : i));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            assertThat(response.body()).contains("\"path\":\"/process/r" + i + "%20x\"");
            assertThat(response.headers().map().keySet())
                    .as("the client gets the agent's status, headers (Date, X-Agent) and body, none of the request's,"
                            + " no load report")
                    .allMatch(name -> Set.of(":status", "connection", "content-type", "content-length", "date", "x-agent")
                            .contains(name.toLowerCase()));
            assertThat(response.headers().firstValue("X-Agent")).hasValue(agentOf(response));
            String agent = agentOf(response);
            agentsSeen.add(agent);
            if (i % 3 == 0) {
                assertThat(response.body()).contains("\"query\":\"user_id=42\"");
                agentsOfUser42.add(agent);
            }
        }
        assertThat(agentsSeen).as("every agent serves").containsExactlyInAnyOrder("A1", "A2", "A3");
        if (strategy.equals("ConsistentHashLB") || strategy.equals("AdaptiveVirtualNodeLB")) {
            assertThat(agentsOfUser42).as("one user, one agent").hasSize(1);
        }

        // Non-blocking end to end: many more calls wait on the agents at once than Camel's netty
        // consumer has threads (16 by default), so no thread is held while an agent answers. The
        // agents hold every call until all have arrived, however slowly a starved CPU sends them.
        CountDownLatch arrived = new CountDownLatch(CONCURRENT);
        CountDownLatch release = new CountDownLatch(1);
        agents.forEach(a -> a.holdUntil(arrived, release));
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < CONCURRENT; i++) {
            calls.add(client.sendAsync(request("/process/c" + i + "?user_id=" + i), HttpResponse.BodyHandlers.ofString()));
        }
        try {
            assertThat(arrived.await(20, TimeUnit.SECONDS)).as("all %d calls waiting at the agents at once", CONCURRENT).isTrue();
        } finally {
            release.countDown();
        }
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            assertThat(call.get().statusCode()).isEqualTo(200);
        }
        int peak = agents.stream().mapToInt(a -> a.peak.get()).sum();
        assertThat(peak).as("calls in flight at the agents at once").isGreaterThan(CONCURRENT / 2).isEqualTo(CONCURRENT);
    }

    /**
     * A POST whose agent failed after it was sent is not sent again by the balancer (it may have
     * run), and its JSON 502 says {@code x-should-retry: false}, so that OpenAI's and other
     * generated SDKs, which retry a 502 by default, do not send it again either.
     */
    @Tag("e2e")
    @ParameterizedTest
    @ValueSource(strings = {"RoundRobinLB", "ConsistentHashLB", "PidWeightedLB", "AdaptiveVirtualNodeLB",
        "LeastRequestLB"})
    void aPostWhoseAgentFailedIsA502ThatTellsSdksNotToSendItAgain(String strategy) throws Exception {
        start(strategy);
        agents.forEach(a -> a.drop = true);

        HttpResponse<String> failed = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                        + "/process/p1?user_id=1")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(failed.statusCode()).isEqualTo(502);
        assertThat(failed.body()).isEqualTo("{\"error\":\"the agent failed or did not answer in time\"}");
        assertThat(failed.headers().firstValue("x-should-retry")).as("SDKs told not to send it again")
                .hasValue("false");
        assertThat(agents.stream().mapToInt(a -> a.calls.get()).sum()).as("sent once").isEqualTo(1);
    }

    @Tag("e2e")
    @ParameterizedTest
    @ValueSource(strings = {"RoundRobinLB", "LeastRequestLB"})
    void aDeadAgentIsSkipped(String strategy) throws Exception {
        start(strategy);
        agents.get(1).close();

        for (int i = 0; i < 12; i++) {
            HttpResponse<String> response = get("/process/d" + i + "?user_id=" + i);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            assertThat(response.body()).doesNotContain("\"agent_id\":\"A2\"");
        }
    }

    @Tag("e2e")
    @ParameterizedTest
    @ValueSource(strings = {"RoundRobinLB", "ConsistentHashLB", "PidWeightedLB", "AdaptiveVirtualNodeLB", "LeastRequestLB"})
    void everyAgentDownIsAJson503WithoutStackTrace(String strategy) throws Exception {
        start(strategy);
        agents.forEach(Agent::close);

        HttpResponse<String> response = get("/process/x?user_id=1");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.body()).isEqualTo("{\"error\":\"no agent available\"}");
    }

    /**
     * Every agent resting after a 503 without {@code Retry-After} is an outage: each example answers
     * the requests that come meanwhile with a JSON 503 and {@code Retry-After}, not a 429.
     */
    @Tag("e2e")
    @ParameterizedTest
    @ValueSource(strings = {"RoundRobinLB", "ConsistentHashLB", "PidWeightedLB", "AdaptiveVirtualNodeLB", "LeastRequestLB"})
    void everyAgentUnavailableIsAJson503NotA429(String strategy) throws Exception {
        start(strategy);
        agents.forEach(a -> a.status = 503);

        assertThat(get("/process/u1?user_id=1").statusCode()).as("the last agent's own 503").isEqualTo(503);
        // An agent whose 1 s rest ended first (a starved machine) answers its 503 again and rests again.
        HttpResponse<String> response;
        int tries = 0;
        do {
            response = get("/process/u2?user_id=2");
            assertThat(response.statusCode()).as("never a 429").isEqualTo(503);
        } while (!response.body().equals("{\"error\":\"agents unavailable\"}") && ++tries < 5);

        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.headers().firstValue("retry-after")).isPresent();
        assertThat(response.body()).isEqualTo("{\"error\":\"agents unavailable\"}");
    }

    /**
     * README.md, after its route: the request that finds the last agent busy gets that agent's 429,
     * its body, with the balancer's {@code Retry-After}: the shortest rest left among the agents,
     * whole seconds, capped by {@code maxRest} (60 s), at least 1; never the agent's own value when
     * it is out of that range or unusable.
     */
    @Tag("e2e")
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {"120|60", "0|1", "-1|1", "abc|1",
            "Thu, 01 Jan 1970 00:00:00 GMT|1", "30|30"})
    void theLastBusyAgentsAnswerIsPassedOnWithTheBalancersRetryAfter(String agents, String client) throws Exception {
        start("ConsistentHashLB");
        this.agents.forEach(a -> {
            a.status = 429;
            a.retryAfter = agents;
        });

        HttpResponse<String> response = get("/process/b1?user_id=1");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.body()).as("the agent's own body").contains("\"agent_id\":\"A");
        assertThat(response.headers().firstValue("retry-after")).as("Retry-After: " + agents).hasValue(client);
    }

    /**
     * The package's Javadoc example: every agent down is a JSON error, without Camel's exception or
     * stack trace, and none of the request's headers comes back in the answer.
     */
    @Tag("e2e")
    @org.junit.jupiter.api.Test
    void thePackageExampleAnswersEveryAgentDownWithAJsonErrorAndNoRequestHeader() throws Exception {
        Matcher matcher = EXAMPLE.matcher(Files.readString(
                Path.of("../camel-lb-http/src/main/java/io/github/agentlb/camel/http/package-info.java")));
        assertThat(matcher.find()).as("package-info.java has a <pre>{@code ...}</pre> example").isTrue();
        String route = DocBlocks.onPorts(matcher.group(1).replaceAll("(?m)^ \\* ?", ""), port,
                agents.stream().map(Agent::port).toList());
        agents.forEach(Agent::close);
        camel = new DefaultCamelContext();
        camel.addRoutes(ExampleRoutes.compile(work, "PackageExample", route + "\n"));
        camel.start();

        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v1/chat?user_id=1"))
                .header("Accept", "text/event-stream").header("User-Agent", "trial/1.0").header("user_id", "42")
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.body()).isEqualTo("{\"error\":\"no agent available\"}")
                .doesNotContain("Exception", "\tat ");
        assertThat(response.headers().map().keySet()).as("none of the request's headers echoed")
                .noneMatch(name -> Set.of("accept", "user-agent", "user_id").contains(name.toLowerCase()));
    }

    private void start(String strategy) throws Exception {
        String example = example(strategy);
        String route = onTestPorts(example);
        camel = new DefaultCamelContext();
        camel.addRoutes(ExampleRoutes.compile(work, strategy + "Example", route + "\n"));
        camel.start();
        balancer = balancer();
    }

    /** The first loadBalance among {@code outputs} and their outputs (the example's is inside a doTry). */
    private static java.util.Optional<LoadBalanceDefinition> loadBalanceIn(
            List<? extends org.apache.camel.model.ProcessorDefinition<?>> outputs) {
        for (org.apache.camel.model.ProcessorDefinition<?> output : outputs) {
            if (output instanceof LoadBalanceDefinition found) {
                return java.util.Optional.of(found);
            }
            java.util.Optional<LoadBalanceDefinition> nested = loadBalanceIn(output.getOutputs());
            if (nested.isPresent()) {
                return nested;
            }
        }
        return java.util.Optional.empty();
    }

    /** The balancer instance of the example's route. */
    private AgentLoadBalancerSupport balancer() {
        LoadBalanceDefinition loadBalance = loadBalanceIn(((ModelCamelContext) camel).getRouteDefinitions().get(0)
                .getOutputs()).orElseThrow();
        return (AgentLoadBalancerSupport) ((CustomLoadBalancerDefinition) loadBalance.getLoadBalancerType())
                .getCustomLoadBalancer();
    }

    @org.junit.jupiter.api.Test
    void theReadmeShowsTheRouteThisTestRuns() throws IOException {
        List<String> readme = trimmedLines(DocBlocks.readmeRoute());
        List<String> route = trimmedLines(example("ConsistentHashLB"));
        assertThat(java.util.Collections.indexOfSubList(readme, route)).as("README.md's route class holds ConsistentHashLB's"
                + " example:\n" + String.join("\n", route)).isNotNegative();
    }

    /** The lines of {@code text} without their indentation, blank ones left out. */
    private static List<String> trimmedLines(String text) {
        return text.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }

    /** The class Javadoc's code block, without the leading " * ". */
    static String example(String strategy) throws IOException {
        String source = Files.readString(Path.of("../camel-lb-strategies/src/main/java/io/github/agentlb/camel/" + strategy + ".java"));
        Matcher matcher = EXAMPLE.matcher(source);
        assertThat(matcher.find()).as(strategy + " has a <pre>{@code ...}</pre> example").isTrue();
        return matcher.group(1).replaceAll("(?m)^ \\* ?", "");
    }

    private String onTestPorts(String example) {
        assertThat(example).contains(":8000/", "localhost:8081", "localhost:8082", "localhost:8083");
        String route = example.replace(":8000/", ":" + port + "/");
        for (int i = 0; i < 3; i++) {
            route = route.replace("localhost:808" + (i + 1), "localhost:" + agents.get(i).port());
        }
        return route;
    }

    private static String agentOf(HttpResponse<String> response) {
        return response.body().replaceAll(".*\"agent_id\":\"(A\\d)\".*", "$1");
    }

    private HttpResponse<String> get(String pathAndQuery) throws Exception {
        return client.send(request(pathAndQuery), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + port + pathAndQuery))
                .timeout(Duration.ofSeconds(30)).build();
    }

    /** An HTTP agent that answers its id, the request's raw path and query as JSON, with an X-Agent header. */
    private static final class Agent {
        final LocalHttpServer server;
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();
        /** Set by {@link #holdUntil}: each call counts itself in, then waits for the release. */
        volatile CountDownLatch arrivals;
        volatile CountDownLatch release;
        /** The answer's status; 503 is answered without {@code Retry-After}. */
        volatile int status = 200;
        /** The answer's {@code Retry-After}, none when null. */
        volatile String retryAfter;
        /** Whether a call is closed without an answer. */
        volatile boolean drop;
        final AtomicInteger calls = new AtomicInteger();

        Agent(String id) {
            server = new LocalHttpServer(exchange -> {
                calls.incrementAndGet();
                if (drop) {
                    throw new IOException("the agent closes the connection without an answer");
                }
                peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                try {
                    CountDownLatch gate = release;
                    if (gate != null) {
                        arrivals.countDown();
                        gate.await(30, TimeUnit.SECONDS);
                    }
                    URI uri = exchange.getRequestURI();
                    byte[] body = ("{\"agent_id\":\"" + id + "\",\"path\":\"" + uri.getRawPath()
                            + "\",\"query\":\"" + uri.getRawQuery() + "\"}").getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().add("Content-Type", "application/json");
                    exchange.getResponseHeaders().add("X-Agent", id);
                    if (retryAfter != null) {
                        exchange.getResponseHeaders().add("Retry-After", retryAfter);
                    }
                    exchange.getResponseHeaders().add("X-Agent-Utilization", "0.5"); // a load report: the balancer's
                    exchange.sendResponseHeaders(status, body.length);
                    exchange.getResponseBody().write(body);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    inFlight.decrementAndGet();
                    exchange.close();
                }
            });
        }

        int port() {
            return server.port();
        }

        void holdUntil(CountDownLatch arrivals, CountDownLatch release) {
            this.arrivals = arrivals;
            this.release = release;
        }

        void close() {
            server.close();
        }
    }
}
