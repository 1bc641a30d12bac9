package io.github.agentlb.loadgen.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.net.SocketTimeoutException;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.Message;
import org.apache.camel.component.netty.NettyConstants;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.TryDefinition;
import org.apache.camel.support.DefaultMessage;

/**
 * The steps every load route takes around one HTTP request: {@link #prepare} before the send,
 * {@link #recordAnswer} or {@link #recordFailure} after it, each exactly once per request. Latency
 * counts from the request's intended send time ({@link #INTENDED_AT}, the open loop's schedule) when
 * it has one, else from its send. The {@link PacingCheck} gets the open loop's send lags, and a closed
 * loop's gaps and waits per worker exchange (a worker's first send has no gap). Bookkeeping travels
 * in exchange properties, never headers. Thread-safe (per-worker state is in the worker's exchange).
 */
final class RequestSteps {

    /** Exchange properties: the {@link Workload.PlannedRequest}; its send time; the previous answer's time. */
    static final String REQUEST = "loadgen.request", SENT_AT = "loadgen.sentAtNanos",
            ANSWERED_AT = "loadgen.answeredAtNanos";
    /** Exchange properties: the intended send time (open loop); when a closed-loop worker took it (its send). */
    static final String INTENDED_AT = "loadgen.intendedAtNanos", CLAIMED_AT = "loadgen.claimedAtNanos";
    /**
     * Exchange property: when the answer is due at the latest (open loop: intended send plus the
     * timeout), ns of {@link #clock}. The Netty timeout is what is left of it at the send, and a later
     * answer is a timeout, so a success's latency never exceeds the timeout even when sent late.
     */
    static final String DEADLINE_AT = "loadgen.deadlineAtNanos";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final OutcomeRecorder recorder;
    private final IntConsumer onStarted;
    private final LongSupplier clock;
    private final PacingCheck check;

    /** {@code onStarted} told the 1-based count of requests started before each send. */
    RequestSteps(OutcomeRecorder recorder, IntConsumer onStarted, LongSupplier clock, PacingCheck check) {
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.onStarted = Objects.requireNonNull(onStarted, "onStarted");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.check = Objects.requireNonNull(check, "check");
    }

    /**
     * The netty-http endpoint for {@code baseUrl}: asynchronous (the answer completes the exchange on
     * Netty's event loop), no exception on HTTP errors, bounded waits. {@code okStatusCodeRange=999-999}
     * (no answer has it; with {@code throwExceptionOnFailure=false} nothing else reads the range): on
     * an answer in range, {@code NettyHttpProducer.removeCamelHeaders} removes each {@code Camel*}
     * header as a pattern, compiling a regex per header of the message: about 60 {@code Pattern.compile}
     * per answer, the generator's largest cost in a JFR profile at 100 workers (Camel 4.18).
     */
    static String endpointUri(String baseUrl, long timeoutMs) {
        return "netty-http:" + baseUrl + "?synchronous=false&throwExceptionOnFailure=false"
                + "&okStatusCodeRange=999-999&requestTimeout=" + timeoutMs + "&connectTimeout=" + timeoutMs;
    }

    /**
     * Appends these steps to {@code route} around the send {@code send} appends: {@link #prepare}, then
     * in a try the send and {@link #recordAnswer}, on an exception {@link #recordFailure}.
     *
     * @return what ending the try returns, to go on with {@code route}'s enclosing blocks
     */
    ProcessorDefinition<?> around(ProcessorDefinition<?> route, Consumer<TryDefinition> send) {
        TryDefinition attempt = route.process(this::prepare).doTry();
        send.accept(attempt);
        return attempt.process(this::recordAnswer).doCatch(Exception.class).process(this::recordFailure).end();
    }

    /**
     * Sets the request of {@link #REQUEST} on a new message and stamps its send time. A new message:
     * a worker's exchange still holds the previous answer, whose buffer Camel released, and on a
     * timeout camel-netty-http would retain it (an IllegalReferenceCountException per timeout).
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
        Long answered = exchange.getProperty(ANSWERED_AT, Long.class);
        if (intended != null) {
            check.sendLag(now - intended);
        } else if (answered != null) {
            check.workerGap(now - answered);
        }
    }

    /** Records the answer: a success when it is a 2xx agent JSON echoing the request id, else an error. */
    void recordAnswer(Exchange exchange) {
        long now = clock.getAsLong();
        Message message = exchange.getMessage();
        int status = message.getHeader(Exchange.HTTP_RESPONSE_CODE, 0, Integer.class);
        Long deadline = exchange.getProperty(DEADLINE_AT, Long.class);
        boolean late = deadline != null && now > deadline;
        String agent = late || status < 200 || status >= 300 ? null
                : agentOf(message.getBody(String.class), exchange.getProperty(REQUEST, Workload.PlannedRequest.class));
        record(exchange, now, late ? RequestOutcome.Kind.TIMEOUT
                : agent == null ? RequestOutcome.Kind.ERROR : RequestOutcome.Kind.SUCCESS, agent, late ? 0 : status);
    }

    /** Records a failure to get an answer: a timeout or an error without status. */
    void recordFailure(Exchange exchange) {
        record(exchange, clock.getAsLong(), isTimeout(exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class))
                ? RequestOutcome.Kind.TIMEOUT : RequestOutcome.Kind.ERROR, null, 0);
    }

    /** Records the outcome with its latency from the intended time, else the send, never after {@code now}. */
    private void record(Exchange exchange, long now, RequestOutcome.Kind kind, String agent, int status) {
        long sent = exchange.getProperty(SENT_AT, Long.class);
        Long intended = exchange.getProperty(INTENDED_AT, Long.class);
        if (intended == null) {
            check.workerBusy(now - sent);
            exchange.setProperty(ANSWERED_AT, now);
        }
        long from = Math.min(now, intended != null ? intended : sent);
        Workload.PlannedRequest request = exchange.getProperty(REQUEST, Workload.PlannedRequest.class);
        recorder.completed(new RequestOutcome(request.requestId(), request.userId(), kind, agent, status, now - from),
                from);
    }

    /** The {@code agent_id} of a JSON answer echoing {@code request}'s id; {@code null} (an error) for anything else. */
    static String agentOf(String body, Workload.PlannedRequest request) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            JsonNode json = JSON.readTree(body);
            String agent = json.path("agent_id").asText("");
            return agent.isBlank() || !request.requestId().equals(json.path("request_id").asText(null)) ? null : agent;
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
