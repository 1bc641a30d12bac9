package io.github.agentlb.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/** Writes JSON replies onto an exchange; the one place that sets status, body and type. */
final class HttpReplies {

    /** Content type of every reply. */
    static final String APPLICATION_JSON = "application/json";

    /** Thread-safe once configured; shared by all agents in the JVM. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpReplies() {
    }

    /**
     * Replaces the message with a JSON reply. Headers already set by the caller survive.
     *
     * @throws JsonProcessingException if {@code body} cannot be serialized
     */
    static void json(Exchange exchange, int status, Object body) throws JsonProcessingException {
        Message m = exchange.getMessage();
        m.setBody(JSON.writeValueAsBytes(body));
        m.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        m.setHeader(Exchange.CONTENT_TYPE, APPLICATION_JSON);
    }

    /** Sets the three load report headers. */
    static void loadHeaders(Exchange exchange, LoadSnapshot load) {
        Message m = exchange.getMessage();
        m.setHeader(LoadSnapshot.HEADER_UTILIZATION, LoadSnapshot.format(load.utilization()));
        m.setHeader(LoadSnapshot.HEADER_CPU, LoadSnapshot.format(load.cpu()));
        m.setHeader(LoadSnapshot.HEADER_MEMORY, LoadSnapshot.format(load.memory()));
    }

    /** A JSON error reply {@code {"error": message, ...details}}. */
    static void error(Exchange exchange, int status, String message, Map<String, ?> details)
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
