package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An agent that answers before it has read the request's body, then closes (the stub agent's 413
 * for a body over its own limit, as most HTTP servers do): its answer is the answer, the client gets
 * it, and the agent is not counted as failed. A user sending bodies under the proxy's limit but over
 * the agents' got a 502 and ejected healthy agents.
 */
@Tag("e2e")
@Timeout(60)
class EarlyAnswerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String REFUSAL = "{\"error\":\"body too large\"}";

    @Test
    void anAgentsAnswerBeforeTheBodyWasSentReachesTheClientAndEjectsNoOne() throws Exception {
        String answer = "HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nContent-Length: "
                + REFUSAL.length() + "\r\nConnection: close\r\n\r\n" + REFUSAL;
        byte[] body = new byte[8 * 1024 * 1024];
        Arrays.fill(body, (byte) 'x');
        HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
        try (FaultyAgent a1 = FaultyAgent.replying(answer);
                FaultyAgent a2 = FaultyAgent.replying(answer);
                FaultyAgent a3 = FaultyAgent.replying(answer);
                DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                        .agentUrls(a1.baseUrl(), a2.baseUrl(), a3.baseUrl()).strategy("rr").build())) {
            List<String> seen = new ArrayList<>();
            for (int i = 1; i <= 6; i++) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                                URI.create(proxy.baseUrl() + "/process/big" + i + "?user_id=" + i))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).timeout(TIMEOUT).build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                seen.add(response.statusCode() + " " + response.body());
            }

            assertThat(seen).containsOnly("413 " + REFUSAL);
            assertThat(proxy.balancer().getEjectedAgents()).isEmpty();
        }
    }
}
