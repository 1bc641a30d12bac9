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

    /** Bodies of over 64 KiB before their first turn's key is complete, of conversation {@code c}: the messages' start. */
    private static final List<java.util.function.IntFunction<String>> LATE_KEYS = List.of(
            // A first user turn longer than the held prefix.
            c -> "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"document " + c + ": "
                    + "lorem ipsum dolor sit amet ".repeat(4_000) + "\"}",
            // The same with each message's keys sorted (content before role), as serde_json or sort_keys write it.
            c -> "{\"messages\":[{\"content\":\"document " + c + ": " + "lorem ipsum dolor sit amet ".repeat(4_000)
                    + "\",\"role\":\"user\"}",
            // A short question before a large image.
            c -> "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is in"
                    + " image " + c + "?\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,"
                    + "QUJD".repeat(40_000) + "\"}}]}",
            // A long tools list sent before the messages.
            c -> "{\"model\":\"m\",\"tools\":[" + "{\"type\":\"function\",\"function\":{\"name\":\"f\"}},".repeat(2_500)
                    + "{}],\"messages\":[{\"role\":\"user\",\"content\":\"question " + c + "\"}",
            // A system prompt longer than the held prefix.
            c -> "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"" + "Follow the house rules. ".repeat(4_000)
                    + "\"},{\"role\":\"user\",\"content\":\"question " + c + "\"}");

    /**
     * A body whose prompt key is not complete in its first 64 KiB (a long first turn, its keys
     * sorted, a large image after a short question, a long tools list or system prompt first): the
     * demo holds more of it (up to 1 MiB) before routing, so every turn still reaches one agent, and
     * the agent gets the body byte for byte.
     */
    @Test
    void aConversationWhoseKeyIsNotInTheFirst64KiBStillReachesOneAgent() throws Exception {
        try (NumberedAgents numbered = new NumberedAgents(3)) {
            try (DemoProxy proxy = numbered.chProxy("session,prompt,user_id")) {
                Set<String> firstAgents = new HashSet<>();
                Set<String> sent = new HashSet<>();
                for (int c = 0; c < 3 * LATE_KEYS.size(); c++) {
                    StringBuilder json = new StringBuilder(LATE_KEYS.get(c % LATE_KEYS.size()).apply(c));
                    Set<String> answeredBy = new HashSet<>();
                    for (int turn = 1; turn <= 4; turn++) {
                        String body = json + "]}";
                        assertThat(body.length()).isGreaterThan(io.github.agentlb.agent.http.Http11Component.DEFAULT_HELD_BODY_BYTES);
                        answeredBy.add(complete(proxy, c * 10 + turn, body));
                        sent.add(body);
                        json.append(",{\"role\":\"assistant\",\"content\":\"answer ").append(turn)
                                .append("\"},{\"role\":\"user\",\"content\":\"and then ").append(turn).append("?\"}");
                    }
                    assertThat(answeredBy).as("conversation %d of shape %d", c, c % LATE_KEYS.size()).hasSize(1);
                    firstAgents.addAll(answeredBy);
                }
                assertThat(firstAgents).as("the conversations spread").hasSizeGreaterThan(1);
                for (ScriptedAgent agent : numbered.agents) {
                    if (agent.calls() > 0) {
                        assertThat(sent).as("a body the agent got, byte for byte").contains(new String(agent.next().body(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
    }
}
