package io.github.agentlb.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.model.ChoiceDefinition;
import org.apache.camel.model.TryDefinition;

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
 *
 * <p>Replicas: given several base URLs (balancer replicas over the same agents), request
 * {@code i} of the workload (0-based, its send position) goes to URL {@code i mod n}
 * ({@link #replicaOf}), so the requests alternate across the replicas whatever the workers' timing.
 */
final class LoadRoute extends RouteBuilder {

    static final String ROUTE_ID = "load";
    private static final String STARTED_AT = "loadgen.runStartedAtNanos";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Workload workload;
    private final List<String> baseUrls;
    private final LoadTestConfig config;
    private final RequestSteps steps;
    private final CompletableFuture<Long> durationNanos;

    /**
     * @param durationNanos completed with the run's wall time, ns, when every request has an outcome
     * @param onStarted     told the 1-based count of requests started, on the worker thread just
     *                      before each request is sent; must be quick and must not block
     * @param check         fed each worker's gap between an answer and its next send; {@code null} for none
     */
    LoadRoute(Workload workload, List<String> baseUrls, LoadTestConfig config, OutcomeRecorder recorder,
              CompletableFuture<Long> durationNanos, IntConsumer onStarted, PacingCheck check) {
        this.workload = Objects.requireNonNull(workload, "workload");
        this.baseUrls = List.copyOf(baseUrls);
        if (this.baseUrls.isEmpty()) {
            throw new IllegalArgumentException("baseUrls must not be empty");
        }
        this.config = Objects.requireNonNull(config, "config");
        this.durationNanos = Objects.requireNonNull(durationNanos, "durationNanos");
        this.steps = new RequestSteps(recorder, onStarted, System::nanoTime, check);
    }

    /** The netty-http endpoint for {@code baseUrl}: synchronous, no exception on HTTP errors, bounded waits. */
    static String endpointUri(String baseUrl, long timeoutMs) {
        return endpointUri(baseUrl, timeoutMs, true);
    }

    /**
     * The netty-http endpoint for {@code baseUrl}, synchronous (a worker waits for its answer) or
     * not (the answer completes the exchange on Netty's event loop, no thread held).
     *
     * <p>{@code okStatusCodeRange=999-999}: the route classifies statuses itself, and on an answer in
     * Camel's ok range {@code NettyHttpProducer.removeCamelHeaders} removes each {@code Camel*}
     * header with {@code Message.removeHeaders(name)}, which treats the name as a pattern and
     * compiles a regex for every header of the message: about 60 {@code Pattern.compile} per answer,
     * the generator's largest cost in a JFR profile at 100 workers (Camel 4.18). No HTTP answer has
     * status 999, so that step never runs; with {@code throwExceptionOnFailure=false} nothing else
     * depends on the range.
     */
    static String endpointUri(String baseUrl, long timeoutMs, boolean synchronous) {
        return "netty-http:" + baseUrl + "?synchronous=" + synchronous + "&throwExceptionOnFailure=false"
                + "&okStatusCodeRange=999-999&requestTimeout=" + timeoutMs + "&connectTimeout=" + timeoutMs;
    }

    @Override
    public void configure() {
        ExecutorService workers = getContext().getExecutorServiceManager()
                .newFixedThreadPool(this, "loadgen-worker", config.concurrency());
        TryDefinition attempt = from("timer:load?repeatCount=1&delay=0&includeMetadata=false").routeId(ROUTE_ID)
                .process(e -> {
                    e.setProperty(STARTED_AT, System.nanoTime());
                    e.getMessage().setBody(workload.requests());
                })
                .split(body()).parallelProcessing().executorService(workers)
                    .process(e -> e.setProperty(RequestSteps.REQUEST, e.getMessage().getBody()))
                    .process(steps::prepare)
                    .doTry();
        sendToReplica(attempt);
        attempt.process(steps::recordAnswer)
                    .doCatch(Exception.class)
                        .process(steps::recordFailure)
                    .end()
                .end()
                .process(e -> durationNanos.complete(System.nanoTime() - e.getProperty(STARTED_AT, Long.class)));
    }

    /** The send: to the one base URL, or through a choice on the request's replica ({@link #replicaOf}). */
    private void sendToReplica(TryDefinition attempt) {
        if (baseUrls.size() == 1) {
            attempt.to(endpointUri(baseUrls.get(0), config.timeoutMs()));
            return;
        }
        ChoiceDefinition choice = attempt.choice();
        for (int i = 0; i < baseUrls.size(); i++) {
            int replica = i;
            choice.when(e -> replicaOf(e.getProperty(Exchange.SPLIT_INDEX, Integer.class), baseUrls.size()) == replica)
                    .to(endpointUri(baseUrls.get(i), config.timeoutMs()));
        }
        choice.end();
    }

    /** The replica (0-based) that request {@code index} (0-based send position) goes to: {@code index mod replicas}. */
    static int replicaOf(int index, int replicas) {
        return index % replicas;
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
}
