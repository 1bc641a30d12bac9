package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pooled keep-alive connections to an agent that never closes idle connections itself: closed by
 * the proxy once idle for {@code poolIdleTimeout}, and at once when the agent left the balancer and
 * its last request ended, unless another child still calls it through the same endpoint. End to
 * end: real sockets and time; one client connection, so every call runs on one event loop.
 */
@Tag("e2e")
@Timeout(60)
class PooledConnectionsTest {

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final RoundRobinLB balancer = new RoundRobinLB();
    private CamelContext camel;
    private String base;

    @AfterEach
    void stop() {
        if (camel != null) {
            camel.stop();
        }
    }

    /** A route whose balancer starts with the one child {@code agentUri}. */
    private void route(String agentUri) throws Exception {
        route(agentUri, null);
    }

    /** As {@link #route(String)}, with {@code registry} (when not null) as the context's meter registry. */
    private void route(String agentUri, Object registry) throws Exception {
        int port = FreePorts.next();
        camel = new DefaultCamelContext();
        if (registry != null) {
            camel.getRegistry().bind(AgentComponent.METER_REGISTRY_NAME, registry);
        }
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("netty-http:http://127.0.0.1:" + port + "/?matchOnUriPrefix=true")
                        .loadBalance(balancer).to(agentUri).end();
            }
        });
        camel.start();
        base = "http://127.0.0.1:" + port;
    }

    private CompletableFuture<HttpResponse<String>> get(String path) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aConnectionIdleForThePoolIdleTimeoutIsClosedByTheProxy() throws Exception {
        try (KeepAliveAgent agent = KeepAliveAgent.answering()) {
            route("agent:" + agent.baseUrl() + "?poolIdleTimeout=300ms");
            long sent = System.nanoTime();

            assertThat(get("/process/p1").get(20, TimeUnit.SECONDS).body()).isEqualTo("ok");

            Integer closed = agent.closed.poll(10, TimeUnit.SECONDS);
            long idleMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
            assertThat(closed).as("closed by the proxy").isEqualTo(agent.requestPorts.get(0));
            assertThat(idleMs).as("not before the timeout").isGreaterThanOrEqualTo(300);
        }
    }

    @Test
    void aRemovedAgentsPooledConnectionClosesOnceItsLastRequestEndedUnlessAnotherChildUsesTheEndpoint()
            throws Exception {
        try (KeepAliveAgent first = KeepAliveAgent.answering(); KeepAliveAgent agent = KeepAliveAgent.holding()) {
            route("agent:" + first.baseUrl());
            String endpoint = "agent:" + agent.baseUrl();
            balancer.addAgent("a1", endpoint, 1.0);
            balancer.addAgent("a2", endpoint, 1.0);
            balancer.removeAgent(first.baseUrl());
            agent.gate.release();
            assertThat(get("/process/p1").get(20, TimeUnit.SECONDS).body()).isEqualTo("ok");
            int pooled = agent.requestPorts.get(0);

            balancer.removeAgent("a1");
            agent.gate.release();
            assertThat(get("/process/p2").get(20, TimeUnit.SECONDS).body()).isEqualTo("ok");
            assertThat(agent.requestPorts).as("a2 reuses the connection a1 left in the pool").containsExactly(pooled, pooled);

            CompletableFuture<HttpResponse<String>> last = get("/process/p3");
            for (int i = 0; i < 400 && agent.requestPorts.size() < 3; i++) {
                Thread.sleep(25); // until the agent holds the request
            }
            balancer.removeAgent("a2");
            assertThat(agent.closed.poll(300, TimeUnit.MILLISECONDS)).as("open while its last request is in flight").isNull();
            agent.gate.release();

            assertThat(last.get(20, TimeUnit.SECONDS).body()).isEqualTo("ok");
            assertThat(agent.closed.poll(10, TimeUnit.SECONDS)).as("closed once that request ended").isEqualTo(pooled);
            assertThat(agent.requestPorts).containsExactly(pooled, pooled, pooled);
        }
    }

    /** The endpoint's meters of an agent that left: removed once its last request ended, as its connections close. */
    @Test
    void aRemovedAgentsMetersAreRemovedOnceItsLastRequestEnded() throws Exception {
        try (KeepAliveAgent first = KeepAliveAgent.answering(); KeepAliveAgent agent = KeepAliveAgent.answering()) {
            io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
            route("agent:" + first.baseUrl(), registry);
            balancer.addAgent("a2", "agent:" + agent.baseUrl(), 1.0);
            balancer.removeAgent(first.baseUrl());
            assertThat(get("/process/p1").get(20, TimeUnit.SECONDS).body()).isEqualTo("ok");
            assertThat(registry.find(AgentMetrics.ANSWERS).tag(AgentMetrics.TAG_AGENT, agent.baseUrl()).meters())
                    .as("a2's answers by status class").hasSize(5);

            balancer.removeAgent("a2");

            // The client may have p1's whole answer before the call has ended (its end is recorded after
            // the last bytes are written): the meters go when it has.
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry.getMeters())
                    .as("no meter of the agent that left")
                    .noneMatch(m -> agent.baseUrl().equals(m.getId().getTag(AgentMetrics.TAG_AGENT))));
        }
    }
}
