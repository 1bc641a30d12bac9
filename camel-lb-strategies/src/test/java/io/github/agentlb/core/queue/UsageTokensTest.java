package io.github.agentlb.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class UsageTokensTest {

    @Test
    void theCompletionTokensOfAChatCompletionOrTheOutputTokensOfAResponse() {
        assertThat(UsageTokens.outputTokens("{\"id\":\"c1\",\"choices\":[{\"message\":{\"content\":\"hi\"}}],"
                + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":34,\"total_tokens\":46}}")).hasValue(34);
        assertThat(UsageTokens.outputTokens("{\"usage\":{\"input_tokens\":5,\"output_tokens\":7,"
                + "\"output_tokens_details\":{\"reasoning_tokens\":2}}}")).hasValue(7);
        assertThat(UsageTokens.outputTokens("{\"usage\":{\"completion_tokens_details\":{\"completion_tokens\":9},"
                + "\"completion_tokens\":0}}")).as("nested objects skipped").hasValue(0);
    }

    @Test
    void anythingElseGivesNothing() {
        for (String body : new String[] {null, "", "not json", "[1,2]", "{\"usage\":null}", "{\"usage\":{}}",
                "{\"choices\":[{\"usage\":{\"completion_tokens\":3}}]}", "{\"usage\":{\"completion_tokens\":-1}}",
                "{\"usage\":{\"completion_tokens\":1.5}}", "{\"usage\":{\"completion_tokens\":\"3\"}}",
                "{\"usage\":{\"completion_tokens\":99999999999999999999999}}", "data: {\"usage\":{\"completion_tokens\":3}}"}) {
            assertThat(UsageTokens.outputTokens(body)).as(String.valueOf(body)).isEqualTo(OptionalLong.empty());
        }
        String tooLong = "{\"usage\":{\"completion_tokens\":3},\"pad\":\"" + "x".repeat(UsageTokens.MAX_CHARS) + "\"}";
        assertThat(UsageTokens.outputTokens(tooLong)).isEmpty();
    }
}
