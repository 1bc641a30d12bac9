package io.github.agentlb.loadgen.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.net.SocketTimeoutException;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.Message;
import org.apache.camel.component.netty.NettyConstants;
import org.apache.camel.support.DefaultMessage;

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

    /** Exchange properties: the {@link Workload.PlannedRequest}; its send time; the previous answer's time. */
    static final String REQUEST = "loadgen.request", SENT_AT = "loadgen.sentAtNanos",
            ANSWERED_AT = "loadgen.answeredAtNanos";
    /** Exchange properties: the intended send time (open loop); when a closed-loop worker took it (its send). */
    static final String INTENDED_AT = "loadgen.intendedAtNanos", CLAIMED_AT = "loadgen.claimedAtNanos";
    /**
     * Exchange property: when the answer is due at the latest (open loop: intended send time plus the
     * request timeout), ns of {@link #clock}. The request's Netty timeout is what is left of it when
     * it is sent, and an answer after it is a timeout, so a success's latency never exceeds the
     * timeout, even when the generator sent the request late.
     */
    static final String DEADLINE_AT = "loadgen.deadlineAtNanos";
    private static final ObjectMapper JSON = new ObjectMapper();

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

    /**
     * The netty-http endpoint these steps surround, for {@code baseUrl}: asynchronous (the answer
     * completes the exchange on Netty's event loop, no thread waits for it), no exception on HTTP
     * errors, bounded waits.
     *
     * <p>{@code okStatusCodeRange=999-999}: the steps classify statuses themselves, and on an answer in
     * Camel's ok range {@code NettyHttpProducer.removeCamelHeaders} removes each {@code Camel*}
     * header with {@code Message.removeHeaders(name)}, which treats the name as a pattern and
     * compiles a regex for every header of the message: about 60 {@code Pattern.compile} per answer,
     * the generator's largest cost in a JFR profile at 100 workers (Camel 4.18). No HTTP answer has
     * status 999, so that step never runs; with {@code throwExceptionOnFailure=false} nothing else
     * depends on the range.
     */
    static String endpointUri(String baseUrl, long timeoutMs) {
        return "netty-http:" + baseUrl + "?synchronous=false&throwExceptionOnFailure=false"
                + "&okStatusCodeRange=999-999&requestTimeout=" + timeoutMs + "&connectTimeout=" + timeoutMs;
    }

    /**
     * Sets method, path and query of the request in {@link #REQUEST} on a new message, and stamps its
     * send time. A new message, not the exchange's: a worker loop's exchange still holds the previous
     * answer, a {@code NettyHttpMessage} whose buffer Camel released, and on a timeout camel-netty-http
     * retains the buffer of the message it finds (an IllegalReferenceCountException logged per timeout).
     */
    void prepare(Exchange exchange) {
        Workload.PlannedRequest request = exchange.getProperty(REQUEST, Workload.PlannedRequest.class);
        Message message = new DefaultMessage(exchange);
        exchange.setIn(message);
        message.setHeader(Exchange.HTTP_METHOD, "GET");
        message.setHeader(Exchange.HTTP_PATH, "/process/" + request.requestId());
        message.setHeader(Exchange.HTTP_QUERY, "user_id=" + request.userId());
        onStarted.accept(recorder.started());
        Long claimed = exchange.getProperty(CLAIMED_AT, Long.class);
        long now = claimed != null ? claimed : clock.getAsLong();
        exchange.setProperty(SENT_AT, now);
        Long deadline = exchange.getProperty(DEADLINE_AT, Long.class);
        if (deadline != null) {
            message.setHeader(NettyConstants.NETTY_REQUEST_TIMEOUT, Math.max(1, (deadline - now) / 1_000_000));
        }
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
        Long deadline = exchange.getProperty(DEADLINE_AT, Long.class);
        if (deadline != null && now > deadline) {
            recorder.completed(RequestOutcome.timeout(request.requestId(), request.userId(), now - from), from);
            return;
        }
        String agent = status >= 200 && status < 300 ? agentOf(message.getBody(String.class), request) : null;
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
        recorder.completed(isTimeout(failure)
                ? RequestOutcome.timeout(request.requestId(), request.userId(), now - from)
                : RequestOutcome.error(request.requestId(), request.userId(), 0, now - from), from);
    }

    /** The time latency counts from (intended, else send), never after {@code now}; feeds the closed-loop check. */
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
