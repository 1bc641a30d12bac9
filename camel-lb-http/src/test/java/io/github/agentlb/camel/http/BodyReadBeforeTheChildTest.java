package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request body read before the {@code agent:} child opens the call (the balancer reading an A2A
 * task id, which may move the reader index of the consumer's buffer) still reaches the agent whole,
 * behind camel-netty-http's own consumer. End to end: real sockets.
 */
@Tag("e2e")
@Timeout(60)
class BodyReadBeforeTheChildTest {

    private static final String SEND_MESSAGE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":"
            + "{\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}}}";
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private CamelContext camel;

    @AfterEach
    void stop() {
        if (camel != null) {
            camel.stop();
        }
    }

    private String route(RoundRobinLB balancer, String agentUrl) throws Exception {
        int port = FreePorts.next();
        camel = new DefaultCamelContext();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true&chunkedMaxContentLength=4194304")
                        .errorHandler(noErrorHandler())
                        .loadBalance(balancer).to("agent:" + agentUrl).end();
            }
        });
        camel.start();
        return "http://127.0.0.1:" + port;
    }

    private HttpResponse<String> post(String base, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + "/a2a")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void withA2aTasksOnEveryBodyReachesTheAgentWhole() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            RoundRobinLB balancer = new RoundRobinLB();
            balancer.setSessionSecret("the replicas' shared secret");
            balancer.setSessionA2aTasks(true);
            String base = route(balancer, agent.baseUrl());

            post(base, SEND_MESSAGE);
            post(base, "{\"a\":1}");

            assertThat(new String(agent.next().body(), StandardCharsets.UTF_8)).isEqualTo(SEND_MESSAGE);
            assertThat(new String(agent.next().body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        }
    }

    /**
     * A {@code SendMessage} over the 1 MiB the balancer reads whole (a file part): its method is
     * read from the body's first bytes, so the answer's task id comes back sealed (its task id, if
     * any, is not read: the strategy picks).
     */
    @Test
    void theAnswerToALargeSendMessageIsSealed() throws Exception {
        String task = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"t-1\",\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}}";
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            byte[] answer = task.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
        })) {
            RoundRobinLB balancer = new RoundRobinLB();
            balancer.setSessionSecret("the replicas' shared secret");
            balancer.setSessionA2aTasks(true);
            String base = route(balancer, agent.baseUrl());
            String large = SEND_MESSAGE.replace("\"hi\"", "\"" + "x".repeat(1_200_000) + "\"");

            HttpResponse<String> answer = post(base, large);

            assertThat(agent.next().body()).hasSize(large.length());
            String id = answer.body().replaceAll(".*\"task\":\\{\"id\":\"([^\"]*)\".*", "$1");
            assertThat(new io.github.agentlb.core.session.SessionIds("the replicas' shared secret"
                    .getBytes(StandardCharsets.UTF_8)).decode(id)).as(answer.body()).isNotNull();
        }
    }
}
