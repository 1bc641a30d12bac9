package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.AvailablePortFinder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(60)
class LoadRunnerTest {

    /**
     * A scripted server: user 3 gets 503, user 4 an answer that is not JSON, user 5 an answer
     * after 1 s (past the 300 ms timeout), user 6 JSON echoing a wrong request id; the others a
     * proper answer from agent {@code S<user % 2 + 1>}. It records what it was asked.
     */
    private static final class ScriptedServer extends RouteBuilder {
        final int port = AvailablePortFinder.getNextAvailable();
        final Map<String, String> userOfRequest = new ConcurrentHashMap<>();
        final Set<String> headerNames = ConcurrentHashMap.newKeySet();

        String baseUrl() {
            return "http://127.0.0.1:" + port;
        }

        @Override
        public void configure() {
            from("netty-http:" + baseUrl() + "/process?matchOnUriPrefix=true")
                    .process(e -> {
                        String path = e.getMessage().getHeader(Exchange.HTTP_URI, String.class);
                        String requestId = path.substring(path.lastIndexOf('/') + 1);
                        String user = e.getMessage().getHeader("user_id", String.class);
                        userOfRequest.put(requestId, user);
                        headerNames.addAll(e.getMessage().getHeaders().keySet());
                        String answered = "6".equals(user) ? "x" + requestId : requestId;
                        e.getMessage().setBody("{\"agent_id\":\"S" + (Integer.parseInt(user) % 2 + 1)
                                + "\",\"request_id\":\"" + answered + "\",\"user_id\":" + user + "}");
                    })
                    .choice()
                        .when(header("user_id").isEqualTo("3"))
                            .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503)).setBody(constant("busy"))
                        .when(header("user_id").isEqualTo("4"))
                            .setBody(constant("not json"))
                        .when(header("user_id").isEqualTo("5"))
                            .delay(1_000).asyncDelayed()
                    .end();
        }
    }

    @Test
    void everyRequestGetsExactlyOneOutcomeOfTheRightKind() throws Exception {
        ScriptedServer server = new ScriptedServer();
        try (CamelContext serverContext = CamelContexts.started(server)) {
            LoadTestConfig config = new LoadTestConfig(70, 7, 4, 42, 300, 500, 100, 0);

            LoadRunner.Result result = run(config, server.baseUrl(), "test");

            List<RequestOutcome> outcomes = result.outcomes();
            assertThat(outcomes).hasSize(70);
            assertThat(outcomes).extracting(RequestOutcome::requestId).doesNotHaveDuplicates();
            Map<Integer, Set<RequestOutcome.Kind>> kindsByUser = outcomes.stream().collect(Collectors.groupingBy(
                    RequestOutcome::userId, Collectors.mapping(RequestOutcome::kind, Collectors.toSet())));
            assertThat(kindsByUser.get(1)).containsExactly(RequestOutcome.Kind.SUCCESS);
            assertThat(kindsByUser.get(2)).containsExactly(RequestOutcome.Kind.SUCCESS);
            assertThat(kindsByUser.get(3)).containsExactly(RequestOutcome.Kind.ERROR);
            assertThat(kindsByUser.get(4)).containsExactly(RequestOutcome.Kind.ERROR);
            assertThat(kindsByUser.get(5)).containsExactly(RequestOutcome.Kind.TIMEOUT);
            assertThat(kindsByUser.get(6)).containsExactly(RequestOutcome.Kind.ERROR);
            assertThat(kindsByUser.get(7)).containsExactly(RequestOutcome.Kind.SUCCESS);

            RunStatistics stats = RunStatistics.of(outcomes, List.of(), result.statistics().durationNanos());
            assertThat(stats.successes()).isEqualTo(30);
            assertThat(stats.errors()).isEqualTo(30);
            assertThat(stats.timeouts()).isEqualTo(10);
            assertThat(stats.errorStatuses()).containsExactly(Map.entry(200, 20L), Map.entry(503, 10L));
            // users 1 and 7 go to S2, user 2 to S1
            assertThat(stats.agents().get("S1").count()).isEqualTo(10);
            assertThat(stats.agents().get("S2").count()).isEqualTo(20);
            assertThat(stats.stickiness()).isEqualTo(1.0);
            assertThat(result.maxInFlight()).isBetween(1, 4);

            // the server saw exactly the workload, and none of our bookkeeping
            Map<String, String> planned = config.workload().requests().stream().collect(Collectors.toMap(
                    Workload.PlannedRequest::requestId, r -> String.valueOf(r.userId())));
            assertThat(server.userOfRequest).isEqualTo(planned);
            assertThat(server.headerNames).noneMatch(h -> h.startsWith("loadgen"));
        }
    }

    @Test
    void refusedConnectionsAreErrorsWithoutStatus() throws Exception {
        int closedPort = AvailablePortFinder.getNextAvailable();
        LoadTestConfig config = new LoadTestConfig(6, 2, 2, 42, 1_000, 500, 100, 0);

        LoadRunner.Result result = run(config, "http://127.0.0.1:" + closedPort, "test");

        assertThat(result.outcomes()).hasSize(6).allMatch(o -> o.kind() == RequestOutcome.Kind.ERROR && o.status() == 0);
    }

    /**
     * An https URL at a server that speaks plain HTTP: every TLS handshake fails. Each request is one
     * error and the run ends when they are recorded (it waited out its whole bound, then threw, with
     * no report, when a failure came back to a worker after its request was recorded).
     */
    @Test
    void aTlsUrlAtAPlainHttpServerEndsWithEveryRequestAnError() throws Exception {
        // As Python's http.server answers a TLS hello: an HTML 400, then the connection closed.
        try (java.net.ServerSocket plain = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> {
                while (!plain.isClosed()) {
                    try (java.net.Socket s = plain.accept()) {
                        s.getInputStream().read(new byte[4096]);
                        s.getOutputStream().write(("HTTP/1.0 400 Bad request\r\nContent-Type: text/html\r\n\r\n"
                                + "<!DOCTYPE HTML>\n<html lang=\"en\"><head><title>Error</title></head></html>\n")
                                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    } catch (java.io.IOException closed) {
                        // the next connection, or the socket closed at the end of the test
                    }
                }
            });
            answering.setDaemon(true);
            answering.start();
            LoadTestConfig config = new LoadTestConfig(20, 2, 10, 42, 20_000, 500, 100, 0);
            long start = System.nanoTime();

            LoadRunner.Result result = run(config, "https://127.0.0.1:" + plain.getLocalPort(), "tls");

            assertThat(result.outcomes()).hasSize(20).allMatch(o -> o.kind() == RequestOutcome.Kind.ERROR);
            assertThat((System.nanoTime() - start) / 1_000_000).as("ms, against a bound of 20 requests x 20 s")
                    .isLessThan(15_000);
        }
    }

    @Test
    void oneStubAgentAnswersEveryRequestAndKeepsEveryUser() throws Exception {
        AgentConfig agentConfig = AgentConfig.custom().agentId("A1").port(0).delayMs(0, 2).seed(7).build();
        try (StubAgent agent = StubAgent.start(agentConfig)) {
            LoadTestConfig config = new LoadTestConfig(100, 10, 5, 42, 5_000, 50, 100, 0);

            LoadRunner.Result result = run(config, agent.baseUrl(), "a1");

            RunStatistics stats = RunStatistics.of(result.outcomes(), List.of("A1"), result.statistics().durationNanos());
            assertThat(stats.successes()).isEqualTo(100);
            assertThat(stats.errors() + stats.timeouts()).isZero();
            assertThat(stats.agents().get("A1").count()).isEqualTo(100);
            assertThat(stats.stickiness()).isEqualTo(1.0);
            assertThat(agent.requestsServed()).isEqualTo(100);
            assertThat(result.maxInFlight()).isBetween(1, 5);
        }
    }

    @Test
    void requestsAlternateAcrossReplicasByTheirSendPosition() throws Exception {
        AgentConfig.Builder agent = AgentConfig.custom().port(0).delayMs(0, 3).seed(7);
        try (StubAgent first = StubAgent.start(agent.agentId("R1").build());
             StubAgent second = StubAgent.start(agent.agentId("R2").build())) {
            LoadTestConfig config = new LoadTestConfig(60, 6, 4, 42, 5_000, 60, 100, 0);

            LoadRunner.Result result = new LoadRunner(config, Pacing.CLOSED_COUNTED, null).run(
                    List.of(first.baseUrl(), second.baseUrl()), "replicas", List.of(), started -> { }, false);

            List<Workload.PlannedRequest> planned = config.workload().requests();
            Map<String, String> expected = new java.util.HashMap<>();
            for (int i = 0; i < planned.size(); i++) {
                expected.put(planned.get(i).requestId(), i % 2 == 0 ? "R1" : "R2");
            }
            assertThat(result.outcomes()).hasSize(60).allMatch(RequestOutcome::isSuccess);
            assertThat(result.outcomes()).allSatisfy(o -> assertThat(o.agentId()).isEqualTo(expected.get(o.requestId())));
            assertThat(first.requestsServed()).isEqualTo(30);
            assertThat(second.requestsServed()).isEqualTo(30);
        }
    }

    /** The closed count-bound run of {@code config} against {@code baseUrl}, no progress lines. */
    private static LoadRunner.Result run(LoadTestConfig config, String baseUrl, String label) throws Exception {
        return new LoadRunner(config, Pacing.CLOSED_COUNTED, null).run(List.of(baseUrl), label, List.of(),
                started -> { }, false);
    }
}
