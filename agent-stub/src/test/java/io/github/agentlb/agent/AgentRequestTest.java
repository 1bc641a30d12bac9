package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentRequest.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AgentRequestTest {

    @Test
    void processWithUserId() {
        assertThat(AgentRequest.classify("GET", "/process/r-17", "user_id=42&x=1"))
                .isEqualTo(new AgentRequest(Kind.PROCESS, "r-17", "42"));
    }

    @Test
    void processWithoutOrWithEmptyUserId() {
        assertThat(AgentRequest.classify("GET", "/process/r1", null).userId()).isNull();
        assertThat(AgentRequest.classify("GET", "/process/r1", "other=1").userId()).isNull();
        assertThat(AgentRequest.classify("GET", "/process/r1", "user_id=").userId()).isEmpty();
    }

    @Test
    void userIdIsDecodedAndFirstOfRepeatsWins() {
        assertThat(AgentRequest.classify("GET", "/process/r1", "user_id=a%20b").userId()).isEqualTo("a b");
        assertThat(AgentRequest.classify("GET", "/process/r1", "user_id=1&user_id=2").userId()).isEqualTo("1");
        assertThat(AgentRequest.classify("GET", "/process/r1", "user_id=%zz").userId()).isEqualTo("%zz");
        assertThat(AgentRequest.classify("GET", "/process/r1", "x=1&user_id").userId()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // other methods are not allowed; a POST is a chat
            "PUT    | /process/r1          |     | METHOD_NOT_ALLOWED",
            "POST   | /process/r1          |     | CHAT",
            "POST   | /v1/chat/completions |     | CHAT",
            "GET    | /v1/chat/completions |     | METHOD_NOT_ALLOWED",
            "DELETE | /health              |     | METHOD_NOT_ALLOWED",
            // unknown paths are not found
            "GET    | /                    |     | NOT_FOUND",
            "GET    | /process/            |     | NOT_FOUND",
            "GET    | /process             |     | NOT_FOUND",
            "GET    | /process/a/b         |     | NOT_FOUND",
            "POST   | /nope                |     | NOT_FOUND",
            "       |                      |     | NOT_FOUND",
            // health
            "GET    | /health              | x=1 | HEALTH",
    })
    void theKindFollowsTheMethodAndThePath(String method, String path, String query, Kind kind) {
        assertThat(AgentRequest.classify(method, path, query).kind()).isEqualTo(kind);
    }
}
