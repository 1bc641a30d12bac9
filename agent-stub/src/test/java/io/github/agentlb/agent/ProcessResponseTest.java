package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ProcessResponseTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void writesSnakeCaseFieldsInOrderAndAPlainTimestamp() throws Exception {
        assertThat(json.writeValueAsString(new ProcessResponse("A1", "r1", "42", 1732931225.125)))
                .isEqualTo("{\"agent_id\":\"A1\",\"request_id\":\"r1\",\"user_id\":\"42\",\"timestamp\":1732931225.125}");
    }

    @Test
    void writesAbsentUserIdAsNull() throws Exception {
        assertThat(json.writeValueAsString(new ProcessResponse("A1", "r1", null, 1.5)))
                .isEqualTo("{\"agent_id\":\"A1\",\"request_id\":\"r1\",\"user_id\":null,\"timestamp\":1.5}");
    }
}
