package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.testing.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The YAML and XML routes of docs/using-the-strategies.md, loaded as written (only the route's port changed). */
class UsingTheStrategiesRoutesTest {

    private static final Path PAGE = Path.of("../docs/using-the-strategies.md");

    private static String example(String language) throws Exception {
        Matcher example = Pattern.compile("(?s)```" + language + "\\n(<camel>.*?|- (?:errorHandler|beans).*?)```")
                .matcher(Files.readString(PAGE));
        assertThat(example.find()).as(language).isTrue();
        return example.group(1);
    }

    /** End to end: each example's route listens on a free port. */
    @Test
    @Tag("e2e")
    void theYamlAndXmlExamplesConfigureTheBalancerTheyShow() throws Exception {
        for (String language : new String[] {"yaml", "xml"}) {
            int port = FreePorts.next();
            try (CamelContext context = new DefaultCamelContext()) {
                PluginHelper.getRoutesLoader(context).loadRoutes(ResourceHelper.fromString("page." + language,
                        example(language).replace(":8000/", ":" + port + "/")));
                context.start();

                ConsistentHashLB ch = context.getRegistry().lookupByNameAndType("ch", ConsistentHashLB.class);
                assertThat(ch.getKeyHeader()).as(language).isEqualTo("tenant");
                assertThat(ch.getVirtualNodes()).as(language).isEqualTo(200);
                assertThat(ch.getAgentIds()).as(language)
                        .containsExactly("http://localhost:8081", "http://localhost:8082");
            }
        }
    }

    /**
     * End to end: each example answers as the README's route does when no agent can take a request:
     * every agent resting after a 429 is a JSON 429 with {@code Retry-After}, a POST whose agent failed
     * after it was sent a JSON 502 (a GET goes on to every agent, then a JSON 503), every agent down a
     * JSON 503, never netty-http's 500 with a stack trace.
     */
    @Test
    @Tag("e2e")
    @Timeout(60)
    void theYamlAndXmlExamplesAnswerBusyFailedAndDownAgentsAsTheReadmeRouteDoes() throws Exception {
        for (String language : new String[] {"yaml", "xml"}) {
            try (SwitchableAgents agents = new SwitchableAgents(); CamelContext context = started(language, agents.ports())) {
                agents.answer((exchange, request) -> {
                    byte[] busy = "{\"error\":\"busy\"}".getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "application/json");
                    exchange.getResponseHeaders().set("Retry-After", "30");
                    exchange.sendResponseHeaders(429, busy.length);
                    exchange.getResponseBody().write(busy);
                });
                assertThat(send(context, "GET").statusCode()).as(language + ": the last agent's busy answer").isEqualTo(429);
                HttpResponse<String> resting = send(context, "GET");
                assertThat(resting.statusCode()).as(language + ": every agent resting").isEqualTo(429);
                assertThat(resting.body()).as(language).isEqualTo("{\"error\":\"agents busy\"}");
                assertThat(resting.headers().firstValue("Content-Type")).as(language).hasValue("application/json");
                assertThat(resting.headers().firstValue("Retry-After")).as(language).isPresent();
                assertThat(agents.calls()).as(language + ": no agent called while they rest").isEqualTo(2);
            }
            try (SwitchableAgents agents = new SwitchableAgents(); CamelContext context = started(language, agents.ports())) {
                agents.answer((exchange, request) -> {
                    throw new IOException("the agent closes the connection without an answer");
                });
                HttpResponse<String> failed = send(context, "POST");
                assertThat(failed.statusCode()).as(language + ": a POST whose agent failed after it was sent").isEqualTo(502);
                assertThat(failed.body()).as(language).isEqualTo("{\"error\":\"the agent failed or did not answer in time\"}");
                assertThat(failed.headers().firstValue("x-should-retry"))
                        .as(language + ": SDKs told not to send it again").hasValue("false");
                assertThat(agents.calls()).as(language + ": not re-sent").isEqualTo(1);
            }
            try (SwitchableAgents agents = new SwitchableAgents(); CamelContext context = started(language, agents.ports())) {
                agents.answer((exchange, request) -> {
                    throw new IOException("the agent closes the connection without an answer");
                });
                HttpResponse<String> failed = send(context, "GET");
                assertThat(failed.statusCode()).as(language + ": a GET whose every agent closed before the head").isEqualTo(503);
                assertThat(failed.body()).as(language).isEqualTo("{\"error\":\"no agent available\"}");
                assertThat(agents.calls()).as(language + ": a GET goes on to the next agent").isEqualTo(2);
            }
            try (CamelContext context = started(language, List.of(FreePorts.next(), FreePorts.next()))) {
                HttpResponse<String> none = send(context, "GET");
                assertThat(none.statusCode()).as(language + ": every agent down").isEqualTo(503);
                assertThat(none.body()).as(language).isEqualTo("{\"error\":\"no agent available\"}");
            }
        }
    }

    /**
     * End to end: every agent resting after a 503 without {@code Retry-After} is an outage, and each
     * example answers the requests that come meanwhile with a JSON 503 and {@code Retry-After}, as the
     * README's route does, not with the 429 that tells a client it sends too much.
     */
    @Test
    @Tag("e2e")
    @Timeout(60)
    void theYamlAndXmlExamplesAnswerEveryAgentUnavailableWithAJson503() throws Exception {
        for (String language : new String[] {"yaml", "xml"}) {
            try (SwitchableAgents agents = new SwitchableAgents(); CamelContext context = started(language, agents.ports())) {
                agents.answer((exchange, request) -> exchange.sendResponseHeaders(503, -1));
                assertThat(send(context, "GET").statusCode()).as(language + ": the last agent's own 503").isEqualTo(503);
                // An agent whose 1 s rest ended first (a starved machine) answers its 503 again and rests again.
                HttpResponse<String> resting;
                int tries = 0;
                int calls;
                do {
                    calls = agents.calls();
                    resting = send(context, "GET");
                    assertThat(resting.statusCode()).as(language + ": every agent resting after a 503").isEqualTo(503);
                } while (!resting.body().equals("{\"error\":\"agents unavailable\"}") && ++tries < 5);
                assertThat(resting.body()).as(language).isEqualTo("{\"error\":\"agents unavailable\"}");
                assertThat(resting.headers().firstValue("Content-Type")).as(language).hasValue("application/json");
                assertThat(resting.headers().firstValue("Retry-After")).as(language).isPresent();
                assertThat(agents.calls()).as(language + ": no agent called while they rest").isEqualTo(calls);
            }
        }
    }

    /** The example's route, started on a free port over agents on {@code agentPorts}; its port in property {@code port}. */
    private static CamelContext started(String language, List<Integer> agentPorts) throws Exception {
        int port = FreePorts.next();
        CamelContext context = new DefaultCamelContext();
        PluginHelper.getRoutesLoader(context).loadRoutes(ResourceHelper.fromString("page." + language,
                DocBlocks.onPorts(example(language), port, agentPorts.subList(0, 2))));
        context.getGlobalOptions().put("port", Integer.toString(port));
        context.start();
        return context;
    }

    private static HttpResponse<String> send(CamelContext context, String method) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + context.getGlobalOptions().get("port") + "/process/r1?user_id=1");
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                .method(method, "POST".equals(method) ? HttpRequest.BodyPublishers.ofString("{}") : HttpRequest.BodyPublishers.noBody())
                .header("Content-Type", "application/json").build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
