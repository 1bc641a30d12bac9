package io.github.agentlb.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.agent.http.LogText;
import io.github.agentlb.camel.AgentFailure;
import io.github.agentlb.camel.AgentLb;
import io.github.agentlb.camel.AgentsBusyException;
import io.github.agentlb.camel.AnswerRules;
import io.github.agentlb.camel.AttemptHooks;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.FailoverPolicy;
import io.github.agentlb.camel.FailureClassifier;
import io.github.agentlb.camel.NoAgentAvailableException;
import io.github.agentlb.camel.QueueTimeoutException;
import io.github.agentlb.camel.SessionRejectedException;
import io.github.agentlb.camel.http.AgentCallCancelledException;
import io.github.agentlb.camel.http.AgentProducer;
import io.github.agentlb.camel.http.AnswerInterruptedException;
import io.github.agentlb.camel.http.Downstream;
import io.github.agentlb.camel.http.NettyDownstream;
import io.github.agentlb.camel.http.RequestBodyTimeoutException;
import io.github.agentlb.camel.http.RequestLoopException;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.netty.NettyConstants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the proxy answers when the balancer did not end with an agent's answer: a held busy
 * answer, every agent busy (429), no agent (503), a bad gateway (502) or a timeout (504), a
 * session it cannot route (400, 404), a client that left (recorded as 499), a failure of the proxy
 * itself (500). Every answer is {@code {"error":...,"detail":...}} JSON with one log line; the
 * exception goes to the log at DEBUG. The warnings of failed requests (502, 503, 504, an answer
 * cut) are bounded: the first of each reason at WARN, its repeats within 10 s at DEBUG, counted by
 * the next ({@link RepeatedWarnings}). Thread-safe.
 *
 * <p>Over 300 lines: one answer per outcome the route catches, each its status, JSON detail,
 * headers and log line, sharing the agents' labels and the warnings' window.
 */
final class ProxyAnswers {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyRoutes.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The header OpenAI's and other generated SDKs read before retrying an error answer. */
    static final String SHOULD_RETRY = "x-should-retry";

    private final ProxyConfig config;
    private final Supplier<String> strategyName;
    private final Function<String, String> agentUrl;
    private final RepeatedWarnings warnings;

    /**
     * @param strategyName the balancer's strategy, for the detail of a 503
     * @param agentUrl     an agent id to its base URL, for agents that have no name
     */
    ProxyAnswers(ProxyConfig config, Supplier<String> strategyName, Function<String, String> agentUrl) {
        this(config, strategyName, agentUrl, System::nanoTime);
    }

    /** @param nanoClock the clock of the repeated warnings' window ({@link RepeatedWarnings}), ns */
    ProxyAnswers(ProxyConfig config, Supplier<String> strategyName, Function<String, String> agentUrl, LongSupplier nanoClock) {
        this.config = config;
        this.strategyName = strategyName;
        this.agentUrl = agentUrl;
        this.warnings = new RepeatedWarnings(nanoClock);
    }

    /**
     * The failover limit that ended an exchange's tries, as the balancer's message names it
     * ({@code maximumFailoverAttempts=1}, {@code failoverDeadline=1000 ms passed}), else null.
     */
    private static String failoverLimit(String message) {
        for (String knob : List.of("(maximumFailoverAttempts=", "(failoverDeadline=")) {
            int at = message.indexOf(knob);
            int end = at < 0 ? -1 : message.indexOf(')', at);
            if (end > at) {
                return message.substring(at + 1, end) + (knob.contains("Deadline") ? " passed" : "");
            }
        }
        return null;
    }

