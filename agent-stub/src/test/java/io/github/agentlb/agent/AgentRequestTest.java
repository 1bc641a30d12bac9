package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.AgentRequest.Kind;
import org.junit.jupiter.api.Test;

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

    @Test
    void otherMethodsAreNotAllowed() {
        assertThat(AgentRequest.classify("PUT", "/process/r1", null).kind()).isEqualTo(Kind.METHOD_NOT_ALLOWED);
        assertThat(AgentRequest.classify("POST", "/process/r1", null).kind()).isEqualTo(Kind.CHAT);
        assertThat(AgentRequest.classify("POST", "/v1/chat/completions", null).kind()).isEqualTo(Kind.CHAT);
        assertThat(AgentRequest.classify("GET", "/v1/chat/completions", null).kind()).isEqualTo(Kind.METHOD_NOT_ALLOWED);
        assertThat(AgentRequest.classify("DELETE", "/health", null).kind()).isEqualTo(Kind.METHOD_NOT_ALLOWED);
    }

    @Test
    void unknownPathsAreNotFound() {
        assertThat(AgentRequest.classify("GET", "/", null).kind()).isEqualTo(Kind.NOT_FOUND);
        assertThat(AgentRequest.classify("GET", "/process/", null).kind()).isEqualTo(Kind.NOT_FOUND);
        assertThat(AgentRequest.classify("GET", "/process", null).kind()).isEqualTo(Kind.NOT_FOUND);
        assertThat(AgentRequest.classify("GET", "/process/a/b", null).kind()).isEqualTo(Kind.NOT_FOUND);
        assertThat(AgentRequest.classify("POST", "/nope", null).kind()).isEqualTo(Kind.NOT_FOUND);
        assertThat(AgentRequest.classify(null, null, null).kind()).isEqualTo(Kind.NOT_FOUND);
    }

    @Test
    void health() {
        assertThat(AgentRequest.classify("GET", "/health", "x=1").kind()).isEqualTo(Kind.HEALTH);
    }
}
