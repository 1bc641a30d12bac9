package io.github.agentlb.agent;

import io.github.agentlb.agent.http.Http11Component;
import io.github.agentlb.agent.http.RequestTarget;
import io.github.agentlb.agent.http.HttpReplies;
import io.github.agentlb.agent.http.LogText;
import io.github.agentlb.agent.llm.OrcaReport;
import io.github.agentlb.agent.llm.SessionIds;
import io.github.agentlb.agent.main.ServerPorts;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.netty.http.NettyHttpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's HTTP routes on one netty-http consumer:
 * <ul>
 *   <li>{@code GET /process/{req_id}?user_id=N}: 200 JSON {@link ProcessResponse} after the
 *       service delay, with the load headers {@code X-Agent-Utilization}, {@code X-Agent-Cpu},
 *       {@code X-Agent-Memory} (see {@link LoadSnapshot});</li>
 *   <li>{@code GET /health}: 200 {@code {"status":"UP","agent_id":...}};</li>
 *   <li>{@code POST /v1/chat/completions} and {@code POST /process/{req_id}}: an LLM-shaped
 *       answer, JSON or Server-Sent Events ({@link ChatCompletions}, shaped by {@link ChatShape});</li>
 *   <li>while {@link #answerWith} is set, every {@code GET} or {@code POST} on
 *       {@code /process/{req_id}}: that status at once, with {@code {"error":...,"detail":...}}
 *       and the {@code Retry-After} given, for tests of busy and broken agents;</li>
 *   <li>other methods on those paths (TRACE and OPTIONS included): 405 with {@code Allow: GET};
 *       other paths: 404; a target {@link RequestTarget} refuses (not printable ASCII, a malformed
 *       percent-escape such as {@code %zz}, an unescaped {@code |}) or a bad {@code Host} (two
 *       lines, not {@code host[:port]}): 400; any failure: 500; before the route, another major
 *       version of HTTP: 505, an unknown method: 501, a request line or headers too long: 414 or
 *       431, HTTP/1.1 without {@code Host} or anything else Netty cannot decode: 400, each followed
 *       by the connection's close ({@code http.Http1Only}). Every error is
 *       {@code {"error":...,"detail":...}}, as the demo proxy's; no stack trace reaches the client.</li>
 * </ul>
 *
 * <p>The consumer is {@link Http11Component}'s (no body after a HEAD answer, pipelined requests
 * answered in order). One consumer with {@code matchOnUriPrefix} takes every path and every standard method so
 * that 404 and 405 are JSON too (netty-http's own are empty). It runs on Netty's I/O threads
 * ({@code usingExecutorService=false}) because nothing in the route blocks. Headers are not
 * mapped ({@code mapHeaders=false}): the route reads method and target from the Netty request,
 * because Camel's mapping parses the target with {@link java.net.URI} and, when that fails, closes the
 * connection without answering.
 *
 * <p>Use it in your own CamelContext, or let {@link StubAgent} do so. A port of 0 binds an
 * ephemeral port nobody learns; resolve it first as {@link StubAgent} does.
 */
public class AgentRoutes extends RouteBuilder {

    private static final Logger LOG = LoggerFactory.getLogger(AgentRoutes.class);
    /** Key of the second field of every error body, as in the demo proxy's. */
    private static final String DETAIL = "detail";
    private static final String BAD_TARGET = "agentlb.badTarget";
    private static final String PATH = "agentlb.path";
    private static final String METHOD = "agentlb.method";
    private static final String FAULT_ANSWER = "agentlb.faultAnswer";

    private final AgentConfig config;
    private final AgentService service;
    private final ChatCompletions chat;
    /** The fault answer of {@code /process} requests, or null to answer them normally. */
    private volatile FaultAnswer faultAnswer;

    /** A status and its optional {@code Retry-After}, answered instead of the service. */
    private record FaultAnswer(int status, String retryAfter) {
    }

    /** Routes for one agent. */
    public AgentRoutes(AgentConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.service = new AgentService(config);
        this.chat = new ChatCompletions(config, service::reportedLoad);
    }

    /** The {@code /v1/chat/completions} service, for its counters. */
    public ChatCompletions chat() {
        return chat;
    }

    /** The {@code /process} service, for its counters and load. */
    public AgentService service() {
        return service;
    }

    /**
     * From now on answers every {@code GET} and {@code POST} on {@code /process/{req_id}} at once
     * with {@code status}, the body {@code {"error":<reason phrase>,"detail":...}} and, when
     * {@code retryAfter} is not null, that {@code Retry-After} header, instead of serving it: an
     * agent that is rate-limited ({@code 429}, {@code "2"}) or fails fast ({@code 500}, null).
     * Requests already in service are answered normally. Thread-safe; takes effect for requests
     * classified after it returns.
     *
     * @param status     HTTP status from 400 to 599
     * @param retryAfter the {@code Retry-After} value as sent (delta-seconds or an HTTP-date), or null for none
     * @throws IllegalArgumentException naming the value when the status is out of range or
     *                                  {@code retryAfter} is blank or holds a control character
     */
    public void answerWith(int status, String retryAfter) {
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("status must be from 400 to 599, was " + status);
        }
        if (retryAfter != null && (retryAfter.isBlank() || retryAfter.chars().anyMatch(c -> c < 0x20 || c == 0x7f))) {
            throw new IllegalArgumentException("retryAfter must be a header value, was '" + LogText.escape(retryAfter) + "'");
        }
        faultAnswer = new FaultAnswer(status, retryAfter);
        LOG.info("Agent {} answers /process with {}{}", config.agentId(), status,
                retryAfter == null ? "" : " (Retry-After: " + retryAfter + ")");
    }

    /** Ends {@link #answerWith}: {@code /process} requests are served again. Thread-safe; idempotent. */
    public void answerNormally() {
        if (faultAnswer != null) {
            faultAnswer = null;
            LOG.info("Agent {} answers /process normally", config.agentId());
        }
    }

    /**
     * The methods the consumer hands to the route: every standard one, so that TRACE and OPTIONS
     * get the route's 405 rather than netty-http's own answers.
     */
    public static final String CONSUMER_METHODS = "GET,HEAD,POST,PUT,DELETE,TRACE,OPTIONS,CONNECT,PATCH";

    /** The HTTP endpoint URI of the consumer. */
    public String endpointUri() {
        return Http11Component.SCHEME + ":http://" + ServerPorts.uriHost(config.host()) + ":" + config.port()
                + "/?matchOnUriPrefix=true&usingExecutorService=false&muteException=true&mapHeaders=false"
                + "&logWarnOnBadRequest=false&traceEnabled=true&httpMethodRestrict=" + CONSUMER_METHODS;
    }

    /** The base URL clients use, e.g. {@code http://127.0.0.1:8081}. */
    public String baseUrl() {
        return "http://" + ServerPorts.uriHost(config.host()) + ":" + config.port();
    }

    @Override
    public void configure() throws Exception {
        service.setCamelContext(getContext());
        Http11Component.register(getContext());

        onException(Exception.class)
                .handled(true)
                .process(this::internalError);

        from(endpointUri())
                .routeId("agent-" + config.agentId())
                .process(this::classify)
                .choice()
                    .when(exchangeProperty(BAD_TARGET).isNotNull()).process(AgentRoutes::badRequest)
                    .when(exchangeProperty(FAULT_ANSWER).isNotNull()).process(this::faultAnswer)
                    .when(kind(AgentRequest.Kind.PROCESS)).process(service)
                    .when(kind(AgentRequest.Kind.HEALTH)).process(this::health)
                    .when(kind(AgentRequest.Kind.CHAT)).process(chat)
                    .when(kind(AgentRequest.Kind.METHOD_NOT_ALLOWED)).process(this::methodNotAllowed)
                    .otherwise().process(AgentRoutes::notFound)
                .end();

        getContext().addStartupListener((context, alreadyStarted) -> LOG.info(
                "Agent {} serving {} ({})", config.agentId(), baseUrl(), config.describe()));
    }

    private static org.apache.camel.Predicate kind(AgentRequest.Kind kind) {
        return exchange -> exchange.getProperty(AgentService.REQUEST, AgentRequest.class).kind() == kind;
    }

    /**
     * Reads method, path and query from the Netty request, then drops every inbound header:
     * netty-http would echo them back as response headers otherwise. A target that is not a URI
     * is marked {@link #BAD_TARGET} and classified as not found.
     */
    private void classify(Exchange exchange) {
        Message in = exchange.getMessage();
        String method;
        String target;
        List<String> hosts = List.of();
        if (in instanceof NettyHttpMessage netty && netty.getHttpRequest() != null) {
            method = netty.getHttpRequest().method().name();
            target = netty.getHttpRequest().uri();
            hosts = netty.getHttpRequest().headers().getAll(HttpHeaderNames.HOST);
        } else {
            method = in.getHeader(Exchange.HTTP_METHOD, String.class);
            target = in.getHeader(Exchange.HTTP_URI, String.class);
        }
        RequestTarget parsed = RequestTarget.parse(method, target);
        String problem = parsed.valid() ? RequestTarget.hostProblem(hosts) : parsed.problem();
        String path = null;
        if (problem == null) {
            path = RequestTarget.decodePath(parsed.path());
        } else {
            exchange.setProperty(BAD_TARGET, problem);
            LOG.debug("Agent {} answered 400: {}", config.agentId(), problem);
        }
        AgentRequest classified = AgentRequest.classify(method, path, parsed.query());
        exchange.setProperty(AgentService.REQUEST, classified);
        FaultAnswer fault = faultAnswer;
        if (fault != null && classified.requestId() != null
                && (classified.kind() == AgentRequest.Kind.PROCESS || classified.kind() == AgentRequest.Kind.CHAT)) {
            exchange.setProperty(FAULT_ANSWER, fault);
        }
        exchange.setProperty(PATH, path);
        exchange.setProperty(METHOD, method);
        if (in instanceof NettyHttpMessage netty && netty.getHttpRequest() != null
                && classified.kind() == AgentRequest.Kind.CHAT) {
            var request = netty.getHttpRequest();
            byte[] body = new byte[request.content().readableBytes()];
            request.content().getBytes(request.content().readerIndex(), body);
            exchange.setProperty(ChatCompletions.BODY, body);
            exchange.setProperty(ChatCompletions.KEEP_ALIVE, io.netty.handler.codec.http.HttpUtil.isKeepAlive(request));
            exchange.setProperty(ChatCompletions.ORCA_FORMAT, request.headers().get(OrcaReport.REQUEST_HEADER));
            exchange.setProperty(ChatCompletions.SESSION_ID, request.headers().get(SessionIds.HEADER));
            var ctx = in.getHeader(org.apache.camel.component.netty.NettyConstants.NETTY_CHANNEL_HANDLER_CONTEXT,
                    io.netty.channel.ChannelHandlerContext.class);
            exchange.setProperty(ChatCompletions.CHANNEL, ctx == null ? null : ctx.channel());
        }
        in.removeHeaders("*");
        in.setBody(null);
    }

    private void faultAnswer(Exchange exchange) throws Exception {
        FaultAnswer answer = exchange.getProperty(FAULT_ANSWER, FaultAnswer.class);
        if (answer.retryAfter() != null) {
            exchange.getMessage().setHeader("Retry-After", answer.retryAfter());
        }
        HttpReplies.error(exchange, answer.status(),
                HttpResponseStatus.valueOf(answer.status()).reasonPhrase().toLowerCase(Locale.ROOT),
                Map.of(DETAIL, "agent " + config.agentId() + " answers " + answer.status() + " on purpose (answerWith)"));
    }

    private static void badRequest(Exchange exchange) throws Exception {
        HttpReplies.error(exchange, 400, "bad request", Map.of(DETAIL, exchange.getProperty(BAD_TARGET)));
    }

    private void health(Exchange exchange) throws Exception {
        // Ordered as documented: Map.of iterates in an order that changes from one JVM to the next.
        Map<String, Object> health = new LinkedHashMap<>();
        health.put("status", "UP");
        health.put("agent_id", config.agentId());
        HttpReplies.json(exchange, 200, health);
    }

    private void methodNotAllowed(Exchange exchange) throws Exception {
        Object path = exchange.getProperty(PATH);
        String allowed = ChatCompletions.PATH.equals(path) ? "POST"
                : path instanceof String p && p.startsWith(AgentRequest.PROCESS_PREFIX) ? "GET, POST" : "GET";
        exchange.getMessage().setHeader("Allow", allowed);
        LoadSnapshot.setHeaders(exchange, service.reportedLoad());
        HttpReplies.error(exchange, 405, "method not allowed",
                Map.of(DETAIL, exchange.getProperty(METHOD) + " is not allowed, use " + allowed));
    }

    private static void notFound(Exchange exchange) throws Exception {
        HttpReplies.error(exchange, 404, "not found", Map.of(DETAIL, "no route for " + exchange.getProperty(PATH)));
    }

    private void internalError(Exchange exchange) throws Exception {
        Exception cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        LOG.warn("Agent {} failed a request: {}", config.agentId(), LogText.escape(cause));
        LOG.debug("Failure detail", cause);
        exchange.getMessage().removeHeaders("*");
        HttpReplies.error(exchange, 500, "internal error",
                Map.of(DETAIL, "agent " + config.agentId() + " failed to answer; see its log"));
    }
}
