package io.github.agentlb.agent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/** Writes JSON replies onto an exchange; the one place that sets status, body and type. */
public final class HttpReplies {

    /** Content type of every reply. */
    public static final String APPLICATION_JSON = "application/json";

    /** Thread-safe once configured; shared by all agents in the JVM. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpReplies() {
    }

    /**
     * Replaces the message with a JSON reply. Headers already set by the caller survive.
     *
     * @throws JsonProcessingException if {@code body} cannot be serialized
     */
    public static void json(Exchange exchange, int status, Object body) throws JsonProcessingException {
        Message m = exchange.getMessage();
        m.setBody(JSON.writeValueAsBytes(body));
        m.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        m.setHeader(Exchange.CONTENT_TYPE, APPLICATION_JSON);
    }

    /** A JSON error reply {@code {"error": message, ...details}}. */
    public static void error(Exchange exchange, int status, String message, Map<String, ?> details)
            throws JsonProcessingException {
        json(exchange, status, errorBody(message, details));
    }

    /** The body of an error reply as UTF-8 JSON, for a reply written without an exchange. */
    static byte[] errorJson(String message, Map<String, ?> details) throws JsonProcessingException {
        return JSON.writeValueAsBytes(errorBody(message, details));
    }

    private static Map<String, Object> errorBody(String message, Map<String, ?> details) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.putAll(details);
        return body;
    }
}