    /**
     * 503 with the agents tried and why each failed ({@link NoAgentAvailableException#failures()}),
     * or, for a request whose session's agent alone could take it and was not tried, that agent and
     * why ({@link NoAgentAvailableException#sessionAgent()}); the exception goes to the log at DEBUG, on one line: a dead agent is an expected condition.
     */
    void noAgent(Exchange exchange) {
        NoAgentAvailableException cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, NoAgentAvailableException.class);
        List<AgentFailure> failures = cause == null ? List.of() : cause.failures();
        String list = failures.stream().map(f -> label(f.agentId()) + " (" + f.reason() + ")")
                .collect(Collectors.joining(", "));
        String message = cause == null || cause.getMessage() == null ? "" : cause.getMessage();
        boolean stopping = message.startsWith("The balancer stopped") || message.startsWith("The balancer is stopping");
        String limit = failoverLimit(message);
        String detail = cause instanceof QueueTimeoutException timedOut
                ? "no agent had room within the queue timeout: waited " + timedOut.waitedMillis() + " ms"
                : stopping ? "the proxy is stopping; retry on another replica"
                : cause != null && cause.sessionAgent() != null ? sessionAgentOut(message, cause.sessionAgent())
                : failures.isEmpty() ? "the " + strategyName.get() + " balancer has no agent to try"
                : failures.size() == 1 ? "the only agent tried failed: " + list
                : (limit == null ? "all " : "the ") + failures.size() + " agents tried failed: " + list;
        if (limit != null) {
            detail += "; no other agent was tried (" + limit + ")";
        } else if (cause != null && cause.getMessage() != null && cause.getMessage().contains("(retry budget spent")) {
            detail += "; the retry budget was spent, so no other agent was tried";
        } else if (cause != null && failures.isEmpty() && cause.sessionAgent() == null && !cause.ejectedAgents().isEmpty()) {
            detail += " (ejected or marked down by health checks: " + cause.ejectedAgents().stream().map(this::label).sorted()
                    .collect(Collectors.joining(", ")) + ")";
        }
        // One reason per set of agents and what failed, whatever the order they were tried in.
        String reason = "503 " + (cause instanceof QueueTimeoutException ? "queue timeout" : stopping ? "stopping"
                : failures.stream().map(f -> f.agentId() + " " + f.reason()).sorted().collect(Collectors.joining(", "))
                + (detail.contains("retry budget") ? "; budget" : "")
                + (cause == null ? "" : "; ejected " + new TreeSet<>(cause.ejectedAgents())));
        warn(reason, "request=" + requestId(exchange) + " answered 503: " + detail, cause);
        // A queue timeout is overload, as a full queue's 429: the client may come back in a second.
        // Stopping: the client's next request goes elsewhere, not on this connection (as WhileStopping's answers).
        reply(exchange, 503, "no agent available", detail, stopping ? Map.of(AnswerRules.RETRY_AFTER, "5", "Connection", "close")
                : cause instanceof QueueTimeoutException ? Map.of(AnswerRules.RETRY_AFTER, "1") : Map.of());
    }

    /**
     * The detail of a 503 for a request pinned to {@code agent}, which was not tried: the balancer's
     * message from "the agent holding" on, without Camel's exchange suffix, the agent labelled as
     * every answer labels it; the message as it is when it does not read so (an exception made elsewhere).
     */
    private String sessionAgentOut(String message, String agent) {
        int from = message.indexOf("the agent holding");
        int to = message.lastIndexOf(". Exchange[");
        return from < 0 ? message : message.substring(from, to > from ? to : message.length())
                .replace(", " + agent + ", ", ", " + label(agent) + ", ");
    }

    /**
     * 502 naming the agent and what went wrong, 504 when it did not answer in time; when the
     * answer had already begun, the client's connection is closed instead (the answer is cut: logged
     * as {@code answer cut} and recorded as that status, never as the client leaving). The exception
     * goes to the log at DEBUG, on one line. A request that arrived through too many balancers
     * ({@link RequestLoopException}: a loop or a spoofed {@code Via}) gets 502 {@code loop detected}, a client's body too
     * slow 408.
     */
    void badGateway(Exchange exchange) {
        Exception cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        if (!(cause instanceof AnswerInterruptedException)
                && exchange.getProperty(Downstream.PROPERTY) instanceof Downstream gone && gone.clientGone()) {
            // The client left (while queued, say): nothing failed, nothing to answer. Not when the
            // agent failed mid-answer: the proxy itself closed the connection to cut the answer.
            cancelled(exchange);
            return;
        }
        if (cause instanceof RequestBodyTimeoutException slow) {
            // The client's slowness: nothing counts against the agent; the rest of the body is not read.
            // Composed here, the agent named as in every other answer (its name, else its base URL).
            String detail = "the client sent no more of its request body for " + slow.waitedMs() + " ms; agent "
                    + agentLabel(exchange) + " was waiting for it";
            LOG.info("request={} answered 408: {}", requestId(exchange), detail);
            reply(exchange, 408, "request timeout", detail, Map.of("Connection", "close"));
            return;
        }
        if (cause instanceof RequestLoopException loop) {
            // A loop, or a client's spoofed Via: no agent was called and none is blamed.
            // 502, an error status: in a real loop the outer passes count it against the address that leads back.
            LOG.info("request={} answered 502: {}", requestId(exchange), loop.getMessage());
            reply(exchange, 502, "loop detected", loop.getMessage(), Map.of());
            return;
        }
        String detail = "agent " + agentLabel(exchange) + " " + AgentFailure.reasonOf(cause);
        Downstream down = exchange.getProperty(Downstream.PROPERTY, Downstream.class);
        boolean timeout = FailureClassifier.classify(cause) == AttemptOutcome.ANSWER_TIMED_OUT;
        int status = timeout ? 504 : 502;
        if (down != null && down.headSent()) {
            warn("cut " + detail, "request=" + requestId(exchange) + " answer cut: " + detail, cause);
        } else {
            warn(status + " " + detail, "request=" + requestId(exchange) + " answered " + status + ": " + detail, cause);
        }
        reply(exchange, status, timeout ? "gateway timeout" : "bad gateway", detail, mayHaveRun(exchange, cause)
                ? Map.of(SHOULD_RETRY, "false") : Map.of());
    }

    /**
     * Whether a failed call may have run at its agent and is not one to send twice: it was sent
     * (not refused before), and its method is not idempotent (RFC 9110) nor does it carry an
     * {@code Idempotency-Key}. Its 502 or 504 then says {@code x-should-retry: false}, which
     * OpenAI's and other generated SDKs honour: they retry a 502 or 504 otherwise.
     */
    private static boolean mayHaveRun(Exchange exchange, Exception cause) {
        Message in = exchange.getMessage();
        String method = in.getHeader(Exchange.HTTP_METHOD, String.class);
        return FailureClassifier.classify(cause) != AttemptOutcome.FAILED_BEFORE_SEND && method != null
                && !FailoverPolicy.RFC_9110_IDEMPOTENT.contains(method) && !AgentLb.isIdempotencyKey(in.getHeader(AgentLb.IDEMPOTENCY_KEY_HEADER));
    }

    /**
     * Writes a busy answer an agent endpoint held back (the exchange's message: status, the agent's
     * headers, a {@code byte[]} body), when the balancer ended with it, with the balancer's
     * {@code Retry-After} (the shortest rest left among the agents); load reports stay out. One INFO
     * line says so, as for the proxy's own 429s and 503s.
     */
    void writeHeldAnswer(Exchange exchange) {
        NettyDownstream down = exchange.getProperty(Downstream.PROPERTY, NettyDownstream.class);
        Message held = exchange.getMessage();
        if (down != null && !down.headSent() && held.getBody() instanceof byte[] body) {
            Map<String, Object> headers = new LinkedHashMap<>();
            held.getHeaders().forEach((name, value) -> {
                if (!name.startsWith("Camel") && !AttemptHooks.NONE.isLoadReport(name)) {
                    headers.put(name, value);
                }
            });
            int status = held.getHeader(Exchange.HTTP_RESPONSE_CODE, 502, Integer.class);
            Object retryAfter = held.getHeader(AnswerRules.RETRY_AFTER);
            String agent = agentLabel(exchange);
            info("held " + status + " " + agent, "request=" + requestId(exchange) + " answered " + status + ": agent " + agent
                    + "'s busy answer passed on" + (retryAfter == null ? "" : ", Retry-After: " + retryAfter));
            down.reply(status, headers, Unpooled.wrappedBuffer(body));
        }
    }

    /**
     * A session or A2A task id the balancer cannot route: 400 (not one it gave) or 404 (its agent
     * left), no agent called; the error names which ({@code bad task id}, {@code session not found}, ...).
     */
    void sessionRejected(Exchange exchange) {
        SessionRejectedException cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, SessionRejectedException.class);
        LOG.info("request={} answered {}: {}", requestId(exchange), cause.status(), cause.reason());
        reply(exchange, cause.status(), cause.error(), cause.reason(), Map.of());
    }

    /**
     * Every agent rests after a busy answer or is at its in-flight limit, and none was asked (or the
     * queue is full): 429 with the shortest rest left; 503 {@code agents unavailable} when each rests
     * after a 503 ({@link AgentsBusyException#unavailable()}: an outage, not rate limiting).
     */
    void allBusy(Exchange exchange) {
        AgentsBusyException cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, AgentsBusyException.class);
        long seconds = cause == null ? 1 : cause.retryAfterSeconds();
        if (cause != null && cause.unavailable()) {
            info("unavailable " + cause.onlyAgent(), "request=" + requestId(exchange) + " answered 503: " + (cause.onlyAgent() == null
                    ? "every agent is" : "agent " + label(cause.onlyAgent()) + ", the only one left for this request, is")
                    + " unavailable, retry after " + seconds + " s");
            reply(exchange, 503, "agents unavailable", (cause.onlyAgent() == null ? "every agent" : "agent "
                    + label(cause.onlyAgent()) + ", the only one left for this request,") + " rests after answering 503"
                    + " (unavailable); retry after " + seconds + " s",
                    Map.of(AnswerRules.RETRY_AFTER, Long.toString(seconds)));
            return;
        }
        boolean queueFull = cause != null && cause.getMessage() != null && cause.getMessage().contains("queue is full");
        String only = cause == null ? null : cause.onlyAgent();
        info("busy " + only + " " + queueFull, "request=" + requestId(exchange) + " answered 429: " + (only == null
                ? "every agent is" : "agent " + label(only) + ", the only one left for this request, is") + " busy, retry after "
                + seconds + " s");
        reply(exchange, 429, "agents busy", queueFull
                ? "every agent is at its limit of requests in flight and the queue is full; retry after " + seconds + " s"
                : (only == null ? "every agent is" : "agent " + label(only) + ", the only one left for this request"
                        + " (its session's or key's, or the others failed), is") + " resting after a busy answer or at"
                        + " its limit of requests in flight; retry after " + seconds + " s",
                Map.of(AnswerRules.RETRY_AFTER, Long.toString(seconds)));
    }

    /** 500 JSON for a failure of the proxy itself; the exception goes to the log. */
    void internalError(Exchange exchange) {
        Exception cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        LOG.warn("request={} answered 500: {}", requestId(exchange), LogText.escape(cause));
        LOG.debug("request={} 500 cause", requestId(exchange), cause);
        if (exchange.getProperty(Downstream.PROPERTY) != null) {
            reply(exchange, 500, "internal error", "the proxy failed to handle the request; see its log", Map.of());
        } else if (exchange.getMessage().getHeader(NettyConstants.NETTY_CHANNEL_HANDLER_CONTEXT)
                instanceof ChannelHandlerContext ctx) {
            ctx.channel().close();
        }
    }

    /**
     * The client left, or took none of the answer for the idle timeout: its agent call was cancelled,
     * nothing to answer. One line: at DEBUG for a client that left (an everyday event, nginx's 499),
     * at INFO for a call the proxy itself ended.
     */
    void cancelled(Exchange exchange) {
        String agent = agentLabel(exchange);
        Exception why = exchange.getException() != null ? exchange.getException()
                : exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        if ("?".equals(agent)) {
            LOG.debug("request={} cancelled: the client closed its connection before any agent was called", requestId(exchange));
        } else if (why instanceof AgentCallCancelledException cancelled && !cancelled.clientLeft()) {
            LOG.info("request={} cancelled: {}", requestId(exchange), why.getMessage()); // the proxy ended it: said
        } else if (why instanceof AgentCallCancelledException) {
            LOG.debug("request={} cancelled: {}", requestId(exchange), why.getMessage());
        } else {
            LOG.debug("request={} cancelled: the client closed its connection, agent {} call stopped", requestId(exchange), agent);
        }
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, ProxyRoutes.CLIENT_CLOSED_REQUEST);
    }

    /**
     * {@code line} at WARN when it is the first of {@code reason} or the first after
     * {@link RepeatedWarnings#WINDOW}, with the count of those between; else at DEBUG. A dead agent
     * fails every request sent its way: one warning per agent and reason per window, not one per request.
     */
    private void warn(String reason, String line, Throwable cause) {
        bounded(reason, line, true, cause);
    }

    /**
     * As {@link #warn} at INFO, for the proxy's own 429s and 503s and the busy answers it passes on:
     * while every agent rests, each request is turned away the same way, so one line per window.
     */
    private void info(String reason, String line) {
        bounded(reason, line, false, null);
    }

    /**
     * One line per request: its repeats at DEBUG carry the cause (its class and message, never the
     * exchange), as does the first at WARN while DEBUG is on.
     */
    private void bounded(String reason, String line, boolean warning, Throwable cause) {
        String more = warnings.admit(reason);
        String because = cause == null ? "" : "; cause: " + causeText(cause);
        if (more == null) {
            LOG.debug("{}{}", line, because);
        } else if (warning) {
            LOG.warn("{}{}{}", line, more, LOG.isDebugEnabled() ? because : "");
        } else {
            LOG.info("{}{}", line, more);
        }
    }

    /**
     * A cause's class and message on one line (control characters as spaces), without the
     * {@code Exchange[...]} Camel's exceptions append to theirs.
     */
    static String causeText(Throwable cause) {
        String message = cause.getMessage() == null ? "" : cause.getMessage();
        int exchange = message.indexOf(". Exchange[");
        return cause.getClass().getSimpleName() + ": "
                + (exchange < 0 ? message : message.substring(0, exchange)).replaceAll("\\p{Cntrl}", " ");
    }

    /** The answering agent's name or base URL (the agent endpoint's when Camel's own balancer ran), "?" if unknown. */
    String agentLabel(Exchange exchange) {
        String id = exchange.getProperty(AgentLb.AGENT_PROPERTY,
                exchange.getProperty(AgentProducer.AGENT_ADDRESS_PROPERTY), String.class);
        return id == null ? "?" : label(id);
    }

    /**
     * A balancer agent id as the client should read it: the agent's name (one given in the
     * configuration, or one an agents file or DNS added at runtime: an id that is no URI), else its
     * base URL.
     */
    String label(String agentId) {
        return config.agentNames().containsValue(agentId) || !agentId.contains("://") ? agentId : agentUrl.apply(agentId);
    }

    /** The request id for a log line: client text, escaped. */
    static String requestId(Exchange exchange) {
        ProxyRequest request = exchange.getProperty(ProxyRoutes.REQUEST_PROPERTY, ProxyRequest.class);
        return request == null || request.requestId() == null ? exchange.getExchangeId()
                : LogText.escape(request.requestId());
    }

    /**
     * Writes a JSON error {@code {"error":..,"detail":..}} to the client (or cuts an answer already
     * begun; nothing when the client left) and records its status.
     */
    static void reply(Exchange exchange, int status, String error, String detail, Map<String, String> headers) {
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        NettyDownstream down = exchange.getProperty(Downstream.PROPERTY, NettyDownstream.class);
        if (down == null) {
            return;
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("error", error);
        json.put("detail", detail);
        Map<String, Object> answerHeaders = new LinkedHashMap<>(headers);
        answerHeaders.put(HttpHeaderNames.CONTENT_TYPE.toString(), "application/json");
        try {
            down.reply(status, answerHeaders, Unpooled.wrappedBuffer(JSON.writeValueAsBytes(json)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
