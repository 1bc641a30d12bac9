package io.github.agentlb.camel;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * One active health check request ({@link HealthChecks}): {@code GET uri}, completed with the
 * answer's status, or exceptionally when no status came within {@code timeout} or the connection
 * failed. Must not block the calling thread. Thread-safe.
 */
@FunctionalInterface
public interface HealthProbe {

    /**
     * @param uri     the agent's health address, e.g. {@code http://localhost:8081/health}
     * @param timeout how long the answer's status may take
     * @return the status, or a stage completed exceptionally
     */
    CompletionStage<Integer> status(URI uri, Duration timeout);

    /**
     * Probes with the JDK's {@link HttpClient} (HTTP/1.1, no redirects followed; the body is read
     * and dropped), its completions run on {@code executor}, so no thread is made per agent or probe.
     */
    static HealthProbe jdk(Executor executor, Duration connectTimeout) {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(connectTimeout).executor(executor).build();
        return (uri, timeout) -> client.sendAsync(HttpRequest.newBuilder(uri).timeout(timeout).GET()
                .header("User-Agent", "agentlb-health-check").build(), HttpResponse.BodyHandlers.discarding())
                .thenApply(HttpResponse::statusCode);
    }
}
