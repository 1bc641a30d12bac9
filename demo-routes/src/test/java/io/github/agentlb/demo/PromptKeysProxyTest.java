package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.http.ScriptedAgent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ch} keyed by {@code session,prompt,user_id} through the proxy: every turn of a
 * conversation reaches one agent whatever its {@code user_id}, the prompt reaches the agent byte
 * for byte, and conversations that share only a system prompt spread.
 */
@Tag("e2e")
@Timeout(60)
class PromptKeysProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    private static String conversation(int id, int turns) {
        StringBuilder json = new StringBuilder("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"")
                .append("You are a careful assistant. ".repeat(40)).append("\"}");
        for (int t = 1; t <= turns; t++) {
            json.append(",{\"role\":\"user\",\"content\":\"conversation ").append(id).append(" turn ").append(t)
                    .append(" asks something\"}");
            if (t < turns) {
                json.append(",{\"role\":\"assistant\",\"content\":\"answer ").append(t).append("\"}");
            }
        }
        return json.append("]}").toString();
    }

    /** Posts a chat completion as user {@code userId}; returns the answer of status 200 (the agent's number). */
    private String complete(DemoProxy proxy, int userId, String body) throws Exception {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
                        URI.create(proxy.baseUrl() + "/v1/chat/completions?user_id=" + userId))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
        return answer.body();
    }

    @Test
    void everyTurnOfAConversationReachesOneAgentAndConversationsSpread() throws Exception {
        try (NumberedAgents numbered = new NumberedAgents(3)) {
            List<ScriptedAgent> agents = numbered.agents;
            try (DemoProxy proxy = numbered.chProxy("session,prompt,user_id")) {
                Set<String> firstAgents = new HashSet<>();
                for (int c = 0; c < 12; c++) {
                    Set<String> answeredBy = new HashSet<>();
                    for (int turn = 1; turn <= 4; turn++) {
                        String body = conversation(c, turn);
                        answeredBy.add(complete(proxy, c * 10 + turn, body));
                    }
                    assertThat(answeredBy).as("conversation %d", c).hasSize(1);
                    firstAgents.addAll(answeredBy);
                }
                assertThat(firstAgents).containsExactlyInAnyOrder("{\"agent\":0}", "{\"agent\":1}", "{\"agent\":2}");
                ScriptedAgent.Received seen = null;
                for (ScriptedAgent agent : agents) {
                    if (agent.calls() > 0) {
                        seen = agent.next();
                        break;
                    }
                }
                assertThat(seen).isNotNull();
                assertThat(seen.method()).isEqualTo("POST");
                assertThat(new String(seen.body(), StandardCharsets.UTF_8)).startsWith("{\"model\":\"m\",\"messages\":[");
            }
        }
    }

    /**
     * A first user turn longer than the body's held prefix (64 KiB; the rest streams to the agent
     * as it arrives): the key is read from the prefix, so every turn still reaches one agent, and
     * the agent gets the body byte for byte.
     */
    @Test
    void aConversationWhoseFirstTurnOutgrowsTheHeldPrefixStillReachesOneAgent() throws Exception {
        try (NumberedAgents numbered = new NumberedAgents(3)) {
            try (DemoProxy proxy = numbered.chProxy("session,prompt,user_id")) {
                Set<String> firstAgents = new HashSet<>();
                for (int c = 0; c < 6; c++) {
                    String document = "document " + c + ": " + "lorem ipsum dolor sit amet ".repeat(4_000);
                    StringBuilder json = new StringBuilder("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"")
                            .append(document).append("\"}");
                    Set<String> answeredBy = new HashSet<>();
                    for (int turn = 1; turn <= 4; turn++) {
                        String body = json + "]}";
                        assertThat(body.length()).isGreaterThan(io.github.agentlb.agent.http.Http11Component.DEFAULT_HELD_BODY_BYTES);
                        answeredBy.add(complete(proxy, c * 10 + turn, body));
                        json.append(",{\"role\":\"assistant\",\"content\":\"answer ").append(turn)
                                .append("\"},{\"role\":\"user\",\"content\":\"and then ").append(turn).append("?\"}");
                    }
                    assertThat(answeredBy).as("conversation %d", c).hasSize(1);
                    firstAgents.addAll(answeredBy);
                }
                assertThat(firstAgents).as("the conversations spread").hasSizeGreaterThan(1);
                for (ScriptedAgent agent : numbered.agents) {
                    if (agent.calls() > 0) {
                        String got = new String(agent.next().body(), StandardCharsets.UTF_8);
                        assertThat(got).startsWith("{\"model\":\"m\",\"messages\":[").endsWith("]}").hasSizeGreaterThan(100_000);
                        break;
                    }
                }
            }
        }
    }
}
