package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.github.agentlb.testing.FreePorts;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The official OpenAI Java SDK's client through the demo proxy's {@code /v1} to stub agents that
 * answer chat completions as an LLM server does: a streamed completion arrives chunk by chunk, a
 * whole one with its usage, a stream the client closes early frees the agent's slot, and every
 * agent down is an error the SDK reads as a 503. Real sockets on loopback.
 */
@Tag("e2e")
@Timeout(60)
class RealOpenAiSdkProxyTest {

    private static OpenAIClient client(DemoProxy proxy) {
        return OpenAIOkHttpClient.builder().baseUrl(proxy.baseUrl() + "/v1").apiKey("sk-test").maxRetries(0)
                .timeout(Duration.ofSeconds(20)).build();
    }

    private static ChatCompletionCreateParams story(long maxTokens) {
        return ChatCompletionCreateParams.builder().model("stub").addUserMessage("Tell me a story").maxTokens(maxTokens).build();
    }

    @Test
    void streamedAndWholeCompletionsReachTheSdkAndAStreamClosedEarlyFreesTheAgent() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2); DemoProxy proxy = Proxies.start(agents.urls(), "rr")) {
            OpenAIClient client = client(proxy);
            try {
                Set<String> ids = new HashSet<>();
                StringBuilder text = new StringBuilder();
                int chunks = 0;
                try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(story(8))) {
                    Iterator<ChatCompletionChunk> it = stream.stream().iterator();
                    while (it.hasNext()) {
                        ChatCompletionChunk chunk = it.next();
                        chunks++;
                        ids.add(chunk.id());
                        chunk.choices().forEach(choice -> choice.delta().content().ifPresent(text::append));
                    }
                }
                assertThat(chunks).as("one chunk per token, at least").isGreaterThanOrEqualTo(8);
                assertThat(ids).as("one completion").hasSize(1);
                assertThat(text).isNotEmpty();

                ChatCompletion whole = client.chat().completions().create(story(8));
                assertThat(whole.choices().get(0).message().content()).hasValueSatisfying(c -> assertThat(c).isNotEmpty());
                assertThat(whole.usage()).hasValueSatisfying(u -> assertThat(u.completionTokens()).isPositive());

                long cancelledBefore = agents.agents.stream().mapToLong(a -> a.chat().callsCancelled()).sum();
                try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(story(2_000))) {
                    Iterator<ChatCompletionChunk> it = stream.stream().iterator();
                    for (int i = 0; i < 2 && it.hasNext(); i++) {
                        it.next();
                    }
                }
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                        agents.agents.stream().mapToLong(a -> a.chat().callsCancelled()).sum())
                        .as("the agent saw its caller leave").isEqualTo(cancelledBefore + 1));
            } finally {
                client.close();
            }
        }
    }

    @Test
    void everyAgentDownIsA503TheSdkReads() throws Exception {
        List<String> down = List.of("http://127.0.0.1:" + FreePorts.next(),
                "http://127.0.0.1:" + FreePorts.next());
        try (DemoProxy proxy = Proxies.start(down, "rr")) {
            OpenAIClient client = client(proxy);
            try {
                OpenAIServiceException failed = catchThrowableOfType(OpenAIServiceException.class,
                        () -> client.chat().completions().create(story(8)));
                assertThat(failed).isNotNull();
                assertThat(failed.statusCode()).isEqualTo(503);
            } finally {
                client.close();
            }
        }
    }
}
