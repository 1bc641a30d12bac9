package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.http.ScriptedAgent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hedged requests through the demo proxy with a strategy that reads no header of the client's
 * ({@code rr}, no queue): a POST with {@code Idempotency-Key} is hedged as documented, a POST
 * without one is not.
 */
@Tag("e2e")
@Timeout(60)
class HedgedProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** Two agents; the first call either gets is held until released, every later one is answered at once with the agent's name. */
    private record Fleet(ScriptedAgent a1, ScriptedAgent a2, CountDownLatch release, AtomicInteger calls) implements AutoCloseable {
        static Fleet start() throws Exception {
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger calls = new AtomicInteger();
            return new Fleet(agent("A1", release, calls), agent("A2", release, calls), release, calls);
        }

        private static ScriptedAgent agent(String name, CountDownLatch release, AtomicInteger calls) throws Exception {
            return ScriptedAgent.start((exchange, request) -> {
                if (calls.incrementAndGet() == 1) {
                    release.await(30, TimeUnit.SECONDS);
                }
                byte[] body = name.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            });
        }

        @Override
        public void close() {
            release.countDown();
            a1.close();
            a2.close();
        }
    }

    private static AgentLoadBalancerSupport hedging() {
        AgentLoadBalancerSupport rr = Strategies.create("rr");
        rr.setHedgePercentile(0);
        rr.setHedgeDelay(Duration.ofMillis(200));
        return rr;
    }

    private HttpResponse<String> post(DemoProxy proxy, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/process/job?user_id=1"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).timeout(TIMEOUT);
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aPostWithAnIdempotencyKeyIsHedged() throws Exception {
        try (Fleet fleet = Fleet.start();
                DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                        .agentUrls(fleet.a1().baseUrl(), fleet.a2().baseUrl()).strategy("rr").build(), HedgedProxyTest::hedging)) {
            HttpResponse<String> answer = post(proxy, "Idempotency-Key", "k1");
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(fleet.calls().get()).as("the held call and its hedge").isEqualTo(2);
            assertThat(fleet.release().getCount()).as("answered by the hedge, the first call still held").isEqualTo(1);
        }
    }

    @Test
    void aPostWithoutAnIdempotencyKeyIsNotHedged() throws Exception {
        try (Fleet fleet = Fleet.start();
                DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                        .agentUrls(fleet.a1().baseUrl(), fleet.a2().baseUrl()).strategy("rr").build(), HedgedProxyTest::hedging)) {
            Thread thread = new Thread(() -> {
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                fleet.release().countDown();
            });
            thread.start();
            HttpResponse<String> answer = post(proxy);
            thread.join();
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(fleet.calls().get()).as("one call, never hedged").isEqualTo(1);
        }
    }
}
