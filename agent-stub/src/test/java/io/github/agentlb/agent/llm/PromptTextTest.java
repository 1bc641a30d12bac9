package io.github.agentlb.agent.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The canonical prompt text the prefix cache cuts into blocks. */
class PromptTextTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String text(String json) throws Exception {
        return PromptText.of(JSON.readTree(json));
    }

    @Test
    void messagesAreRoleAndContentWhateverTheKeyOrderAndSpacing() throws Exception {
        String compact = text("{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                + "{\"role\":\"user\",\"content\":\"Hi\"}],\"model\":\"m\"}");
        String spaced = text("{ \"model\" : \"m\",\n \"messages\" : [ { \"content\" : \"Be brief.\", \"role\" : \"system\" },"
                + " {\"content\":\"Hi\",\"role\":\"user\"} ] }");

        assertThat(compact).isEqualTo("system\nBe brief.\n\nuser\nHi\n\n").isEqualTo(spaced);
    }

    @Test
    void contentPartsAreTheirTextAndAPromptIsItself() throws Exception {
        assertThat(text("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}},{\"type\":\"text\",\"text\":\"b\"}]}]}"))
                .isEqualTo("user\nab\n\n");
        assertThat(text("{\"prompt\":\"Once upon\"}")).isEqualTo("Once upon");
        assertThat(text("{\"prompt\":[\"Once \",\"upon\"]}")).isEqualTo("Once upon");
        assertThat(text("{\"model\":\"m\"}")).isEmpty();
        assertThat(text("[1,2]")).isEmpty();
    }

    @Test
    void theNextTurnOfAConversationStartsWithTheTextOfThePreviousOne() throws Exception {
        String first = text("{\"messages\":[{\"role\":\"user\",\"content\":\"Q1\"}]}");
        String second = text("{\"messages\":[{\"role\":\"user\",\"content\":\"Q1\"},"
                + "{\"role\":\"assistant\",\"content\":\"A1\"},{\"role\":\"user\",\"content\":\"Q2\"}]}");

        assertThat(second).startsWith(first);
    }
}
