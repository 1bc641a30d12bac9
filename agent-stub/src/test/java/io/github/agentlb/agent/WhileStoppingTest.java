package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A request that arrives while the server's consumer is suspended (shutting down) gets a JSON 503. */
@Tag("e2e")
class WhileStoppingTest {

    @Test
    void aSuspendedServerAnswersJson503AndServesAgainWhenResumed() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().agentId("A1").host("127.0.0.1").port(0)
                .delayMs(0, 0).build())) {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpRequest get = HttpRequest.newBuilder(URI.create(agent.baseUrl() + "/process/r1?user_id=1"))
                    .timeout(Duration.ofSeconds(5)).build();
            assertThat(client.send(get, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

            agent.camelContext().getRouteController().suspendRoute("agent-A1");
            HttpResponse<String> refused = client.send(get, HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(refused.headers().firstValue("retry-after")).hasValue("5");
            assertThat(refused.body()).isEqualTo(
                    "{\"error\":\"unavailable\",\"detail\":\"the server is shutting down: send the request elsewhere\"}");

            agent.camelContext().getRouteController().resumeRoute("agent-A1");
            assertThat(client.send(get, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        }
    }
}
