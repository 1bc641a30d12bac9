package io.github.agentlb.demo;

import io.github.agentlb.testing.FreePorts;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.netty.http.NettyHttpMessage;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * A test agent on netty-http that records each request exactly as it arrived on the wire (request
 * target and headers) and answers with a fixed status, body and headers, including load headers.
 */
final class SpyAgent implements AutoCloseable {

    /** One request as the agent saw it. */
    record Seen(String method, String target, Map<String, List<String>> headers) {
        List<String> header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .findFirst().map(Map.Entry::getValue).orElse(List.of());
        }
    }

    private final DefaultCamelContext context = new DefaultCamelContext();
    private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
    private final int port;
    private volatile int status = 200;
    private volatile String body = "{\"agent_id\":\"SPY\"}";
    private volatile String contentType = "application/json";
    private volatile boolean echo;
    private final Map<String, Long> delayMsByTarget = new java.util.concurrent.ConcurrentHashMap<>();
    private static final String DELAY_PROPERTY = "spy.delayMs";
    private final Map<String, String> extraHeaders = new java.util.concurrent.ConcurrentHashMap<>();

    private SpyAgent(int port) {
        this.port = port;
    }

    static SpyAgent start() throws Exception {
        SpyAgent spy = new SpyAgent(FreePorts.next());
        spy.context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("netty-http:http://127.0.0.1:" + spy.port + "/?matchOnUriPrefix=true&usingExecutorService=false")
                        .process(spy::answer)
                        .delay(exchangeProperty(DELAY_PROPERTY)).asyncDelayed();
            }
        });
        spy.context.start();
        return spy;
    }

    private void answer(Exchange exchange) {
        Message in = exchange.getMessage();
        var request = ((NettyHttpMessage) in).getHttpRequest();
        Map<String, List<String>> headers = new java.util.LinkedHashMap<>();
        for (String name : request.headers().names()) {
            headers.put(name, request.headers().getAll(name));
        }
        seen.add(new Seen(request.method().name(), request.uri(), headers));
        exchange.setProperty(DELAY_PROPERTY, delayMsByTarget.getOrDefault(request.uri(), 0L));
        in.removeHeaders("*");
        in.setBody(echo ? request.uri() : body);
        in.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        in.setHeader(Exchange.CONTENT_TYPE, contentType);
        in.setHeader("X-Agent-Utilization", "0.5");
        in.setHeader("X-Agent-Cpu", "0.25");
        in.setHeader("X-Agent-Memory", "0.125");
        extraHeaders.forEach(in::setHeader);
    }

    SpyAgent answering(int status, String contentType, String body) {
        this.status = status;
        this.contentType = contentType;
        this.body = body;
        return this;
    }

    /** Adds a header to every answer. */
    SpyAgent withHeader(String name, String value) {
        extraHeaders.put(name, value);
        return this;
    }

    /** Answers with the request target as the body, with the configured status and type. */
    SpyAgent echoing() {
        this.echo = true;
        return this;
    }

    /** Answers requests for exactly {@code target} after {@code delayMs}, without holding a thread. */
    SpyAgent slow(String target, long delayMs) {
        delayMsByTarget.put(target, delayMs);
        return this;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** The next request the agent received, waiting up to 5 s. */
    Seen next() throws InterruptedException {
        Seen next = seen.poll(5, TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("the spy agent received no request");
        }
        return next;
    }

    int pending() {
        return seen.size();
    }

    @Override
    public void close() {
        context.stop();
    }
}
