package io.github.agentlb.demo;

import io.github.agentlb.agent.http.HeldBodies;
import io.github.agentlb.agent.http.Http11Component;
import io.github.agentlb.agent.http.LogText;
import io.github.agentlb.agent.http.RequestTarget;
import io.github.agentlb.agent.main.ServerPorts;
import io.github.agentlb.camel.AgentKeys;
import io.github.agentlb.camel.AgentLb;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.AgentsBusyException;
import io.github.agentlb.camel.KeySettings;
import io.github.agentlb.camel.NoAgentAvailableException;
import io.github.agentlb.camel.SessionRejectedException;
import io.github.agentlb.camel.http.AgentCallCancelledException;
import io.github.agentlb.camel.http.AgentComponent;
import io.github.agentlb.camel.http.AgentProducer;
import io.github.agentlb.camel.http.NettyDownstream;
import io.github.agentlb.core.fleet.NameList;
import io.github.agentlb.core.key.PromptPrefix;
import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.internal.PlatformDependent;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.netty.NettyConstants;
import org.apache.camel.component.netty.http.NettyHttpMessage;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.model.LoadBalanceDefinition;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy: one netty-http consumer on {@link ProxyConfig#host()}:{@link ProxyConfig#port()},
 * {@code /process/{req_id}?user_id=N} load-balanced by the given balancer over one
 * {@code agent:} endpoint per agent (camel-lb-http's component, the agent's answer streamed to the
 * client as it arrives), each a child of {@code .loadBalance(balancer)}, as in any user's route.
 *
 * <h2>What the agent gets</h2>
 * The client's method (every method of RFC 9110 but {@code CONNECT}), path and query byte for
 * byte once dot-segments are removed, its end-to-end headers ({@code Authorization},
 * {@code Accept}, {@code Mcp-Session-Id}, ...) and its body (at most
 * {@link ProxyConfig#maxBodyBytes()}, chunked or not; sent with a {@code Content-Length}), plus
 * the agent's {@code Host}, {@code Via} and {@code X-Forwarded-For}; see {@link NettyDownstream}
 * for what is dropped (the route installs it with the target it checked). {@code req_id} and {@code user_id} are read for the balancer (the key of
 * {@code ConsistentHashLB}, the decision log); without a {@code user_id} in the query, a keyed
 * strategy's key is the client's {@code user_id} header, and without either the key is unset,
 * which {@code ConsistentHashLB} spreads round-robin.
 *
 * <h2>What the client gets</h2>
 * <ul>
 *   <li>The agent's answer as it is produced: status, end-to-end headers ({@code Retry-After},
 *       {@code Set-Cookie}, {@code Cache-Control}, ... but not the {@code X-Agent-*} load
 *       reports), then each chunk as it arrives (SSE, chunked, bodies of any size), with
 *       backpressure. An agent that fails after the answer began: the connection is closed
 *       without the terminating chunk.</li>
 *   <li>An agent that cannot be reached: the balancer fails over; one that does not answer
 *       within {@code FIRST_BYTE_TIMEOUT_MS}: 504, not sent elsewhere (the call may cost money
 *       and is likely running); all agents down: 503 {@code {"error":"no agent available",...}};
 *       an answer that is not HTTP: 502.</li>
 *   <li>Unknown path: 404; {@code CONNECT} on {@code /process/{req_id}}: 405 with {@code Allow};
 *       a target {@link RequestTarget} refuses or a bad {@code Host}: 400; a body over
 *       {@code MAX_BODY_BYTES}: 413; a head or body that does not arrive within
 *       {@code CLIENT_TIMEOUT_MS}: 408. Every error body is {@code {"error":...,"detail":...}};
 *       never a stack trace, Java class name or exchange id.</li>
 *   <li>A client that closes its connection cancels its agent call at once (the agent's
 *       connection is closed); the attempt ends cancelled and counts against no agent.</li>
 * </ul>
 *
 * <h2>HTTP/1.1</h2>
 * The consumer is {@link Http11Component}'s: Netty's HTTP codec (no body after a HEAD answer)
 * and one request at a time per connection (pipelined requests answered in order). The pipeline
 * answers, as JSON, then closes the connection: another major version of HTTP with 505, a request
 * line over 4096 characters with 414, headers over 8 KB with 431, an unknown method with 501,
 * HTTP/1.1 without {@code Host}, {@code Transfer-Encoding} with {@code Content-Length} or
 * anything else Netty cannot decode with 400.
 *
 * <h2>Threads</h2>
 * Everything runs on Netty I/O threads ({@code usingExecutorService=false}, {@code sync=false}:
 * the route writes its answers itself), and each agent call runs on its client connection's event
 * loop, so in-flight requests and open streams hold no thread. The route has no error handler, so
 * a failed agent reaches the balancer at once and is not redelivered.
 *
 * <h2>Metrics</h2>
 * When the CamelContext's registry holds a {@link MeterRegistry} (bound as
 * {@value #METER_REGISTRY_NAME}, as camel-micrometer does, or the only one of its type), each
 * proxied request is recorded by {@link ProxyMetrics} when its answer has ended (status 499 for a
 * client that left) and the balancer's attempts and state by the library's
 * {@link LoadBalancerMetrics}; otherwise metrics are off.
 *
 * <p>One instance per CamelContext (the route id is fixed).
 *
 * <p>The answers to outcomes other than an agent's answer are {@link ProxyAnswers}'.
 *
 * <p>Over 300 lines: the route, its admission of each request (400/404/405, what the balancer reads) and its metrics share the route's fields; the answers to outcomes other than an agent's answer are {@link ProxyAnswers}'.
 */
public class ProxyRoutes extends RouteBuilder {

    /** Id of the proxy route. */
    public static final String ROUTE_ID = "agentlb-proxy";
    /** Name under which camel-micrometer binds its registry; looked up first. */
    public static final String METER_REGISTRY_NAME = "metricsRegistry";
    /** The methods forwarded to agents: RFC 9110's and PATCH, but CONNECT. */
    public static final String FORWARDED_METHODS = "GET, HEAD, POST, PUT, DELETE, OPTIONS, TRACE, PATCH";
    /** The status recorded for a request whose client left before its answer ended, as nginx logs it. */
    static final int CLIENT_CLOSED_REQUEST = 499;
    /**
     * The methods the consumer hands to the route: every standard one, so that TRACE and OPTIONS
     * reach the agents (and CONNECT the route's 405) rather than netty-http's own answers (an
     * empty 405; a 200 listing every method).
     */
    public static final String CONSUMER_METHODS = "GET,HEAD,POST,PUT,DELETE,TRACE,OPTIONS,CONNECT,PATCH";

    static final String REQUEST_ID_HEADER = io.github.agentlb.camel.AgentLb.REQUEST_ID_HEADER;
    static final String USER_ID_HEADER = ProxyRequest.USER_ID_PARAM;
    static final String REQUEST_PROPERTY = "agentlb.proxy.request";
    private static final String START_PROPERTY = "agentlb.proxy.startNanos";

    private static final Logger LOG = LoggerFactory.getLogger(ProxyRoutes.class);

    /**
     * The most bytes all connections together hold beyond a body's first 64 KiB while its prompt key
     * is not decided: an eighth of the direct memory Netty may use, at most 64 MiB (past it a body
     * goes on with what it has, and its key falls back).
     */
    static final long EXTRA_HELD_BYTES = Math.min(64L << 20, PlatformDependent.maxDirectMemory() / 8);

    /**
     * The most bytes of request bodies still arriving all connections together hold: a quarter of
     * the direct memory Netty may use (past it, connections wait unread until bytes are given back:
     * {@link HeldBodies}).
     */
    static final long BODY_BYTES_HELD = Math.max(1, PlatformDependent.maxDirectMemory() / 4);

    /** The bodies held whole with A2A tasks or MCP handles on: as much as the balancer reads of a task or tool call. */
    static final int A2A_HELD_BODY_BYTES = 1 << 20;

    /** The prefix of MCP's request headers ({@code Mcp-Method}, {@code MCP-Protocol-Version}, {@code Mcp-Param-*}, ...), any case. */
    private static final String MCP_HEADERS = "Mcp-";

    private final ProxyConfig config;
    private final AgentLoadBalancerSupport balancer;
    private final Map<String, String> agentUrlById = new ConcurrentHashMap<>();
    private final ProxyAnswers answers;
    /** Whether the balancer keys requests (ch, avn): its key may read the body. */
    private final boolean keyed;
    /** The session headers the balancer may read; the learned sessions' header is added at start. */
    private volatile List<String> sessionHeaders = AgentKeys.DEFAULT_SESSION_HEADERS;
    private volatile ProxyMetrics metrics;
    private volatile boolean metricsResolved;
    /** What the proxy's server holds of request bodies, made in {@link #configure()}. */
    private HeldBodies heldBodies;
    private DemoFleet fleet;
    private boolean noneAcceptedAtStart;

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
        this.answers = new ProxyAnswers(config, this::strategyName, this::agentUrl);
        this.keyed = this.balancer instanceof KeySettings;
    }

    /**
     * Whether the first bytes of a body still arriving decide the balancer's key: always, unless its
     * keys read the prompt ({@code prompt}) and those bytes end before the prompt key is complete or
     * known to be absent ({@link PromptPrefix#decides}). On the connection's event loop.
     */
    private boolean decidesTheKey(HttpRequest head, ByteBuf held) {
        return !keyed || !readsThePrompt(((KeySettings) balancer).getKeys())
                || PromptPrefix.ofDefaults().decides(new ByteBufInputStream(held));
    }

    /** Whether keys named as {@code setKeys} takes them ({@code session,prompt,user_id}) read the prompt. */
    static boolean readsThePrompt(String keys) {
        for (String part : keys.split(",")) {
            if (part.trim().equalsIgnoreCase("prompt")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Agents from a membership source: the route starts with the fleet's agents ({@code config}'s
     * agent URLs, from {@link DemoFleet#firstFleet()}), and later fleets change the balancer at runtime.
     *
     * @return this
     */
    ProxyRoutes withFleet(DemoFleet source) {
        this.fleet = source;
        return this;
    }

    /**
     * Tells readiness that no agent accepted a connection at start ({@link #logSilentAgents}), so it
     * is DOWN from the start rather than after a first failed request.
     *
     * @return this
     */
    ProxyRoutes noneAcceptedAtStart(boolean none) {
        this.noneAcceptedAtStart = none;
        return this;
    }

    /**
     * The endpoint URI of the agent at {@code baseUrl} ({@code http://host:port}) with this proxy's
     * timeouts, e.g. for {@code balancer.addAgent(name, uri, weight)} at runtime, as the route's own
     * children are.
     */
    public String agentUri(String baseUrl) {
        return AgentComponent.SCHEME + ":" + baseUrl + "?" + config.timeouts().uriOptions();
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
        return Http11Component.SCHEME + ":http://" + ServerPorts.uriHost(config.host()) + ":" + config.port()
                + "/?matchOnUriPrefix=true&usingExecutorService=false&sync=false&muteException=true&mapHeaders=false"
                + "&chunkedMaxContentLength=" + config.maxBodyBytes()
                + "&logWarnOnBadRequest=false&traceEnabled=true&httpMethodRestrict=" + CONSUMER_METHODS;
    }

    /** The agent base URL for a balancer agent id (an endpoint URI), or the id itself if unknown. */
    public String agentUrl(String agentId) {
        return agentId == null ? null : agentUrlById.getOrDefault(agentId, agentId);
    }

    @Override
    public void configure() throws Exception {
        String learned = balancer == null ? null : balancer.getSessionHeader();
        if (learned != null && sessionHeaders.stream().noneMatch(learned::equalsIgnoreCase)) {
            sessionHeaders = java.util.stream.Stream.concat(sessionHeaders.stream(), java.util.stream.Stream.of(learned)).toList();
        }
        errorHandler(noErrorHandler());
        // With A2A tasks or MCP handles on, a body the balancer reads (up to 1 MiB, a task call or a
        // message with large parts, a tool call) is held whole, so that its task id or handle is
        // checked and the answer's sealed.
        // Else the first 64 KiB, and more, up to what the prompt key reads, while they do not decide it.
        int held = readsBodies() ? A2A_HELD_BODY_BYTES : Http11Component.DEFAULT_HELD_BODY_BYTES;
        heldBodies = new HeldBodies(held, Math.max(held, PromptPrefix.DEFAULT_MAX_BODY_BYTES), EXTRA_HELD_BYTES,
                BODY_BYTES_HELD, this::decidesTheKey);
        Http11Component.register(getContext(), config.clientTimeoutMs(), heldBodies);
        // The consumer writes no answer itself (sync=false): whatever fails outside the balancer's
        // try block still gets one, or the client would wait forever.
        onException(Exception.class).handled(true).process(answers::internalError);

        var tried = from(consumerUri())
                .routeId(ROUTE_ID)
                .process(this::accept)
                .doTry();
        LoadBalanceDefinition balance = balancer == null ? tried.loadBalance().roundRobin() : tried.loadBalance(balancer);
        for (String url : config.agentUrls()) {
            String name = config.agentNames().get(url);
            if (name != null && balancer != null) {
                balancer.nameAgent(url, name);
            }
            agentUrlById.put(name != null ? name : url, url);
            balance.to(agentUri(url));
        }
        balance.end()
                    .process(answers::writeHeldAnswer)
                .endDoTry()
                .doCatch(AgentCallCancelledException.class)
                    .process(answers::cancelled)
                .doCatch(SessionRejectedException.class)
                    .process(answers::sessionRejected)
                .doCatch(AgentsBusyException.class)
                    .process(answers::allBusy)
                .doCatch(NoAgentAvailableException.class)
                    .process(answers::noAgent)
                .doCatch(Exception.class)
                    .process(answers::badGateway)
                .end();

        getContext().addStartupListener((context, alreadyStarted) -> {
            metrics();
            HealthCheckRegistry health = HealthCheckRegistry.get(context);
            if (health != null && balancer != null) {
                AgentsReadinessCheck check = new AgentsReadinessCheck(balancer, fleet == null ? null : fleet.describe(),
                        fleet == null ? () -> null : fleet::problem, this::agentUrl);
                if (noneAcceptedAtStart) {
                    check.unprovenAtStart(() -> config.agentUrls().stream()
                            .anyMatch(url -> EmbeddedAgents.answers(url, EmbeddedAgents.DEFAULT_PROBE_TIMEOUT_MS)),
                            System::nanoTime);
                }
                health.register(check);
            }
            if (fleet != null && balancer != null) {
                context.addService(fleet, true, true);
                fleet.attach(balancer, context, agent -> {
                    String url = DemoFleet.url(agent);
                    agentUrlById.put(agent.name(), url);
                    return agentUri(url);
                });
            }
            LOG.info("Proxy on http://{}:{}/process/{req_id}?user_id=N (and /v1/*, /mcp, /a2a) with strategy {} over {}{}, metrics {}",
                    ServerPorts.uriHost(config.host()), config.port(), strategyName(), NameList.of(config.agentUrls()),
                    fleet == null ? "" : " (agents from " + fleet.describe() + ")", metrics == null ? "off" : "on");
        });
    }

    /**
     * Logs one WARN line naming the agents that accept no TCP connection now (each probed for
     * {@value EmbeddedAgents#DEFAULT_PROBE_TIMEOUT_MS} ms), and whether none does; the demo calls it
     * at start. A probe is a connection opened and closed, nothing sent.
     *
     * @return the agent URLs that did not accept
     */
    public static List<String> logSilentAgents(List<String> agentUrls) {
        List<String> silent = agentUrls.stream()
                .filter(url -> !EmbeddedAgents.answers(url, EmbeddedAgents.DEFAULT_PROBE_TIMEOUT_MS)).toList();
        if (!silent.isEmpty()) {
            LOG.warn("At start {} of {} agents accept no connection: {}{}", silent.size(), agentUrls.size(), NameList.of(silent),
                    silent.size() == agentUrls.size() ? " (none does: requests get 503 until one answers)" : "");
        }
        return silent;
    }

    /** Answers 400, 404 and 405 itself; hands a proxied request to the balancer with its {@link NettyDownstream}. */
    private void accept(Exchange exchange) {
        Message in = exchange.getMessage();
        FullHttpRequest received = in instanceof NettyHttpMessage netty ? netty.getHttpRequest() : null;
        ChannelHandlerContext ctx = in.getHeader(NettyConstants.NETTY_CHANNEL_HANDLER_CONTEXT, ChannelHandlerContext.class);
        if (received == null || ctx == null) {
            throw new IllegalStateException("the proxy route needs the " + Http11Component.SCHEME + " consumer");
        }
        String method = received.method().name();
        String hostProblem = RequestTarget.hostProblem(received.headers().getAll(HttpHeaderNames.HOST));
        ProxyRequest request = hostProblem != null ? ProxyRequest.badRequest(hostProblem)
                : ProxyRequest.parse(method, received.uri());
        exchange.setProperty(REQUEST_PROPERTY, request);
        String target = request.rawQuery() == null ? request.rawPath() : request.rawPath() + "?" + request.rawQuery();
        NettyDownstream down = NettyDownstream.install(exchange, ctx.channel(), received, target, clientAddress(in),
                ClientBodyRest.of(received));
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                record(done);
            }
        });
        switch (request.kind()) {
            case BAD_REQUEST -> {
                LOG.debug("Answered 400: {}", LogText.escape(request.problem()));
                ProxyAnswers.reply(exchange, 400, "bad request", request.problem(), Map.of());
                exchange.setRouteStop(true);
            }
            case NOT_FOUND -> {
                LOG.debug("Answered 404: no route for {}", LogText.escape(request.rawPath()));
                ProxyAnswers.reply(exchange, 404, "not found", "no route for " + request.rawPath(), Map.of());
                exchange.setRouteStop(true);
            }
            case METHOD_NOT_ALLOWED -> {
                LOG.debug("Answered 405: {} {}", method, LogText.escape(request.rawPath()));
                ProxyAnswers.reply(exchange, 405, "method not allowed", method + " is not allowed, use one of " + FORWARDED_METHODS,
                        Map.of("Allow", FORWARDED_METHODS));
                exchange.setRouteStop(true);
            }
            case PROXY -> {
                exchange.setProperty(START_PROPERTY, System.nanoTime());
                in.removeHeaders("*");
                in.setBody(null);
                if (keyed || balancer != null && balancer.getMaxInFlightPerAgent() > 0) {
                    // Keys (header:<name>, MCP's mirrored headers) and the queue's tenant and
                    // priority read the client's headers; Camel's own names are never taken from it.
                    // The first value of a repeated header is the one read; MCP's are read on /mcp only.
                    for (Map.Entry<String, String> header : received.headers()) {
                        String name = header.getKey();
                        if (!name.regionMatches(true, 0, "Camel", 0, 5) && !name.regionMatches(true, 0, "org.apache.camel", 0, 16)
                                && !name.regionMatches(true, 0, MCP_HEADERS, 0, MCP_HEADERS.length()) && in.getHeader(name) == null) {
                            in.setHeader(name, header.getValue());
                        }
                    }
                    in.removeHeader(REQUEST_ID_HEADER);
                    // The client's user_id header is the key, as the strategies' default; the query's, set below, wins.
                } else {
                    // What makes a POST safe to hedge or send twice, for every strategy.
                    List<String> idempotencyKeys = received.headers().getAll(AgentLb.IDEMPOTENCY_KEY_HEADER);
                    if (AgentLb.isIdempotencyKey(idempotencyKeys)) {
                        in.setHeader(AgentLb.IDEMPOTENCY_KEY_HEADER, idempotencyKeys.get(0));
                    }
                }
                boolean mcp = ProxyRequest.isMcp(request.rawPath());
                if (mcp) {
                    // MCP's headers (keys, long-lived streams): each read only when sent once, as the
                    // server reads one value and a repeated header could steer the balancer by the other.
                    for (String name : received.headers().names()) {
                        List<String> values;
                        if (name.regionMatches(true, 0, MCP_HEADERS, 0, MCP_HEADERS.length())
                                && (values = received.headers().getAll(name)).size() == 1) {
                            in.setHeader(name, values.get(0));
                        }
                    }
                }
                if (mcp && "GET".equals(method)) {
                    // A GET asking for an event stream (MCP 2024-11-05's GET /sse) is a long-lived stream: the balancer reads Accept.
                    List<String> accept = received.headers().getAll("Accept");
                    if (!accept.isEmpty()) {
                        in.setHeader("Accept", String.join(",", accept));
                    }
                }
                if (readsBodies() && received.headers().contains(Exchange.CONTENT_LENGTH)) {
                    // Whether the body held is the whole body (A2A tasks, MCP handles: a call held in part is refused).
                    in.setHeader(Exchange.CONTENT_LENGTH, received.headers().get(Exchange.CONTENT_LENGTH));
                }
                in.setHeader(Exchange.HTTP_METHOD, method);
                if (request.requestId() != null) {
                    in.setHeader(REQUEST_ID_HEADER, request.requestId());
                }
                if (request.userId() != null && !request.userId().isEmpty()) {
                    in.setHeader(USER_ID_HEADER, request.userId());
                }
                // What keys and learned sessions read: the session headers, and the body by reference
                // (a key may read it, A2A tasks do).
                for (String header : sessionHeaders) {
                    if (!mcp && header.regionMatches(true, 0, MCP_HEADERS, 0, MCP_HEADERS.length())
                            && !header.equalsIgnoreCase(balancer == null ? null : balancer.getSessionHeader())) {
                        continue; // Mcp-Session-Id off /mcp: no key, nor a GET's long-lived stream, unless sessions use it
                    }
                    String value = received.headers().get(header);
                    if (value != null) {
                        in.setHeader(header, value);
                    }
                }
                if (keyed || readsBodies()) {
                    in.setBody(down.bodyView());
                }
            }
            default -> throw new IllegalStateException("unexpected kind " + request.kind());
        }
    }

    /** Whether the balancer reads request bodies: A2A tasks or MCP handles (named, or by a {@code mcp-param:} key) are on. */
    private boolean readsBodies() {
        return balancer != null && (balancer.isSessionA2aTasks() || !balancer.getSessionMcpHandles().isEmpty()
                || balancer instanceof KeySettings keyed && keyed.getKeys().toLowerCase(java.util.Locale.ROOT).contains("mcp-param:"));
    }

    /** The client's IP address, null if unknown. */
    private static String clientAddress(Message in) {
        Object address = in.getHeader(NettyConstants.NETTY_REMOTE_ADDRESS);
        return address instanceof InetSocketAddress socket && socket.getAddress() != null
                ? socket.getAddress().getHostAddress() : null;
    }

    private void record(Exchange exchange) {
        ProxyMetrics current = metrics();
        Long start = exchange.getProperty(START_PROPERTY, Long.class);
        if (current == null || start == null) {
            return;
        }
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String strategy = exchange.getProperty(io.github.agentlb.camel.AgentLb.STRATEGY_PROPERTY, strategyName(),
                String.class);
        // Camel's own balancers set no agent property of ours: the agent endpoint's address, which each call sets.
        String agent = agentUrl(exchange.getProperty(io.github.agentlb.camel.AgentLb.AGENT_PROPERTY,
                exchange.getProperty(AgentProducer.AGENT_ADDRESS_PROPERTY), String.class));
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
                        if (heldBodies != null) {
                            metrics.bindBodies(heldBodies);
                        }
                        Http11Component server = getContext().getComponent(Http11Component.SCHEME, Http11Component.class);
                        if (server != null) {
                            metrics.bindRefusals(server.refusals());
                        }
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
