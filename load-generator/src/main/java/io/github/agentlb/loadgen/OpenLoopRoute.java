package io.github.agentlb.loadgen;

import java.util.Objects;
import org.apache.camel.builder.RouteBuilder;

/**
 * The open loop's Camel routes: a timer ticks every millisecond at a fixed rate, each tick takes
 * the {@link OpenLoopDispatcher}'s due requests and wire-taps each one to the send route, which
 * stamps it, sends it with netty-http <em>asynchronously</em> (no thread waits for an answer, so
 * a stalled system cannot hold back the next sends) and records the outcome on Netty's event loop
 * when it comes. Latency counts from the intended send time ({@link RequestSteps}). Requests in
 * flight are bounded only by rate x timeout.
 *
 * <p>Why a 1 ms tick and not a timer period of 1/rate: Camel's timer takes whole milliseconds and
 * fires one exchange per period, so 1/rate would cap the rate at 1000/s and drift by rounding;
 * ticking and sending everything due keeps any rate exact on average, with at most one tick of
 * lag from the tick itself (below {@link PacingCheck#LATE_THRESHOLD_NANOS}).
 */
final class OpenLoopRoute extends RouteBuilder {

    static final String ROUTE_ID = "open-loop";
    static final String SEND_ROUTE_ID = "open-loop-send";
    private static final String SEND_URI = "direct:open-loop-send";

    private final OpenLoopDispatcher dispatcher;
    private final String baseUrl;
    private final long timeoutMs;
    private final RequestSteps steps;

    OpenLoopRoute(OpenLoopDispatcher dispatcher, String baseUrl, long timeoutMs, RequestSteps steps) {
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
        this.timeoutMs = timeoutMs;
        this.steps = Objects.requireNonNull(steps, "steps");
    }

    @Override
    public void configure() {
        from("timer:open-loop?fixedRate=true&period=1&delay=0&includeMetadata=false").routeId(ROUTE_ID)
                .process(e -> e.getMessage().setBody(dispatcher.due()))
                .split(body())
                    .process(e -> {
                        OpenLoopDispatcher.Due due = e.getMessage().getBody(OpenLoopDispatcher.Due.class);
                        e.setProperty(RequestSteps.REQUEST, due.request());
                        e.setProperty(RequestSteps.INTENDED_AT, due.intendedNanos());
                    })
                    .wireTap(SEND_URI)
                .end();
        from(SEND_URI).routeId(SEND_ROUTE_ID)
                .process(steps::prepare)
                .doTry()
                    .to(RequestSteps.endpointUri(baseUrl, timeoutMs))
                    .process(steps::recordAnswer)
                .doCatch(Exception.class)
                    .process(steps::recordFailure)
                .end();
    }
}
