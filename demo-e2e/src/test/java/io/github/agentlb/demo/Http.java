package io.github.agentlb.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small blocking test client over {@link HttpClient}, with a bounded timeout per request. */
final class Http {

    static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    HttpResponse<String> get(String url, String... headers) {
        return send(HttpRequest.newBuilder(URI.create(url)).GET(), headers);
    }

    HttpResponse<String> send(HttpRequest.Builder request, String... headers) {
        request.timeout(TIMEOUT);
        if (headers.length > 0) {
            request.headers(headers);
        }
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode json(HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + response.body(), e);
        }
    }

    /** The agent_id of an agent's JSON answer. */
    static String agentId(HttpResponse<String> response) {
        return json(response).path("agent_id").asText(null);
    }
}
