package io.github.agentlb.loadgen.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.core.Check;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Sends one streamed chat completion ({@code POST}, {@code "stream": true}) with the JDK's
 * {@link HttpClient} (HTTP/1.1) and reads the Server-Sent Events as they arrive into an
 * {@link Answer}; the answer ends with {@code data: [DONE]}. An answer not complete within the
 * timeout (from the send) is cancelled, closing its connection.
 * Thread-safe: one client serves many threads; {@link #send} blocks until the answer ended.
 */
public final class ChatStreamClient {

    /** The session header sent and read. */
    public static final String SESSION_HEADER = "Mcp-Session-Id";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DATA = "data:";
    private static final String DONE = "[DONE]";

    /**
     * What one request got: HTTP status (0 without an answer head); send to first {@code data:} line
     * (-1 when none) and to the end of the answer or the failure, ns; the agent (from the first chunk's
     * {@code id}, {@link #agentOf}) and the {@value #SESSION_HEADER}, null if none; why it failed (non-2xx,
     * timeout, stream cut, I/O), null on success; the last chunk's {@code usage} (when asked for with
     * {@code "stream_options":{"include_usage":true}}), null if none came.
     */
    public record Answer(int status, long firstTokenNanos, long totalNanos, String agentId, String sessionId,
                         String error, Usage usage) {
        /** Whether the answer came whole: 2xx, every chunk up to {@code [DONE]}. */
        public boolean ok() {
            return error == null;
        }

        public boolean timedOut() {
            return error != null && error.startsWith("timeout");
        }

        /**
         * This answer as the outcome of request {@code requestId}: a success from its agent ({@code ?} if
         * unnamed) with latency {@code successNanos}, else a timeout or an error with the time to the failure.
         */
        public RequestOutcome outcome(String requestId, int userId, long successNanos) {
            if (ok()) {
                return RequestOutcome.success(requestId, userId, agentId == null ? "?" : agentId, status,
                        Math.max(0, successNanos));
            }
            return timedOut() ? RequestOutcome.timeout(requestId, userId, Math.max(0, totalNanos))
                    : RequestOutcome.error(requestId, userId, status, Math.max(0, totalNanos));
        }
    }

    /** OpenAI's {@code usage}: {@code prompt_tokens}, {@code prompt_tokens_details.cached_tokens} (0 when absent). */
    public record Usage(long promptTokens, long cachedTokens) {
    }

    private final HttpClient client;
    private final Duration timeout;
    private final LongSupplier nanoTime;

    /** A client whose requests time out {@code timeout} (> 0) after the send, up to {@code [DONE]}. */
    public ChatStreamClient(Duration timeout) {
        this(timeout, System::nanoTime);
    }

    ChatStreamClient(Duration timeout, LongSupplier nanoTime) {
        this.timeout = Check.positive("timeout", timeout);
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout).build();
    }

    /**
     * Posts {@code jsonBody} to {@code uri} with {@code headers} (besides {@code Content-Type} and
     * {@code Accept}, e.g. {@code X-Tenant}) and reads the streamed answer to its end.
     */
    public Answer send(URI uri, String jsonBody, Map<String, String> headers) throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout)
                .header("Content-Type", "application/json").header("Accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(jsonBody));
        headers.forEach(request::header);
        long start = nanoTime.getAsLong();
        SseLines lines = new SseLines(start);
        CompletableFuture<HttpResponse<Void>> sent = client.sendAsync(request.build(),
                HttpResponse.BodyHandlers.fromLineSubscriber(lines));
        HttpResponse<Void> response;
        try {
            // A line subscriber's body, hence the response, completes only after its onComplete or onError.
            response = sent.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            sent.cancel(true);
            lines.cancel();
            return lines.answer(0, null, timedOut());
        } catch (ExecutionException e) {
            lines.cancel();
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return lines.answer(0, null, cause instanceof HttpTimeoutException ? timedOut()
                    : cause.getClass().getSimpleName() + ": " + cause.getMessage());
        }
        int status = response.statusCode();
        String session = response.headers().firstValue(SESSION_HEADER).orElse(null);
        return lines.answer(status, session, status / 100 != 2 ? "status " + status
                : lines.sawDone ? null : "stream ended before " + DONE);
    }

    private String timedOut() {
        return "timeout after " + timeout.toMillis() + " ms";
    }

    /** Reads the answer's lines as they arrive; callbacks come on the client's threads, one at a time. */
    final class SseLines implements Flow.Subscriber<String> {
        private final long start;
        private volatile Flow.Subscription subscription;
        private volatile long firstTokenNanos = -1;
        private volatile long endNanos = -1;
        private volatile String agentId;
        private volatile Usage usage;
        private volatile boolean sawDone;

        SseLines(long start) {
            this.start = start;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            if (!line.startsWith(DATA)) {
                return;
            }
            String data = line.substring(DATA.length()).trim();
            if (firstTokenNanos < 0) {
                firstTokenNanos = nanoTime.getAsLong() - start;
            }
            if (DONE.equals(data)) {
                sawDone = true;
            } else {
                agentId = agentId == null ? agentOf(data) : agentId;
                Usage u = data.contains("\"usage\"") ? usageOf(data) : null;
                usage = u != null ? u : usage;
            }
        }

        @Override
        public void onError(Throwable t) {
            endNanos = nanoTime.getAsLong() - start;
        }

        @Override
        public void onComplete() {
            endNanos = nanoTime.getAsLong() - start;
        }

        void cancel() {
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
        }

        Answer answer(int status, String sessionId, String error) {
            long end = endNanos >= 0 && error == null ? endNanos : nanoTime.getAsLong() - start;
            return new Answer(status, firstTokenNanos, end, agentId, sessionId, error, usage);
        }
    }

    /** The agent in a chunk's {@code id} as the stub agent writes it ({@code chatcmpl-A1-7}: {@code A1}), else null. */
    static String agentOf(String chunkJson) {
        try {
            String text = JSON.readTree(chunkJson).path("id").asText("");
            int from = text.indexOf('-');
            int to = text.lastIndexOf('-');
            return from >= 0 && to > from ? text.substring(from + 1, to) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The {@code usage} of a chunk; null without a {@code usage} object with {@code prompt_tokens} (others: {@code null}). */
    static Usage usageOf(String chunkJson) {
        try {
            JsonNode usage = JSON.readTree(chunkJson).path("usage");
            if (!usage.isObject() || !usage.path("prompt_tokens").canConvertToLong()) {
                return null;
            }
            return new Usage(usage.path("prompt_tokens").asLong(),
                    usage.path("prompt_tokens_details").path("cached_tokens").asLong(0));
        } catch (IOException e) {
            return null;
        }
    }
}
