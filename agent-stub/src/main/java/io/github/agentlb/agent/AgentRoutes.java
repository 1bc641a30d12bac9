package io.github.agentlb.agent;

import java.util.Map;
import java.util.Objects;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's HTTP routes on one netty-http consumer:
 * <ul>
 *   <li>{@code GET /process/{req_id}?user_id=N}: 200 JSON {@link ProcessResponse} after the
 *       service delay, with the load headers {@code X-Agent-Utilization}, {@code X-Agent-Cpu},
 *       {@code X-Agent-Memory} (see {@link LoadSnapshot});</li>
 *   <li>{@code GET /health}: 200 {@code {"status":"UP","agent_id":...}};</li>
 *   <li>other methods on those paths: 405 with {@code Allow: GET}; other paths: 404;
 *       any failure: 500. Every reply is JSON; no stack trace reaches the client.</li>
 * </ul>
 *
 * <p>One consumer with {@code matchOnUriPrefix} takes every path so that 404 and 405 are JSON
 * too (netty-http's own are empty). It runs on Netty's I/O threads
 * ({@code usingExecutorService=false}) because nothing in the route blocks.
 *
 * <p>Use it in your own CamelContext, or let {@link StubAgent} do so. A port of 0 binds an
 * ephemeral port nobody learns; resolve it first as {@link StubAgent} does.
 */
public class AgentRoutes extends RouteBuilder {

    private static final Logger LOG = LoggerFactory.getLogger(AgentRoutes.class);

    private final AgentConfig config;
    private final AgentService service;

    /** Routes for one agent. */
    public AgentRoutes(AgentConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.service = new AgentService(config);
    }

    /** The {@code /process} service, for its counters and load. */
    public AgentService service() {
        return service;
    }

    /** The HTTP endpoint URI of the consumer. */
    public String endpointUri() {
        return "netty-http:http://" + config.host() + ":" + config.port()
                + "/?matchOnUriPrefix=true&usingExecutorService=false&muteException=true";
    }

    /** The base URL clients use, e.g. {@code http://127.0.0.1:8081}. */
    public String baseUrl() {
        return "http://" + config.host() + ":" + config.port();
    }

    @Override
    public void configure() throws Exception {
        service.setCamelContext(getContext());

        onException(Exception.class)
                .handled(true)
                .process(this::internalError);

        from(endpointUri())
                .routeId("agent-" + config.agentId())
                .process(AgentRoutes::classify)
                .choice()
                    .when(kind(AgentRequest.Kind.PROCESS)).process(service)
                    .when(kind(AgentRequest.Kind.HEALTH)).process(this::health)
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
     * Reads method, path and query, then drops every inbound header: netty-http would echo
     * them (User-Agent, query parameters) back as response headers otherwise.
     */
    private static void classify(Exchange exchange) {
        Message in = exchange.getMessage();
        AgentRequest request = AgentRequest.classify(
                in.getHeader(Exchange.HTTP_METHOD, String.class),
                in.getHeader(Exchange.HTTP_URI, String.class),
                in.getHeader(Exchange.HTTP_RAW_QUERY, String.class));
        exchange.setProperty(AgentService.REQUEST, request);
        exchange.setProperty("agentlb.path", in.getHeader(Exchange.HTTP_URI, String.class));
        exchange.setProperty("agentlb.method", in.getHeader(Exchange.HTTP_METHOD, String.class));
        in.removeHeaders("*");
        in.setBody(null);
    }

    private void health(Exchange exchange) throws Exception {
        HttpReplies.json(exchange, 200, Map.of("status", "UP", "agent_id", config.agentId()));
    }

    private void methodNotAllowed(Exchange exchange) throws Exception {
        exchange.getMessage().setHeader("Allow", "GET");
        HttpReplies.loadHeaders(exchange, service.reportedLoad());
        HttpReplies.error(exchange, 405, "method not allowed",
                Map.of("method", String.valueOf(exchange.getProperty("agentlb.method")), "allowed", "GET"));
    }

    private static void notFound(Exchange exchange) throws Exception {
        HttpReplies.error(exchange, 404, "not found",
                Map.of("path", String.valueOf(exchange.getProperty("agentlb.path"))));
    }

    private void internalError(Exchange exchange) throws Exception {
        Exception cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        LOG.warn("Agent {} failed a request: {}", config.agentId(), String.valueOf(cause));
        LOG.debug("Failure detail", cause);
        exchange.getMessage().removeHeaders("*");
        HttpReplies.error(exchange, 500, "internal error", Map.of());
    }
}
