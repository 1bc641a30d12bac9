package io.github.agentlb.loadgen;

import java.util.Objects;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The steps every load route takes around one HTTP request: {@link #prepare} before the send,
 * {@link #recordAnswer} or {@link #recordFailure} after it, each exactly once per request.
 *
 * <p>Latency is measured from the request's <em>intended</em> send time when the exchange carries
 * one ({@link #INTENDED_AT}, the open loop's schedule), else from its actual send time. So an open
 * loop records every request's wait, including the time it could not be sent because the system
 * (or the generator) stalled: coordinated-omission-free by construction, with no correction
 * applied afterwards. The actual send's lag behind the intended time goes to the
 * {@link PacingCheck}; in a closed loop the check gets each worker's gap between an answer and its
 * next send (per exchange in a worker loop, else per thread) and its time waiting for answers.
 *
 * <p>Bookkeeping travels in exchange properties, never in headers. Thread-safe (the per-worker
 * state is thread-confined).
 */
final class RequestSteps {

    /** Exchange property: the {@link Workload.PlannedRequest} to send. */
    static final String REQUEST = "loadgen.request";
    /** Exchange property: the actual send time, ns of {@link #clock}. */
    static final String SENT_AT = "loadgen.sentAtNanos";
    /** Exchange property: when this exchange's previous request was answered (a worker loop's exchange), ns. */
    static final String ANSWERED_AT = "loadgen.answeredAtNanos";
    /** Exchange property: the intended send time (open loop), ns of {@link #clock}. */
    static final String INTENDED_AT = "loadgen.intendedAtNanos";

    private final OutcomeRecorder recorder;
    private final IntConsumer onStarted;
    private final LongSupplier clock;
    private final PacingCheck check;
    private final ThreadLocal<long[]> lastAnswerOfWorker = ThreadLocal.withInitial(() -> new long[] {Long.MIN_VALUE});

    /**
     * @param onStarted told the 1-based count of requests started, just before each is sent
     * @param clock     nanoTime, injected for tests
     * @param check     the pacing self-check fed by these steps; {@code null} for none
     */
    RequestSteps(OutcomeRecorder recorder, IntConsumer onStarted, LongSupplier clock, PacingCheck check) {
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.onStarted = Objects.requireNonNull(onStarted, "onStarted");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.check = check;
    }

    /** Sets method, path and query of the request in {@link #REQUEST}, and stamps its send time. */
    void prepare(Exchange exchange) {
        Workload.PlannedRequest request = exchange.getProperty(REQUEST, Workload.PlannedRequest.class);
        Message message = exchange.getMessage();
        message.setBody(null);
        message.setHeader(Exchange.HTTP_METHOD, "GET");
        message.setHeader(Exchange.HTTP_PATH, "/process/" + request.requestId());
        message.setHeader(Exchange.HTTP_QUERY, "user_id=" + request.userId());
        onStarted.accept(recorder.started());
        long now = clock.getAsLong();
        exchange.setProperty(SENT_AT, now);
        Long intended = exchange.getProperty(INTENDED_AT, Long.class);
        if (check != null) {
            Long answered = exchange.getProperty(ANSWERED_AT, Long.class);
            long lastAnswer = answered != null ? answered : lastAnswerOfWorker.get()[0];
            if (intended != null) {
                check.sendLag(now - intended);
            } else if (lastAnswer != Long.MIN_VALUE) {
                check.workerGap(now - lastAnswer);
            }
        }
    }

    /** Records the answer: a success when it is a 2xx agent JSON echoing the request id, else an error. */
    void recordAnswer(Exchange exchange) {
        long now = clock.getAsLong();
        long from = measuredFrom(exchange, now);
        Workload.PlannedRequest request = exchange.getProperty(REQUEST, Workload.PlannedRequest.class);
        Message message = exchange.getMessage();
        int status = message.getHeader(Exchange.HTTP_RESPONSE_CODE, 0, Integer.class);
        String agent = status >= 200 && status < 300 ? LoadRoute.agentOf(message.getBody(String.class), request) : null;
        recorder.completed(agent == null
                ? RequestOutcome.error(request.requestId(), request.userId(), status, now - from)
                : RequestOutcome.success(request.requestId(), request.userId(), agent, status, now - from), from);
    }

    /** Records a failure to get an answer: a timeout or an error without status. */
    void recordFailure(Exchange exchange) {
        long now = clock.getAsLong();
        long from = measuredFrom(exchange, now);
        Workload.PlannedRequest request = exchange.getProperty(REQUEST, Workload.PlannedRequest.class);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        recorder.completed(LoadRoute.isTimeout(failure)
                ? RequestOutcome.timeout(request.requestId(), request.userId(), now - from)
                : RequestOutcome.error(request.requestId(), request.userId(), 0, now - from), from);
    }

    /** The time latency counts from (intended, else actual send), never after {@code now}; feeds the closed-loop check. */
    private long measuredFrom(Exchange exchange, long now) {
        long sent = exchange.getProperty(SENT_AT, Long.class);
        Long intended = exchange.getProperty(INTENDED_AT, Long.class);
        if (intended == null && check != null) {
            check.workerBusy(now - sent);
            lastAnswerOfWorker.get()[0] = now;
            exchange.setProperty(ANSWERED_AT, now);
        }
        return Math.min(now, intended != null ? intended : sent);
    }
}
