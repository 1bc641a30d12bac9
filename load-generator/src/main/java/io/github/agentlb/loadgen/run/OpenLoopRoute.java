package io.github.agentlb.loadgen.run;

import io.github.agentlb.loadgen.stats.PacingCheck;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExtendedStartupListener;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.service.ServiceHelper;

/**
 * The open loop: one sender thread hands each request to the send route when it falls due, and
 * the send route stamps it, sends it with netty-http <em>asynchronously</em> (no thread waits for
 * an answer, so a stalled system cannot hold back the next sends) and records the outcome on
 * Netty's event loop when it comes. Latency counts from the intended send time
 * ({@link RequestSteps}), and the answer is due by the intended time plus the timeout
 * ({@link RequestSteps#DEADLINE_AT}). Requests in flight are bounded only by rate x timeout.
 *
 * <p>Why a thread of its own: the sender sleeps until the next request is due (to within the OS's
 * timer resolution, well under {@link PacingCheck#LATE_THRESHOLD_NANOS}) and calls the send route
 * directly, so a send costs one exchange and the route, nothing else. The timer route it replaces
 * (a Camel timer ticking every millisecond, a split, a wire tap to a thread pool) did that work a
 * thousand times a second whatever the rate, and each send waited for a pool thread: on a
 * 2-core machine shared with the balancer it measures, 10-18% of the sends at 100 and 400 req/s
 * were more than 5 ms late. A late wake-up still sends everything due meanwhile at once, each with
 * its own intended time ({@link OpenLoopDispatcher}).
 */
final class OpenLoopRoute extends RouteBuilder {

    static final String SEND_ROUTE_ID = "open-loop-send";
    private static final String SEND_URI = "direct:open-loop-send";
    /**
     * The longest the sender sleeps at once, so that it sees the context stop: it sleeps until the
     * next send is due, not 1 ms at a time, which woke it 2.5 times per send at 400 req/s (0.55 ms of
     * JVM CPU per request against 0.40 ms waking once).
     */
    private static final long MAX_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

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
    public void configure() throws Exception {
        from(SEND_URI).routeId(SEND_ROUTE_ID)
                .process(steps::prepare)
                .doTry()
                    .to(RequestSteps.endpointUri(baseUrl, timeoutMs))
                    .process(steps::recordAnswer)
                .doCatch(Exception.class)
                    .process(steps::recordFailure)
                .end();
        getContext().addStartupListener(new ExtendedStartupListener() {
            @Override
            public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
            }

            @Override
            public void onCamelContextFullyStarted(CamelContext context, boolean alreadyStarted) throws Exception {
                startSender(context);
            }
        });
    }

    private void startSender(CamelContext context) throws Exception {
        AsyncProducer producer = context.getEndpoint(SEND_URI).createAsyncProducer();
        ServiceHelper.startService(producer);
        Thread sender = new Thread(() -> send(context, producer), "loadgen-open-loop");
        sender.setDaemon(true);
        sender.start();
    }

    /** Until every request is handed out or the context stops: sleep to the next due time, send what is due. */
    private void send(CamelContext context, AsyncProducer producer) {
        while (!context.isStopping() && !context.isStopped()) {
            List<OpenLoopDispatcher.Due> due = dispatcher.due();
            for (OpenLoopDispatcher.Due request : due) {
                Exchange exchange = new DefaultExchange(context);
                exchange.setProperty(RequestSteps.REQUEST, request.request());
                exchange.setProperty(RequestSteps.INTENDED_AT, request.intendedNanos());
                exchange.setProperty(RequestSteps.DEADLINE_AT, request.intendedNanos() + timeoutMs * 1_000_000);
                producer.process(exchange, doneSync -> { });
            }
            long wait = dispatcher.nanosUntilNext();
            if (wait == Long.MAX_VALUE) {
                return;
            }
            if (wait > 0) {
                LockSupport.parkNanos(Math.min(wait, MAX_SLEEP_NANOS));
            }
        }
    }
}
