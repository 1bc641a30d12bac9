package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which answers are JSON to rewrite (an A2A answer's task ids sealed): {@code application/json},
 * a {@code +json} type (RFC 6839) and {@code text/json}, which some servers still send, whatever
 * the case and parameters. An A2A answer typed {@code text/json} went unsealed, and its client's
 * next call by that task id got a 400.
 */
class JsonContentTypeTest {

    @ParameterizedTest
    @ValueSource(strings = {"application/json", "Application/JSON", "application/json; charset=utf-8",
        "application/a2a+json", "application/problem+json;charset=UTF-8", "text/json", "Text/Json ; charset=utf-8"})
    void jsonTypes(String type) {
        assertThat(AgentCall.isJson(type)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/plain", "application/jsonx", "text/event-stream", "application/x-ndjson",
        "text/jsonp", "json", ""})
    void otherTypes(String type) {
        assertThat(AgentCall.isJson(type)).isFalse();
    }
}
