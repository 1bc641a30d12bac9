package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hedged requests through {@code agent:} children behind camel-netty-http's consumer, on loopback:
 * one agent that never answers, one that answers at once. A GET that reaches the silent agent is
 * hedged after 200 ms to the other; the client gets the other's answer, once, and the silent
 * agent's connection is closed (its call cancelled), as when a client leaves. End to end: real
 * sockets and time, bounded by the test's time limit.
 */
@Tag("e2e")
@Timeout(60)
class HedgedAgentCallsTest {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void theLosersCallIsClosedAndTheClientGetsOneAnswer() throws Exception {
        BlockingQueue<Map.Entry<String, AttemptOutcome>> outcomes = new LinkedBlockingQueue<>();
        CamelContext camel = new DefaultCamelContext();
        try (HangingAgent silent = new HangingAgent(""); ScriptedAgent echo = ScriptedAgent.echo()) {
            int port = FreePorts.next();
            RoundRobinLB balancer = new RoundRobinLB();
            balancer.setHedgeDelay(Duration.ofMillis(200));
            balancer.setHedgePercentile(0);
            balancer.setOutlierEjection(io.github.agentlb.core.health.OutlierEjection.disabled());
            balancer.addAttemptListener((strategy, agent, outcome, elapsed) -> outcomes.add(Map.entry(agent, outcome)));
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true")
                            .errorHandler(noErrorHandler())
                            .loadBalance(balancer)
                                .to("agent:" + silent.baseUrl() + "?firstByteTimeout=30s")
                                .to("agent:" + echo.baseUrl())
                            .end();
                }
            });
            camel.start();
            String base = "http://127.0.0.1:" + port;
            String silentId = balancer.getAgentIds().stream().filter(id -> id.contains(silent.baseUrl().substring(7)))
                    .findFirst().orElseThrow();

            // rr sends one of two GETs to the silent agent: that one is hedged to the echo agent.
            for (int i = 0; i < 2; i++) {
                long started = System.nanoTime();
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + "/process/h" + i))
                        .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
            }

            assertThat(silent.requested.await(10, TimeUnit.SECONDS)).as("the silent agent got a request").isTrue();
            assertThat(silent.closed.await(10, TimeUnit.SECONDS)).as("its call closed").isTrue();
            assertThat(echo.calls()).as("one direct call, one hedge").isEqualTo(2);
            assertThat(balancer.getHedgesSent()).isEqualTo(1);
            assertThat(balancer.getHedgesWon()).isEqualTo(1);
            Map.Entry<String, AttemptOutcome> lost = null;
            for (int i = 0; i < 3 && lost == null; i++) {
                Map.Entry<String, AttemptOutcome> outcome = outcomes.poll(10, TimeUnit.SECONDS);
                if (outcome != null && outcome.getKey().equals(silentId)) {
                    lost = outcome;
                }
            }
            assertThat(lost).as("the silent agent's attempt").isEqualTo(Map.entry(silentId, AttemptOutcome.CANCELLED));
        } finally {
            camel.stop();
        }
    }

    /**
     * A hedge whose agent answers 429 or 500 settles nothing: that answer is held back, the slow first
     * call runs on, and the client gets its 200 (no agent's answer of the two is cut).
     */
    @Test
    void aHedgeAnsweredBusyOrWithAnErrorIsHeldBackAndTheSlowCallAnswers() throws Exception {
        for (int status : new int[] {429, 500}) {
            hedgeAnsweredWith(status, 20);
            hedgeAnsweredWith(status, 70_000); // over what is held: the hedge's call fails, nothing of it passed on
        }
    }

    private void hedgeAnsweredWith(int status, int bodyBytes) throws Exception {
        CamelContext camel = new DefaultCamelContext();
        try (ScriptedAgent slow = ScriptedAgent.slow(800); ScriptedAgent failing = failing(status, bodyBytes)) {
            Hedging route = hedgingRoute(camel, slow.baseUrl(), failing.baseUrl());

            HttpResponse<String> response = send(route);

            assertThat(response.statusCode()).as("%d", status).isEqualTo(200);
            assertThat(failing.calls()).as("%d: the hedge was sent", status).isEqualTo(1);
            assertThat(route.balancer().getHedgesWon()).as("%d", status).isZero();
            assertThat(slow.calls()).as("%d", status).isEqualTo(1);
        } finally {
            camel.stop();
        }
    }

    /**
     * A busy or error answer over what is held back, when no other call of the hedged request runs
     * (the only agent), goes to the client whole, as without hedging, and its agent is not ejected.
     */
    @Test
    void aLargeErrorAnswerOfTheOnlyCallIsPassedOnWhole() throws Exception {
        CamelContext camel = new DefaultCamelContext();
        try (ScriptedAgent failing = failing(500, 70_000)) {
            Hedging route = hedgingRoute(camel, failing.baseUrl());
            RoundRobinLB balancer = route.balancer();

            HttpResponse<String> response = send(route);

            assertThat(response.statusCode()).isEqualTo(500);
            assertThat(response.body()).hasSize(70_012);
            assertThat(balancer.getAgentIds()).hasSize(1);
            assertThat(balancer.getHedgesSent()).isZero();
            assertThat(failing.calls()).isEqualTo(1);
        } finally {
            camel.stop();
        }
    }

    /** An agent answering {@code status} with a JSON body of about {@code bodyBytes} bytes and {@code Retry-After: 1}. */
    private static ScriptedAgent failing(int status, int bodyBytes) throws java.io.IOException {
        return ScriptedAgent.start((exchange, request) -> {
            byte[] body = ("{\"error\":\"" + "n".repeat(bodyBytes) + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Retry-After", "1");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        });
    }

    /** A started route hedging GETs after 100 ms over {@code agentUrls}, and how to call it. */
    private Hedging hedgingRoute(CamelContext camel, String... agentUrls) throws Exception {
        int port = FreePorts.next();
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setHedgeDelay(Duration.ofMillis(100));
        balancer.setHedgePercentile(0);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                var children = from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true")
                        .errorHandler(noErrorHandler())
                        .loadBalance(balancer);
                for (String url : agentUrls) {
                    children.to("agent:" + url);
                }
                children.end();
            }
        });
        camel.start();
        return new Hedging(balancer, URI.create("http://127.0.0.1:" + port + "/process/h"));
    }

    private record Hedging(RoundRobinLB balancer, URI uri) {
    }

    private HttpResponse<String> send(Hedging route) throws Exception {
        return client.send(HttpRequest.newBuilder(route.uri()).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
