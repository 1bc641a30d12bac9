package io.github.agentlb.camel.http;

import static org.apache.camel.builder.Builder.constant;
import static org.apache.camel.builder.Builder.simple;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a route changes of the request before its {@code loadBalance()} is what the agent gets, as
 * with Camel's own HTTP producers: headers set, changed or removed, a body set on the message; what it
 * leaves alone goes as the client sent it (a query parameter, which camel-netty-http's consumer also
 * maps to a header, stays in the target only). End to end: real sockets.
 */
@Tag("e2e")
@Timeout(60)
class RouteEditsTest {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private CamelContext camel;

    @AfterEach
    void stop() {
        if (camel != null) {
            camel.stop();
        }
    }

    private String route(String agentUrl, Consumer<RouteDefinition> before) throws Exception {
        return route(agentUrl, "&bridgeEndpoint=true", before);
    }

    private String route(String agentUrl, String options, Consumer<RouteDefinition> before) throws Exception {
        int port = FreePorts.next();
        camel = new DefaultCamelContext();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                RouteDefinition route = from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true" + options);
                route.errorHandler(noErrorHandler());
                before.accept(route);
                route.loadBalance(new RoundRobinLB()).to("agent:" + agentUrl).end();
            }
        });
        camel.start();
        return "http://127.0.0.1:" + port;
    }

    /** What a test checks of one route: its agent and its base URL. */
    private interface RouteCheck {
        void check(ScriptedAgent agent, String base) throws Exception;
    }

    /** Runs {@code check} on a route with each of {@code befores} in turn, each over an agent of its own. */
    private void eachRoute(List<Consumer<RouteDefinition>> befores, RouteCheck check) throws Exception {
        for (Consumer<RouteDefinition> before : befores) {
            try (ScriptedAgent agent = ScriptedAgent.echo()) {
                check.check(agent, route(agent.baseUrl(), before));
            } finally {
                stop();
                camel = null;
            }
        }
    }

    private HttpResponse<String> post(String url, String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void headersTheRouteSetsChangesOrRemovesAreWhatTheAgentGets() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), r -> r.setHeader("Authorization", constant("Bearer the-agents-key"))
                    .removeHeader("X-Custom").setHeader("X-Tenant", constant("t-7")).removeHeader("Retry-After"));

            HttpResponse<String> answer = post(base + "/v1/chat/completions?user_id=42", "{\"a\":1}",
                    "Authorization", "Bearer client-key", "X-Custom", "secret", "Content-Type", "application/json",
                    "X-Kept", "as sent", "Retry-After", "5");

            assertThat(answer.statusCode()).isEqualTo(200);
            ScriptedAgent.Received got = agent.next();
            assertThat(got.header("Authorization")).isEqualTo("Bearer the-agents-key");
            assertThat(got.header("X-Custom")).isNull();
            assertThat(got.header("X-Tenant")).isEqualTo("t-7");
            assertThat(got.header("Retry-After")).isNull();
            assertThat(got.header("X-Kept")).isEqualTo("as sent");
            assertThat(got.header("Content-Type")).isEqualTo("application/json");
            assertThat(got.header("user_id")).as("a query parameter stays in the target").isNull();
            assertThat(got.target()).isEqualTo("/v1/chat/completions?user_id=42");
            assertThat(got.header("CamelHttpMethod")).isNull();
            assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        }
    }

    /** A route that changes nothing sends the client's header lines as they came: repeated ones, and values with commas. */
    @Test
    void headersTheRouteLeavesAloneGoAsSent() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), r -> r.setProperty("seen", constant(true)));

            post(base + "/x?a=1&b=2", "{}", "X-Multi", "one", "X-Multi", "two", "If-Modified-Since",
                    "Tue, 15 Nov 1994 08:12:31 GMT", "Accept", "application/json, text/event-stream");

            ScriptedAgent.Received got = agent.next();
            assertThat(got.headers().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("X-Multi"))
                    .findFirst().orElseThrow().getValue()).containsExactly("one", "two");
            assertThat(got.header("If-Modified-Since")).isEqualTo("Tue, 15 Nov 1994 08:12:31 GMT");
            assertThat(got.header("Accept")).isEqualTo("application/json, text/event-stream");
            assertThat(got.header("a")).isNull();
            assertThat(got.target()).isEqualTo("/x?a=1&b=2");
        }
    }

    /** A name the client repeats in another case is one header to camel-netty-http's consumer: its lines go once each. */
    @Test
    void aNameRepeatedInAnotherCaseGoesOnceALine() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), r -> r.setProperty("seen", constant(true)));

            RawHttp.talk(base, "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-a: 1\r\nX-A: 2\r\nx-A: 3\r\n\r\n");

            ScriptedAgent.Received got = agent.next();
            assertThat(got.headers().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("X-A"))
                    .flatMap(e -> e.getValue().stream()).toList()).containsExactly("1", "2", "3");
        }
    }

    /**
     * A query parameter never reaches the agent as a header, whatever its name's spelling (percent-encoded,
     * another case), nor beside the client's header of that name when the route replaced the message.
     */
    @Test
    void aQueryParameterNeverGoesAsAHeader() throws Exception {
        eachRoute(List.<Consumer<RouteDefinition>>of(r -> r.setProperty("seen", constant(true)),
                r -> r.transform(simple("wrapped:${body}"))), (agent, base) -> {

            post(base + "/x?X%2DQ=smuggled&x-b=smuggled&X-A=smuggled", "hello", "X-A", "real");

            ScriptedAgent.Received got = agent.next();
            assertThat(got.header("X-Q")).isNull();
            assertThat(got.header("X-B")).isNull();
            assertThat(got.headers().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("X-A"))
                    .flatMap(e -> e.getValue().stream()).toList()).containsExactly("real");
        });
    }

    /** A header the route sets is the route's: the client's {@code Connection} cannot name it away. */
    @Test
    void aHeaderTheRouteSetsIsNotDroppedByTheClientsConnection() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), r -> r.setHeader("Authorization", constant("Bearer the-agents-key")));

            RawHttp.talk(base, "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close, Authorization, X-Hop\r\n"
                    + "Authorization: Bearer client\r\nX-Hop: h\r\n\r\n");

            ScriptedAgent.Received got = agent.next();
            assertThat(got.header("Authorization")).isEqualTo("Bearer the-agents-key");
            assertThat(got.header("X-Hop")).isNull();
        }
    }

    /** What the route sets stays, whatever the client's Connection, query or form body say; what it leaves alone goes. */
    @Test
    void neitherConnectionNorQueryNorFormTakeAwayWhatTheRouteSetsOrWhatTheClientSent() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), r -> r.setHeader("Authorization", constant("Bearer ROUTE")));

            RawHttp.talk(base, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close, Authorization\r\n\r\n");
            assertThat(agent.next().header("Authorization")).as("named by Connection").isEqualTo("Bearer ROUTE");
            RawHttp.talk(base, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\nConnection: x-y, aUtHoRiZaTiOn\r\n"
                    + "X-Y: y\r\n\r\n");
            ScriptedAgent.Received mixed = agent.next();
            assertThat(mixed.header("Authorization")).as("named in another case, on a second line").isEqualTo("Bearer ROUTE");
            assertThat(mixed.header("X-Y")).isNull();
            RawHttp.talk(base, "GET /a?Authorization=Bearer+ROUTE HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    + "Authorization: c\r\n\r\n");
            assertThat(agent.next().header("Authorization")).as("the query's value").isEqualTo("Bearer ROUTE");
            post(base + "/f", "X-A=1&Authorization=Bearer+ROUTE", "X-A", "1", "Content-Type", "application/x-www-form-urlencoded");
            ScriptedAgent.Received form = agent.next();
            assertThat(form.header("X-A")).as("bridgeEndpoint: a form's fields are no headers").isEqualTo("1");
            assertThat(form.header("Authorization")).isEqualTo("Bearer ROUTE");
        }
    }

    /** A replaced message's headers are the client's, once a line, whatever the case of their names; the query is no Connection. */
    @Test
    void aReplacedMessageSendsTheClientsHeadersOnceALine() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), r -> r.transform(simple("x:${body}")));

            RawHttp.talk(base, "POST /t?Connection=X-Kept HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Test: a\r\n"
                    + "x-test: b\r\nX-Kept: k\r\nContent-Length: 3\r\n\r\nabc");

            ScriptedAgent.Received got = agent.next();
            assertThat(got.headers().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("X-Test"))
                    .flatMap(e -> e.getValue().stream()).toList()).containsExactly("a", "b");
            assertThat(got.header("X-Kept")).isEqualTo("k");
            assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo("x:abc");
        }
    }

    @Test
    void aBodyTheRouteSetsIsWhatTheAgentGetsWithItsLength() throws Exception {
        String replaced = "{\"model\":\"the-route's\",\"messages\":[]}";
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), r -> r.process(exchange -> exchange.getIn().setBody(replaced)));

            post(base + "/v1/chat/completions", "{\"a\":1}", "Content-Type", "application/json");

            ScriptedAgent.Received got = agent.next();
            assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo(replaced);
            assertThat(got.header("Content-Length")).isEqualTo(String.valueOf(replaced.length()));
        }
    }

    /** A body the route sets as a stream (as a data format's output is) is what the agent gets: Camel caches such a stream too. */
    @Test
    void aBodyTheRouteStreamsOrMarshalsIsWhatTheAgentGets() throws Exception {
        eachRoute(List.<Consumer<RouteDefinition>>of(
                r -> r.process(e -> e.getIn().setBody(new java.io.ByteArrayInputStream("stream-body".getBytes(StandardCharsets.UTF_8)))),
                r -> r.setBody(constant("stream-body")).convertBodyTo(java.io.InputStream.class)), (agent, base) -> {

            post(base + "/x", "client-body", "Content-Type", "text/plain");

            assertThat(new String(agent.next().body(), StandardCharsets.UTF_8)).isEqualTo("stream-body");
        });
    }

    /** A replaced message keeps no header the client's {@code Connection} names (hop by hop, as every such header). */
    @Test
    void aReplacedMessageSendsNoHeaderTheClientsConnectionNames() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), r -> r.setBody(simple("${body}-and-more")));

            String wire = RawHttp.talk(base, "POST /x HTTP/1.1\r\nHost: x\r\nConnection: close, X-Hop\r\nX-Hop: secret-hop\r\n"
                    + "X-Kept: yes\r\nContent-Length: 4\r\n\r\nbody");

            assertThat(wire).startsWith("HTTP/1.1 200");
            ScriptedAgent.Received got = agent.next();
            assertThat(got.header("X-Hop")).isNull();
            assertThat(got.header("X-Kept")).isEqualTo("yes");
        }
    }

    /**
     * Without {@code bridgeEndpoint=true} camel-netty-http's consumer makes a form body's fields headers
     * too, which a replaced message could not tell from the route's own: such a call is refused, naming
     * the option, rather than send a client's {@code Authorization=...} field as a header.
     */
    @Test
    void aReplacedMessageFromAConsumerThatMapsFormFieldsIsRefused() throws Exception {
        try (ScriptedAgent agent = ScriptedAgent.echo()) {
            String base = route(agent.baseUrl(), "", r -> r.transform(constant("{\"x\":1}")));

            HttpResponse<String> answer = post(base + "/f", "a=1&Authorization=Bearer%20forged",
                    "Content-Type", "application/x-www-form-urlencoded");

            assertThat(answer.statusCode()).isEqualTo(500);
            assertThat(answer.body()).contains("bridgeEndpoint=true");
            assertThat(agent.calls()).isZero();
        }
    }

    /**
     * {@code setBody} and {@code transform} give the exchange a message of their own, which no longer
     * holds the consumer's request: the agent gets the route's method, target, headers and body.
     */
    @Test
    void aMessageTheRouteReplacedIsWhatTheAgentGets() throws Exception {
        eachRoute(List.<Consumer<RouteDefinition>>of(
                r -> r.setBody(simple("${body}-and-more")),
                r -> r.transform(simple("${body}-and-more")).setHeader("X-Set", constant("after"))), (agent, base) -> {

            HttpResponse<String> answer = post(base + "/v1/x?user_id=42", "body", "X-Kept", "as sent");

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            ScriptedAgent.Received got = agent.next();
            assertThat(got.method()).isEqualTo("POST");
            assertThat(got.target()).isEqualTo("/v1/x?user_id=42");
            assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo("body-and-more");
            assertThat(got.header("X-Kept")).isEqualTo("as sent");
            assertThat(got.header("user_id")).isNull();
            assertThat(got.header("CamelHttpUri")).isNull();
            assertThat(got.headers().keySet()).noneMatch(name -> name.toLowerCase().startsWith("camel"));
        });
    }
}
