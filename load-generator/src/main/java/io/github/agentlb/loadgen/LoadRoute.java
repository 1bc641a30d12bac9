package io.github.agentlb.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.SocketTimeoutException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;

/**
 * The Camel route that produces the load: a timer fires once, the workload is split over a pool
 * of {@code concurrency} worker threads, and each worker sends
 * {@code GET {url}/process/{req_id}?user_id={user}} with netty-http and records the outcome.
 *
 * <p>The HTTP producer runs synchronously, so a worker holds its request until the answer comes
 * and at most {@code concurrency} requests are in flight, as with that many real clients. HTTP
 * errors do not throw ({@code throwExceptionOnFailure=false}); connection failures and timeouts
 * are caught in the route and recorded, so every request yields exactly one
 * {@link RequestOutcome}. Bookkeeping travels in exchange properties, never in headers, so nothing
 * of ours reaches the balancer except the path and the query.
 */
final class LoadRoute extends RouteBuilder {

    static final String ROUTE_ID = "load";
    private static final String REQUEST = "loadgen.request";
    private static final String SENT_AT = "loadgen.sentAtNanos";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Workload workload;
    private final String baseUrl;
    private final LoadTestConfig config;
    private final OutcomeRecorder recorder;
    private final CompletableFuture<Long> durationNanos;
    private final IntConsumer onStarted;

    /**
     * @param durationNanos completed with the run's wall time, ns, when every request has an outcome
     * @param onStarted     told the 1-based count of requests started, on the worker thread just
     *                      before each request is sent; must be quick and must not block
     */
    LoadRoute(Workload workload, String baseUrl, LoadTestConfig config, OutcomeRecorder recorder,
              CompletableFuture<Long> durationNanos, IntConsumer onStarted) {
        this.workload = Objects.requireNonNull(workload, "workload");
        this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
        this.config = Objects.requireNonNull(config, "config");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.durationNanos = Objects.requireNonNull(durationNanos, "durationNanos");
        this.onStarted = Objects.requireNonNull(onStarted, "onStarted");
    }

    /** The netty-http endpoint for {@code baseUrl}: synchronous, no exception on HTTP errors, bounded waits. */
    static String endpointUri(String baseUrl, long timeoutMs) {
        return "netty-http:" + baseUrl + "?synchronous=true&throwExceptionOnFailure=false"
                + "&requestTimeout=" + timeoutMs + "&connectTimeout=" + timeoutMs;
    }

    @Override
    public void configure() {
        ExecutorService workers = getContext().getExecutorServiceManager()
                .newFixedThreadPool(this, "loadgen-worker", config.concurrency());
        from("timer:load?repeatCount=1&delay=0&includeMetadata=false").routeId(ROUTE_ID)
                .process(e -> {
                    e.setProperty(SENT_AT, System.nanoTime());
                    e.getMessage().setBody(workload.requests());
                })
                .split(body()).parallelProcessing().executorService(workers)
                    .process(this::prepare)
                    .doTry()
                        .to(endpointUri(baseUrl, config.timeoutMs()))
                        .process(this::recordAnswer)
                    .doCatch(Exception.class)
                        .process(this::recordFailure)
                    .end()
                .end()
                .process(e -> durationNanos.complete(System.nanoTime() - e.getProperty(SENT_AT, Long.class)));
    }

    private void prepare(Exchange exchange) {
        Workload.PlannedRequest request = exchange.getMessage().getBody(Workload.PlannedRequest.class);
        exchange.setProperty(REQUEST, request);
        Message message = exchange.getMessage();
        message.setBody(null);
        message.setHeader(Exchange.HTTP_METHOD, "GET");
        message.setHeader(Exchange.HTTP_PATH, "/process/" + request.requestId());
        message.setHeader(Exchange.HTTP_QUERY, "user_id=" + request.userId());
        onStarted.accept(recorder.started());
        exchange.setProperty(SENT_AT, System.nanoTime());
    }

    private void recordAnswer(Exchange exchange) {
        long latency = elapsed(exchange);
        Workload.PlannedRequest request = exchange.getProperty(REQUEST, Workload.PlannedRequest.class);
        Message message = exchange.getMessage();
        int status = message.getHeader(Exchange.HTTP_RESPONSE_CODE, 0, Integer.class);
        String agent = status >= 200 && status < 300 ? agentOf(message.getBody(String.class), request) : null;
        recorder.completed(agent == null
                ? RequestOutcome.error(request.requestId(), request.userId(), status, latency)
                : RequestOutcome.success(request.requestId(), request.userId(), agent, status, latency),
                exchange.getProperty(SENT_AT, Long.class));
    }

    private void recordFailure(Exchange exchange) {
        long latency = elapsed(exchange);
        Workload.PlannedRequest request = exchange.getProperty(REQUEST, Workload.PlannedRequest.class);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        recorder.completed(isTimeout(failure)
                ? RequestOutcome.timeout(request.requestId(), request.userId(), latency)
                : RequestOutcome.error(request.requestId(), request.userId(), 0, latency),
                exchange.getProperty(SENT_AT, Long.class));
    }

    /**
     * The {@code agent_id} of an answer that is JSON echoing {@code request}'s id; {@code null}
     * for anything else, which makes the answer an error.
     */
    static String agentOf(String body, Workload.PlannedRequest request) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            JsonNode json = JSON.readTree(body);
            String agent = json.path("agent_id").asText("");
            boolean echoes = request.requestId().equals(json.path("request_id").asText(null));
            return agent.isBlank() || !echoes ? null : agent;
        } catch (Exception notJson) {
            return null;
        }
    }

    /** Whether {@code failure} means no answer came in time (read, connect or exchange timeout). */
    static boolean isTimeout(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TimeoutException || t instanceof SocketTimeoutException
                    || t instanceof ExchangeTimedOutException
                    || t instanceof io.netty.handler.timeout.TimeoutException
                    || t instanceof io.netty.channel.ConnectTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static long elapsed(Exchange exchange) {
        return Math.max(0, System.nanoTime() - exchange.getProperty(SENT_AT, Long.class));
    }
}
