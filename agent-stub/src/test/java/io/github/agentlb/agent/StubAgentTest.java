package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StubAgentTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ExecutorService clientThreads;
    private static HttpClient client;
    private static StubAgent fast;
    private static StubAgent slow;

    @BeforeAll
    static void startAgents() throws Exception {
        clientThreads = Executors.newFixedThreadPool(4);
        client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .executor(clientThreads)
                .build();
        fast = StubAgent.start(AgentConfig.custom().agentId("A1").port(0).delayMs(0, 0).build());
        slow = StubAgent.start(AgentConfig.custom().agentId("A2").port(0).delayMs(100, 100).build());
    }

    @AfterAll
    static void stopAgents() {
        if (fast != null) {
            fast.close();
        }
        if (slow != null) {
            slow.close();
        }
        clientThreads.shutdownNow();
    }

    private static HttpResponse<String> get(StubAgent agent, String pathAndQuery) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(agent.baseUrl() + pathAndQuery)).GET());
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static double header(HttpResponse<?> response, String name) {
        return Double.parseDouble(response.headers().firstValue(name).orElseThrow());
    }

    /** The status, and a JSON body of exactly {@code error} and {@code detail}. */
    private static void assertErrorAnswer(HttpResponse<String> response, int status, String error, String detail)
            throws Exception {
        assertThat(response.statusCode()).isEqualTo(status);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("error").asText()).isEqualTo(error);
        assertThat(body.get("detail").asText()).isEqualTo(detail);
        assertThat(body.size()).isEqualTo(2);
    }

    @Test
    void startsOnAnEphemeralLoopbackPort() {
        assertThat(fast.port()).isPositive().isNotEqualTo(slow.port());
        assertThat(fast.baseUrl()).isEqualTo("http://127.0.0.1:" + fast.port());
        assertThat(fast.config().port()).isEqualTo(fast.port());
        assertThat(fast.config().agentId()).isEqualTo("A1");
    }

    @Test
    void processAnswersJsonWithEchoedIdsAndLoadHeaders() throws Exception {
        double before = System.currentTimeMillis() / 1000.0;
        long servedBefore = fast.requestsServed();
        HttpResponse<String> response = get(fast, "/process/req-7?user_id=42");
        double after = System.currentTimeMillis() / 1000.0;

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/json"));
        JsonNode body = JSON.readTree(response.body());
        List<String> fields = new ArrayList<>();
        body.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("agent_id", "request_id", "user_id", "timestamp");
        assertThat(body.get("agent_id").asText()).isEqualTo("A1");
        assertThat(body.get("request_id").asText()).isEqualTo("req-7");
        assertThat(body.get("user_id").isTextual()).isTrue();
        assertThat(body.get("user_id").asText()).isEqualTo("42");
        assertThat(body.get("timestamp").isDouble()).isTrue();
        assertThat(body.get("timestamp").asDouble()).isBetween(before - 1, after + 1);

        assertThat(header(response, LoadSnapshot.HEADER_UTILIZATION)).isBetween(0.0, 10.0);
        assertThat(header(response, LoadSnapshot.HEADER_CPU)).isBetween(0.1, 1.0);
        assertThat(header(response, LoadSnapshot.HEADER_MEMORY)).isBetween(0.2, 1.0);
        assertThat(response.headers().firstValue(LoadSnapshot.HEADER_UTILIZATION).orElseThrow())
                .matches("\\d+\\.\\d{4}");
        assertThat(fast.requestsServed()).isGreaterThan(servedBefore);
    }

    @Test
    void absentUserIdIsNullAndRequestHeadersAreNotEchoed() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(fast.baseUrl() + "/process/r1"))
                .header("X-Probe", "secret").GET());
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.has("user_id")).isTrue();
        assertThat(body.get("user_id").isNull()).isTrue();
        assertThat(response.headers().map()).doesNotContainKey("x-probe").doesNotContainKey("X-Probe");
    }

    @Test
    void unknownPathIs404Json() throws Exception {
        HttpResponse<String> response = get(fast, "/nope");
        assertErrorAnswer(response, 404, "not found", "no route for /nope");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    }

    @Test
    void putOnProcessIs405JsonWithLoadHeaders() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(fast.baseUrl() + "/process/r1"))
                .PUT(HttpRequest.BodyPublishers.ofString("{}")));
        assertErrorAnswer(response, 405, "method not allowed", "PUT is not allowed, use GET, POST");
        assertThat(response.headers().firstValue("Allow")).hasValue("GET, POST");
        assertThat(response.body()).doesNotContain("Exception");
        assertThat(header(response, LoadSnapshot.HEADER_CPU)).isBetween(0.0, 1.0);
    }

    @Test
    void healthIsUp() throws Exception {
        HttpResponse<String> response = get(slow, "/health");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("status").asText()).isEqualTo("UP");
        assertThat(body.get("agent_id").asText()).isEqualTo("A2");
    }

    @Test
    void fiftyConcurrentDelayedRequestsAllSucceedOnFewThreads() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int baseline = threads.getThreadCount();
        threads.resetPeakThreadCount();
        long servedBefore = slow.requestsServed();

        List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(slow.baseUrl() + "/process/c" + i + "?user_id=" + i))
                    .timeout(Duration.ofSeconds(20)).GET().build();
            futures.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(25, TimeUnit.SECONDS);

        Iterator<CompletableFuture<HttpResponse<String>>> it = futures.iterator();
        for (int i = 0; i < 50; i++) {
            HttpResponse<String> response = it.next().join();
            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode body = JSON.readTree(response.body());
            assertThat(body.get("request_id").asText()).isEqualTo("c" + i);
            assertThat(body.get("user_id").asText()).isEqualTo(String.valueOf(i));
            assertThat(body.get("agent_id").asText()).isEqualTo("A2");
        }
        assertThat(slow.requestsServed() - servedBefore).isEqualTo(50);
        assertThat(threads.getPeakThreadCount() - baseline)
                .as("no thread per waiting request")
                .isLessThan(25);
    }

    @Test
    void closeReleasesThePort() throws Exception {
        StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A3").port(0).delayMs(0, 0).build());
        int port = agent.port();
        assertThat(get(agent, "/health").statusCode()).isEqualTo(200);
        agent.close();
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(socket.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void answerWithAnswersProcessWithTheStatusAndRetryAfterUntilAnswerNormally() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A4").port(0).delayMs(0, 0).build())) {
            agent.answerWith(429, "2");
            HttpResponse<String> busy = get(agent, "/process/r1?user_id=7");
            assertErrorAnswer(busy, 429, "too many requests", "agent A4 answers 429 on purpose (answerWith)");
            assertThat(busy.headers().firstValue("Retry-After")).hasValue("2");
            assertThat(busy.headers().firstValue("Content-Type")).hasValue("application/json");
            HttpResponse<String> post = send(HttpRequest.newBuilder(URI.create(agent.baseUrl() + "/process/r2"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")));
            assertThat(post.statusCode()).isEqualTo(429);
            assertThat(get(agent, "/health").statusCode()).as("health is not /process").isEqualTo(200);
            assertThat(agent.requestsServed()).isZero();

            agent.answerWith(500, null);
            HttpResponse<String> broken = get(agent, "/process/r3");
            assertThat(broken.statusCode()).isEqualTo(500);
            assertThat(broken.headers().firstValue("Retry-After")).isEmpty();
            assertThat(JSON.readTree(broken.body()).get("error").asText()).isEqualTo("internal server error");

            agent.answerNormally();
            agent.answerNormally();
            HttpResponse<String> normal = get(agent, "/process/r4");
            assertThat(normal.statusCode()).isEqualTo(200);
            assertThat(normal.headers().firstValue("Retry-After")).isEmpty();
            assertThat(JSON.readTree(normal.body()).get("request_id").asText()).isEqualTo("r4");
            assertThat(agent.requestsServed()).isEqualTo(1);
        }
    }

    @Test
    void aRequestInServiceWhenAnswerWithIsSetIsAnsweredNormally() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A5").port(0).delayMs(300, 300).build())) {
            CompletableFuture<HttpResponse<String>> inService = client.sendAsync(HttpRequest.newBuilder(
                    URI.create(agent.baseUrl() + "/process/r1")).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (agent.load().inService() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(agent.load().inService()).as("the request is in service").isEqualTo(1);
            agent.answerWith(503, "1");
            assertThat(inService.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(get(agent, "/process/r2").statusCode()).isEqualTo(503);
        }
    }

    @Test
    void answerWithRejectsAStatusOutOfRangeAndABadRetryAfter() {
        assertThatThrownBy(() -> fast.answerWith(200, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("status must be from 400 to 599, was 200");
        assertThatThrownBy(() -> fast.answerWith(600, "1")).hasMessageContaining("was 600");
        assertThatThrownBy(() -> fast.answerWith(429, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retryAfter");
        assertThatThrownBy(() -> fast.answerWith(429, "2\r\nX-Evil: 1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retryAfter");
    }
}
