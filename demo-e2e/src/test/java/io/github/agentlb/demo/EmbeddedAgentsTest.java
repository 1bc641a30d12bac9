package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(60)
class EmbeddedAgentsTest {

    private final Http http = new Http();

    @Test
    void startsOneAgentPerUrlWhenNothingAnswers() throws Exception {
        List<String> urls = List.of("http://127.0.0.1:" + FreePorts.next(),
                "http://127.0.0.1:" + FreePorts.next());

        Optional<EmbeddedAgents> started = EmbeddedAgents.startIfNoneAnswer(urls, 200);

        assertThat(started).isPresent();
        try (EmbeddedAgents agents = started.get()) {
            assertThat(agents.agents()).extracting(a -> a.config().agentId()).containsExactly("A1", "A2");
            assertThat(Http.agentId(http.get(urls.get(1) + "/process/e1?user_id=1"))).isEqualTo("A2");
        }
        assertThat(EmbeddedAgents.answers(urls.get(0), 200)).isFalse();
    }

    @Test
    void startsNothingWhenOneUrlAnswers() throws Exception {
        try (Agents running = Agents.start(1, 0, 2)) {
            List<String> urls = List.of("http://127.0.0.1:" + FreePorts.next(),
                    running.urls().get(0));

            assertThat(EmbeddedAgents.startIfNoneAnswer(urls, 200)).isEmpty();
            assertThat(EmbeddedAgents.answers(urls.get(0), 200)).isFalse();
        }
    }
}
