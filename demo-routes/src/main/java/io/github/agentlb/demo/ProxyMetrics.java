package io.github.agentlb.demo;

import io.github.agentlb.agent.http.HeldBodies;
import io.github.agentlb.agent.http.Refusals;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The proxy's meters, names and tags in one place.
 *
 * <p>{@value #REQUESTS}: a timer of proxied requests ({@code GET /process/...}), from the
 * moment the proxy read the request to the moment it had the answer, tagged
 * <ul>
 *   <li>{@value #TAG_STRATEGY}: the balancer's strategy name, e.g. {@code rr};</li>
 *   <li>{@value #TAG_AGENT}: the base URL of the agent that answered, or {@value #NO_AGENT};</li>
 *   <li>{@value #TAG_STATUS}: the HTTP status the client got, e.g. {@code 200}, {@code 503}.</li>
 * </ul>
 * In Prometheus text this is {@code agentlb_proxy_requests_seconds_count} (requests),
 * {@code _sum} (seconds) and {@code _bucket} (latency histogram, 1 ms to 10 s).
 *
 * <p>{@value #BODY_BYTES_HELD} ({@code agentlb_proxy_request_body_held_bytes}): the bytes of request
 * bodies still arriving that all connections hold, and {@value #BODY_WAITING}
 * ({@code agentlb_proxy_request_body_waiting}): the connections not read until some are given back
 * ({@link HeldBodies}).
 *
 * <p>{@value #REFUSED} ({@code agentlb_proxy_refused_total{status}}): the requests the server
 * answered itself before routing (malformed, too large, too slow, ...: {@link Refusals}), one
 * counter per status it can refuse with, there from the start.
 *
 * <p>Each timer is registered once, at its first request, and kept: a request costs a map lookup,
 * not a registration (a meter removed from the registry afterwards is not recreated).
 *
 * <p>Thread-safe.
 */
public final class ProxyMetrics {

    /** Timer of proxied requests. */
    public static final String REQUESTS = "agentlb.proxy.requests";
    /** Tag: strategy name. */
    public static final String TAG_STRATEGY = "strategy";
    /** Tag: base URL of the answering agent. */
    public static final String TAG_AGENT = "agent";
    /** Tag: HTTP status sent to the client. */
    public static final String TAG_STATUS = "status";
    /** Agent tag value when no agent answered (all down, or the balancer had none). */
    public static final String NO_AGENT = "none";

    /** Gauge of the bytes of request bodies still arriving held by all connections. */
    public static final String BODY_BYTES_HELD = "agentlb.proxy.request.body.held";
    /** Gauge of the connections not read until request body bytes are given back. */
    public static final String BODY_WAITING = "agentlb.proxy.request.body.waiting";

    /** Counter of the requests the server answered itself, before routing, by status. */
    public static final String REFUSED = "agentlb.proxy.refused";

    private final MeterRegistry registry;
    private final Map<Key, Timer> timers = new ConcurrentHashMap<>();

    private record Key(String strategy, String agent, int status) {
    }

    /** Meters registered in {@code registry}. */
    public ProxyMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** Registers the gauges of what all connections hold of request bodies. */
    public void bindBodies(HeldBodies bodies) {
        Gauge.builder(BODY_BYTES_HELD, bodies, HeldBodies::bytesHeld).baseUnit("bytes")
                .description("Bytes of request bodies still arriving held by all connections").register(registry);
        Gauge.builder(BODY_WAITING, bodies, HeldBodies::connectionsWaiting)
                .description("Connections not read until bytes of request bodies are given back").register(registry);
    }

    /** Registers the counters of the requests the server answered itself, one per status of {@link Refusals#STATUSES}. */
    public void bindRefusals(Refusals refusals) {
        for (int status : Refusals.STATUSES) {
            FunctionCounter.builder(REFUSED, refusals, r -> r.count(status)).tag(TAG_STATUS, Integer.toString(status))
                    .description("Requests the server answered itself before routing").register(registry);
        }
    }

    /**
     * Records one proxied request.
     *
     * @param elapsedNanos time from request to answer, ns
     */
    public void recordRequest(String strategy, String agent, int status, long elapsedNanos) {
        timers.computeIfAbsent(new Key(strategy, agent == null ? NO_AGENT : agent, status), this::timer)
                .record(elapsedNanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(Key key) {
        return Timer.builder(REQUESTS)
                .description("Requests proxied to agents, by strategy, answering agent and HTTP status")
                .tag(TAG_STRATEGY, key.strategy())
                .tag(TAG_AGENT, key.agent())
                .tag(TAG_STATUS, Integer.toString(key.status()))
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
    }
}
