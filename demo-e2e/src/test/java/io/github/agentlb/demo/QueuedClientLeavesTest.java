package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.camel.http.HangingAgent;
import io.github.agentlb.camel.http.RawHttp;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that leaves while its request waits in the balancer's queue (every agent at its
 * {@code maxInFlightPerAgent}): the proxy takes it out of the queue at once, counted as left, and
 * no agent ever gets its request.
 */
@Tag("e2e")
@Timeout(60)
class QueuedClientLeavesTest {

    @Test
    void aClientThatLeavesWhileQueuedIsGoneFromTheQueueAtOnce() throws Exception {
        try (HangingAgent agent = new HangingAgent("");
                DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                        .agentUrls(agent.baseUrl()).strategy("rr").build(), () -> {
                            RoundRobinLB balancer = new RoundRobinLB();
                            balancer.setMaxInFlightPerAgent(1);
                            balancer.setQueueSize(10);
                            return balancer;
                        });
                Socket first = new Socket("127.0.0.1", proxy.port())) {
            first.getOutputStream().write("GET /process/held?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(agent.requested.await(10, TimeUnit.SECONDS)).as("the first request reached the agent").isTrue();

            try (Socket second = new Socket("127.0.0.1", proxy.port())) {
                second.getOutputStream().write("GET /process/queued?user_id=2 HTTP/1.1\r\nHost: x\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (proxy.balancer().queueFigures().size() < 1 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(proxy.balancer().queueFigures().size()).as("the second request waits").isEqualTo(1);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (proxy.balancer().queueFigures().left() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(proxy.balancer().queueFigures().left()).as("counted as left").isEqualTo(1);
            assertThat(proxy.balancer().queueFigures().size()).as("gone from the queue").isZero();
            assertThat(proxy.balancer().queueFigures().released()).as("never released to an agent").isZero();
        }
    }

    /** The queue's own answers say what happened: a full queue, a queue timeout; neither blames an agent. */
    @Test
    void aFullQueueAndAQueueTimeoutAreNamedInTheirAnswers() throws Exception {
        try (HangingAgent agent = new HangingAgent("");
                DemoProxy proxy = DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                        .agentUrls(agent.baseUrl()).strategy("rr").build(), () -> {
                            RoundRobinLB balancer = new RoundRobinLB();
                            balancer.setMaxInFlightPerAgent(1);
                            balancer.setQueueSize(1);
                            balancer.setQueueTimeout(java.time.Duration.ofSeconds(3)); // room for a starved CPU between the two requests
                            return balancer;
                        });
                Socket first = new Socket("127.0.0.1", proxy.port());
                Socket second = new Socket("127.0.0.1", proxy.port())) {
            first.getOutputStream().write("GET /process/held?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(agent.requested.await(10, TimeUnit.SECONDS)).as("the first request reached the agent").isTrue();
            second.getOutputStream().write("GET /process/queued?user_id=2 HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (proxy.balancer().queueFigures().size() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            RawHttp.Answer full = RawHttp.send(proxy.baseUrl(), "GET", "/process/third?user_id=3");
            assertThat(full.status()).isEqualTo(429);
            assertThat(full.json().get("detail").asText()).contains("queue is full").doesNotContain("asked to rest");
            second.setSoTimeout(10_000);
            StringBuilder timedOut = new StringBuilder();
            java.io.InputStream in = second.getInputStream();
            for (int b = in.read(); b >= 0; b = in.read()) {
                timedOut.append((char) b);
                if (timedOut.indexOf("\r\n\r\n") > 0 && b == '}') {
                    break;
                }
            }
            assertThat(timedOut).startsWith("HTTP/1.1 503").contains("queue timeout").doesNotContain("no agent to try");
            assertThat(timedOut.toString().toLowerCase(java.util.Locale.ROOT)).as("overload: come back, as after a full queue")
                    .contains("\r\nretry-after: 1\r\n");
            assertThat(full.header("Retry-After")).isEqualTo("1");
        }
    }
}
