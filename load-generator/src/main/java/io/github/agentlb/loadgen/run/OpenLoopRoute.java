package io.github.agentlb.loadgen.run;

import io.github.agentlb.core.Check;
import io.github.agentlb.loadgen.config.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.service.ServiceHelper;

/**
 * The open loop: one sender thread hands each request to the send route when it falls due; the
 * route stamps it, sends it with netty-http <em>asynchronously</em> (a stalled system cannot hold
 * back the next sends) and records the outcome on Netty's event loop. Latency counts from the
 * intended send time, and the answer is due by it plus the timeout ({@link RequestSteps#DEADLINE_AT});
 * requests in flight are bounded only by rate x timeout. The sender sleeps until the next request
 * is due (to within the OS's timer resolution, well under {@link PacingCheck#LATE_THRESHOLD_NANOS})
 * and calls the route directly; a late wake-up sends everything due meanwhile, each with its own
 * intended time ({@link Dispatcher}).
 */
final class OpenLoopRoute extends RouteBuilder {

    static final String SEND_ROUTE_ID = "open-loop-send";
    private static final String SEND_URI = "direct:open-loop-send";
    /** The longest the sender sleeps at once, to see the context stop. */
    private static final long MAX_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Dispatcher dispatcher;
    private final String baseUrl;
    private final long timeoutMs;
    private final RequestSteps steps;

    OpenLoopRoute(Dispatcher dispatcher, String baseUrl, long timeoutMs, RequestSteps steps) {
        this.dispatcher = dispatcher;
        this.baseUrl = baseUrl;
        this.timeoutMs = timeoutMs;
        this.steps = steps;
    }

    @Override
    public void configure() throws Exception {
        steps.around(from(SEND_URI).routeId(SEND_ROUTE_ID), send -> send.to(RequestSteps.endpointUri(baseUrl, timeoutMs)));
    }

    /** Starts the sender thread; call once {@code context}, holding this route, has started. */
    void startSender(CamelContext context) throws Exception {
        AsyncProducer producer = context.getEndpoint(SEND_URI).createAsyncProducer();
        ServiceHelper.startService(producer);
        System.gc(); // an empty young generation at the start: a young collection would stop the sender 10-20 ms
        Parallel.daemon("loadgen-open-loop").newThread(() -> send(context, producer)).start();
    }

    /** Until every request is handed out or the context stops: sleep to the next due time, send what is due. */
    private void send(CamelContext context, AsyncProducer producer) {
        while (!context.isStopping() && !context.isStopped()) {
            for (Dispatcher.Due request : dispatcher.due()) {
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

    /**
     * The constant-rate schedule: request {@code i} is due at {@code start + floor(i x 1e9 / rate)} ns,
     * whatever happened to the requests before it (wrk2's model).
     */
    record Schedule(double ratePerSecond, long startNanos, long total) {
        Schedule {
            Check.finitePositive("ratePerSecond", ratePerSecond);
            Check.atLeast("total", total, 1);
        }

        long intendedNanos(long index) {
            return startNanos + (long) Math.floor(index * (1e9 / ratePerSecond));
        }

        long dueBy(long nowNanos) {
            if (nowNanos < startNanos) {
                return 0;
            }
            long due = Math.min(total, (long) Math.floor((nowNanos - startNanos) / (1e9 / ratePerSecond)) + 1);
            // The division above and intendedNanos's multiplication may round apart by one request.
            while (due > 0 && intendedNanos(due - 1) > nowNanos) {
                due--;
            }
            while (due < total && intendedNanos(due) <= nowNanos) {
                due++;
            }
            return due;
        }
    }

    /**
     * Hands out the due requests not handed out yet, each with its intended time, the schedule
     * starting at the first call, so a late call shows as lag, never as a lower rate. Thread-safe.
     */
    static final class Dispatcher {

        record Due(Workload.PlannedRequest request, long intendedNanos) {
        }

        private final Workload workload;
        private final LongSupplier clock;
        /** The schedule, validated at construction, moved to start at the first call, which hands out request 0. */
        private Schedule schedule;
        private long next;

        Dispatcher(double ratePerSecond, long total, Workload workload, LongSupplier clock) {
            this.schedule = new Schedule(ratePerSecond, 0, total);
            this.workload = Objects.requireNonNull(workload, "workload");
            this.clock = Objects.requireNonNull(clock, "clock");
        }

        synchronized List<Due> due() {
            long now = clock.getAsLong();
            if (next == 0) {
                schedule = new Schedule(schedule.ratePerSecond(), now, schedule.total());
            }
            long dueBy = schedule.dueBy(now);
            List<Due> due = new ArrayList<>((int) Math.max(0, dueBy - next));
            for (; next < dueBy; next++) {
                due.add(new Due(workload.requestAt(next), schedule.intendedNanos(next)));
            }
            return due;
        }

        /** ns until the next request is due (0 before the first call); {@code Long.MAX_VALUE} once all were. */
        synchronized long nanosUntilNext() {
            return next == 0 ? 0 : next >= schedule.total() ? Long.MAX_VALUE
                    : Math.max(0, schedule.intendedNanos(next) - clock.getAsLong());
        }

        /** When request 0 was due, ns; {@code Long.MIN_VALUE} before the first call. */
        synchronized long startNanos() {
            return next > 0 ? schedule.intendedNanos(0) : Long.MIN_VALUE;
        }
    }
}
