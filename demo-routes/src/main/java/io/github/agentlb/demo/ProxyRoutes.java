package io.github.agentlb.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.agent.Http11Component;
import io.github.agentlb.agent.LogText;
import io.github.agentlb.agent.RequestTarget;
import io.github.agentlb.camel.AgentFailure;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.NoAgentAvailableException;
import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.netty.NettyConstants;
import org.apache.camel.component.netty.http.NettyHttpEndpoint;
import org.apache.camel.component.netty.http.NettyHttpHeaderFilterStrategy;
import org.apache.camel.component.netty.http.NettyHttpMessage;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.model.LoadBalanceDefinition;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy: one netty-http consumer on {@link ProxyConfig#host()}:{@link ProxyConfig#port()},
 * {@code GET /process/{req_id}?user_id=N} load-balanced by the given balancer over one netty-http
 * producer per agent, each a child {@code .to(...)} of {@code .loadBalance(balancer)}.
 *
 * <h2>What the client gets</h2>
 * <ul>
 *   <li>The agent's answer unchanged: status, body and {@code Content-Type}; no other agent
 *       header (in particular not the {@code X-Agent-*} load report).</li>
 *   <li>One agent down: the balancer fails over, the client sees the next agent's answer.</li>
 *   <li>All agents down: 503 {@code {"error":"no agent available","detail":...}}.</li>
 *   <li>An agent answer that cannot be relayed (unreadable, no status): 502
 *       {@code {"error":"bad gateway","detail":...}}.</li>
 *   <li>Unknown path: 404; another method on {@code /process/{req_id}} (HEAD, TRACE and OPTIONS
 *       included): 405 with {@code Allow: GET}; a target {@link RequestTarget} refuses (not
 *       printable ASCII, a character RFC 3986 does not allow, {@code %zz}) or a bad {@code Host}
 *       (two lines, not {@code host[:port]}): 400. Every error body is
 *       {@code {"error":...,"detail":...}}; never a stack trace, Java class name or exchange id.</li>
 * </ul>
 *
 * <h2>HTTP/1.1</h2>
 * The consumer is {@link Http11Component}'s: Netty's {@code HttpServerCodec} (no body after a
 * HEAD answer) and one request at a time per connection (pipelined requests answered in order).
 * HTTP/1.0 without keep-alive and {@code Connection: close} get the connection closed after the
 * answer (netty-http's own handling). The pipeline answers, as JSON, then closes the connection
 * ({@code Http1Only}): another major version of HTTP with 505, a request line over 4096
 * characters with 414, headers over 8 KB with 431, a method outside {@value #CONSUMER_METHODS}
 * with 501, HTTP/1.1 without {@code Host} or anything else Netty cannot decode with 400.
 *
 * <h2>What the agent gets</h2>
 * Method GET, the client's path and query byte for byte (set on the agent request by
 * {@link ForwardingBinding}, as camel-netty-http's URI encoding would escape {@code ~}), the
 * agent's {@code Host}, {@code Via} and {@code X-Forwarded-For}, and no client header: the
 * inbound headers ({@code Host}, {@code Camel*}, hop-by-hop, everything) are dropped, so none can
 * reach the agent or redirect the request. {@code req_id} and {@code user_id} are set as message
 * headers for the balancer (the key of {@code ConsistentHashLB}, the decision log) and filtered
 * out of the agent request by the producer's header filter strategy. {@code user_id} is read
 * from the first {@code user_id} query parameter; a missing or empty one leaves the header unset,
 * which {@code ConsistentHashLB} spreads round-robin; any other string is a key. Log lines quote
 * client text through {@link LogText}.
 *
 * <h2>Threads</h2>
 * Everything runs on Netty I/O threads ({@code usingExecutorService=false}) and the balancer
 * waits for agents asynchronously, so in-flight requests hold no thread. The producers keep
 * connections alive in a pool of up to {@value #PRODUCER_POOL_MAX_TOTAL} per agent. The route has
 * no error handler, so a failed agent reaches the balancer at once and is not redelivered.
 *
 * <h2>Metrics</h2>
 * When the CamelContext's registry holds a {@link MeterRegistry} (bound as
 * {@value #METER_REGISTRY_NAME}, as camel-micrometer does, or the only one of its type), each
 * proxied request is recorded by {@link ProxyMetrics} and the balancer's attempts and state by
 * the library's {@link LoadBalancerMetrics}; otherwise metrics are off. The registry is looked up
 * once, when the CamelContext has started.
 *
 * <p>One instance per CamelContext (the route id is fixed).
 */
public class ProxyRoutes extends RouteBuilder {

    /** Id of the proxy route. */
    public static final String ROUTE_ID = "agentlb-proxy";
    /** Name under which camel-micrometer binds its registry; looked up first. */
    public static final String METER_REGISTRY_NAME = "metricsRegistry";
    /** Pooled connections per agent at most; above the 100+ concurrent requests of the load test. */
    public static final int PRODUCER_POOL_MAX_TOTAL = 1024;
    /** Idle connections kept per agent for reuse. */
    public static final int PRODUCER_POOL_MAX_IDLE = 256;
    /**
     * The methods the consumer hands to the route: every standard one, so that TRACE and OPTIONS
     * get the route's 405 rather than netty-http's own answers (an empty 405; a 200 listing every
     * method). netty-http answers other methods with an empty 405.
     */
    public static final String CONSUMER_METHODS = "GET,HEAD,POST,PUT,DELETE,TRACE,OPTIONS,CONNECT,PATCH";

    static final String REQUEST_ID_HEADER = AgentLoadBalancerSupport.REQUEST_ID_HEADER;
    static final String USER_ID_HEADER = ProxyRequest.USER_ID_PARAM;
    private static final String APPLICATION_JSON = "application/json";
    private static final String REQUEST_PROPERTY = "agentlb.proxy.request";
    private static final String START_PROPERTY = "agentlb.proxy.startNanos";

    private static final Logger LOG = LoggerFactory.getLogger(ProxyRoutes.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ProxyConfig config;
    private final AgentLoadBalancerSupport balancer;
    private final Map<String, String> agentUrlById = new ConcurrentHashMap<>();
    private volatile ProxyMetrics metrics;
    private volatile boolean metricsResolved;

    /**
     * Routes for {@code config}, balanced by {@code balancer}. The balancer gets one child per
     * agent URL, in the configured order; give each ProxyRoutes its own balancer. For a baseline
     * strategy ({@link Strategies#isBaseline}) the balancer is null: the route uses Camel's own.
     *
     * @throws NullPointerException if the balancer is null and the strategy is not a baseline
     */
    public ProxyRoutes(ProxyConfig config, AgentLoadBalancerSupport balancer) {
        this.config = Objects.requireNonNull(config, "config");
        this.balancer = Strategies.isBaseline(config.strategy()) ? null : Objects.requireNonNull(balancer, "balancer");
    }

    /** Routes for {@code config} with a new balancer of its strategy ({@link Strategies#create}), none for a baseline. */
    public ProxyRoutes(ProxyConfig config) {
        this(config, Strategies.isBaseline(config.strategy()) ? null : Strategies.create(config.strategy()));
    }

    /**
     * The consumer's endpoint URI. {@code mapHeaders=false}: the route reads method and target
     * from the Netty request itself, as Camel's header mapping parses the target with
     * {@link java.net.URI} and, on a malformed escape, closes the connection without answering.
     */
    public String consumerUri() {
        return Http11Component.SCHEME + ":http://" + config.host() + ":" + config.port()
                + "/?matchOnUriPrefix=true&usingExecutorService=false&muteException=true&mapHeaders=false"
                + "&logWarnOnBadRequest=false&traceEnabled=true&httpMethodRestrict=" + CONSUMER_METHODS;
    }

    /** The agent base URL for a balancer agent id (an endpoint URI), or the id itself if unknown. */
    public String agentUrl(String agentId) {
        return agentId == null ? null : agentUrlById.getOrDefault(agentId, agentId);
    }

    @Override
    public void configure() throws Exception {
        errorHandler(noErrorHandler());
        Http11Component.register(getContext());

        var tried = from(consumerUri())
                .routeId(ROUTE_ID)
                .process(this::accept)
                .doTry();
        LoadBalanceDefinition balance = balancer == null ? tried.loadBalance().roundRobin() : tried.loadBalance(balancer);
        for (String url : config.agentUrls()) {
            NettyHttpEndpoint endpoint = upstream(url);
            String name = config.agentNames().get(url);
            if (name != null && balancer != null) {
                balancer.nameAgent(endpoint.getEndpointUri(), name);
            }
            agentUrlById.put(name != null ? name : endpoint.getEndpointUri(), url);
            balance.to(endpoint);
        }
        balance.end()
                    .process(this::relay)
                .endDoTry()
                .doCatch(NoAgentAvailableException.class)
                    .process(this::noAgent)
                .doCatch(Exception.class)
                    .process(this::badGateway)
                .end();

        getContext().addStartupListener((context, alreadyStarted) -> {
            metrics();
            HealthCheckRegistry health = HealthCheckRegistry.get(context);
            if (health != null && balancer != null) {
                health.register(new AgentsReadinessCheck(balancer));
            }
            LOG.info("Proxy on http://{}:{}/process/{req_id}?user_id=N with strategy {} over {}, metrics {}",
                    config.host(), config.port(), strategyName(), config.agentUrls(),
                    metrics == null ? "off" : "on");
        });
    }

    /**
     * An upstream endpoint with a short URI (the base URL, so that agent ids and ring positions
     * do not depend on tuning options) and its options set on the endpoint.
     */
    private NettyHttpEndpoint upstream(String baseUrl) {
        NettyHttpEndpoint endpoint = getContext().getEndpoint("netty-http:" + baseUrl, NettyHttpEndpoint.class);
        var c = endpoint.getConfiguration();
        c.setConnectTimeout(config.connectTimeoutMs());
        c.setRequestTimeout(config.requestTimeoutMs());
        c.setThrowExceptionOnFailure(false);
        // Every status is relayed as it is; an empty "ok" range spares netty-http's per-header
        // regex clean-up of 2xx answers (relay() replaces the headers anyway).
        c.setOkStatusCodeRange("999-999");
        c.setKeepAlive(true);
        c.setProducerPoolEnabled(true);
        c.setProducerPoolMaxTotal(PRODUCER_POOL_MAX_TOTAL);
        c.setProducerPoolMaxIdle(PRODUCER_POOL_MAX_IDLE);
        endpoint.setNettyHttpBinding(new ForwardingBinding());
        NettyHttpHeaderFilterStrategy filter = new NettyHttpHeaderFilterStrategy();
        // The balancer's inputs travel as headers inside Camel but are not the agent's business.
        filter.getOutFilter().addAll(Set.of(REQUEST_ID_HEADER, USER_ID_HEADER));
        endpoint.setHeaderFilterStrategy(filter);
        return endpoint;
    }

    /** Answers 400, 404 and 405 itself; turns a proxied request into a clean upstream request. */
    private void accept(Exchange exchange) throws JsonProcessingException {
        Message in = exchange.getMessage();
        String method = method(in);
        FullHttpRequest received = in instanceof NettyHttpMessage netty ? netty.getHttpRequest() : null;
        String hostProblem = received == null ? null
                : RequestTarget.hostProblem(received.headers().getAll(HttpHeaderNames.HOST));
        ProxyRequest request = hostProblem != null ? ProxyRequest.badRequest(hostProblem)
                : ProxyRequest.parse(method, rawTarget(in));
        exchange.setProperty(REQUEST_PROPERTY, request);
        switch (request.kind()) {
            case BAD_REQUEST -> {
                LOG.debug("Answered 400: {}", LogText.escape(request.problem()));
                reply(exchange, 400, error("bad request", request.problem()));
                exchange.setRouteStop(true);
            }
            case NOT_FOUND -> {
                reply(exchange, 404, error("not found", "no route for " + request.rawPath()));
                exchange.setRouteStop(true);
            }
            case METHOD_NOT_ALLOWED -> {
                reply(exchange, 405, error("method not allowed", method + " is not allowed, use GET"));
                exchange.getMessage().setHeader("Allow", "GET");
                exchange.setRouteStop(true);
            }
            case PROXY -> {
                exchange.setProperty(START_PROPERTY, System.nanoTime());
                exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
                    @Override
                    public void onDone(Exchange done) {
                        record(done);
                    }
                });
                exchange.setProperty(ForwardingBinding.HOP_PROPERTY, new ForwardingBinding.Hop(
                        request.rawQuery() == null ? request.rawPath() : request.rawPath() + "?" + request.rawQuery(),
                        received == null ? "1.1" : received.protocolVersion().majorVersion() + "."
                                + received.protocolVersion().minorVersion(),
                        clientAddress(in)));
                in.removeHeaders("*");
                in.setBody(null);
                in.setHeader(Exchange.HTTP_METHOD, "GET");
                in.setHeader(REQUEST_ID_HEADER, request.requestId());
                if (request.userId() != null && !request.userId().isEmpty()) {
                    in.setHeader(USER_ID_HEADER, request.userId());
                }
            }
            default -> throw new IllegalStateException("unexpected kind " + request.kind());
        }
    }

    /** The request's method, from the Netty request as headers are not mapped. */
    private static String method(Message in) {
        if (in instanceof NettyHttpMessage netty && netty.getHttpRequest() != null) {
            return netty.getHttpRequest().method().name();
        }
        return in.getHeader(Exchange.HTTP_METHOD, String.class);
    }

    /** The client's IP address, null if unknown. */
    private static String clientAddress(Message in) {
        Object address = in.getHeader(NettyConstants.NETTY_REMOTE_ADDRESS);
        return address instanceof InetSocketAddress socket && socket.getAddress() != null
                ? socket.getAddress().getHostAddress() : null;
    }

    /** The request target exactly as received: Camel's own headers hold it decoded. */
    private static String rawTarget(Message in) {
        if (in instanceof NettyHttpMessage netty && netty.getHttpRequest() != null) {
            return netty.getHttpRequest().uri();
        }
        String uri = in.getHeader(Exchange.HTTP_URI, String.class);
        String query = in.getHeader(Exchange.HTTP_RAW_QUERY, String.class);
        return query == null ? uri : uri + "?" + query;
    }

    /** Keeps the agent's status, content type and body; drops every other header. */
    private void relay(Exchange exchange) throws JsonProcessingException {
        Message answer = exchange.getMessage();
        Integer status = answer.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String contentType = answer.getHeader(Exchange.CONTENT_TYPE, String.class);
        byte[] body = answer.getBody(byte[].class);
        if (status == null || status < 100 || status > 599) {
            // A status line Netty parsed but HTTP does not allow (ForwardingBinding turns an
            // answer Netty could not parse into a failure of the agent).
            String detail = "agent " + agentLabel(exchange) + " answered something that is not HTTP";
            LOG.warn("request={} answered 502: {}", requestId(exchange), detail);
            reply(exchange, 502, error("bad gateway", detail));
            return;
        }
        answer.removeHeaders("*");
        // A null body would make netty-http reply with the agent's raw response, headers and all.
        answer.setBody(body == null ? new byte[0] : body);
        answer.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        if (contentType != null) {
            answer.setHeader(Exchange.CONTENT_TYPE, contentType);
        }
    }

    /**
     * 503 with the agents tried and why each failed ({@link NoAgentAvailableException#failures()});
     * the exception goes to the log at DEBUG, on one line: a dead agent is an expected condition.
     */
    private void noAgent(Exchange exchange) throws JsonProcessingException {
        NoAgentAvailableException cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, NoAgentAvailableException.class);
        List<AgentFailure> failures = cause == null ? List.of() : cause.failures();
        String list = failures.stream().map(f -> label(f.agentId()) + " (" + f.reason() + ")")
                .collect(Collectors.joining(", "));
        String detail = failures.isEmpty() ? "the " + strategyName() + " balancer has no agent to try"
                : failures.size() == 1 ? "the only agent tried failed: " + list
                : "all " + failures.size() + " agents tried failed: " + list;
        LOG.warn("request={} answered 503: {}", requestId(exchange), detail);
        LOG.debug("request={} 503 cause: {}", requestId(exchange), cause);
        reply(exchange, 503, error("no agent available", detail));
    }

    /** 502 naming the agent and what went wrong; the exception goes to the log at DEBUG, on one line. */
    private void badGateway(Exchange exchange) throws JsonProcessingException {
        Exception cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        String detail = "agent " + agentLabel(exchange) + " " + AgentFailure.reasonOf(cause);
        LOG.warn("request={} answered 502: {}", requestId(exchange), detail);
        LOG.debug("request={} 502 cause: {}", requestId(exchange), cause);
        reply(exchange, 502, error("bad gateway", detail));
    }

    /** The answering agent's name or base URL, "?" if the balancer did not say. */
    private String agentLabel(Exchange exchange) {
        String id = exchange.getProperty(AgentLoadBalancerSupport.AGENT_PROPERTY, String.class);
        return id == null ? "?" : label(id);
    }

    /** A balancer agent id as the client should read it: the agent's name, else its base URL. */
    private String label(String agentId) {
        return config.agentNames().containsValue(agentId) ? agentId : agentUrl(agentId);
    }

    /** The request id for a log line: client text, escaped. */
    private static String requestId(Exchange exchange) {
        ProxyRequest request = exchange.getProperty(REQUEST_PROPERTY, ProxyRequest.class);
        return request == null ? exchange.getExchangeId() : LogText.escape(request.requestId());
    }

    private static Map<String, Object> error(String error, String detail) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put("detail", detail);
        return body;
    }

    private static void reply(Exchange exchange, int status, Object body) throws JsonProcessingException {
        Message m = exchange.getMessage();
        m.removeHeaders("*");
        m.setBody(JSON.writeValueAsBytes(body));
        m.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        m.setHeader(Exchange.CONTENT_TYPE, APPLICATION_JSON);
    }

    private void record(Exchange exchange) {
        ProxyMetrics current = metrics();
        Long start = exchange.getProperty(START_PROPERTY, Long.class);
        if (current == null || start == null) {
            return;
        }
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String strategy = exchange.getProperty(AgentLoadBalancerSupport.STRATEGY_PROPERTY, strategyName(),
                String.class);
        String agent = agentUrl(exchange.getProperty(AgentLoadBalancerSupport.AGENT_PROPERTY, String.class));
        current.recordRequest(strategy, agent, status == null ? 500 : status, System.nanoTime() - start);
    }

    private String strategyName() {
        return balancer == null ? config.strategy() : balancer.strategyName();
    }

    /** Looked up once, after start-up: camel-micrometer binds its registry while the context starts. */
    private ProxyMetrics metrics() {
        if (!metricsResolved) {
            synchronized (this) {
                if (!metricsResolved) {
                    Registry registry = getContext().getRegistry();
                    MeterRegistry meters = registry.lookupByNameAndType(METER_REGISTRY_NAME, MeterRegistry.class);
                    if (meters == null) {
                        meters = registry.findSingleByType(MeterRegistry.class);
                    }
                    if (meters != null) {
                        metrics = new ProxyMetrics(meters);
                        if (balancer != null) {
                            new LoadBalancerMetrics(balancer).bindTo(meters);
                        }
                    }
                    metricsResolved = true;
                    LOG.debug("Proxy metrics {}", meters == null ? "off: no MeterRegistry" : "in " + meters);
                }
            }
        }
        return metrics;
    }
}
