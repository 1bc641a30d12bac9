package io.github.agentlb.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(60)
class Http11ComponentTest {

    /**
     * Netty's buffers, recyclers and codecs keep per-thread state in {@code FastThreadLocal}s, read
     * through a JDK {@code ThreadLocal} on any other thread: the servers' event loops are Netty's own
     * kind of thread, named as Camel names its worker threads (a route without
     * {@code usingExecutorService}, as the demo proxy's, runs on them).
     */
    @Test
    void requestsRunOnNettysFastThreadLocalThreadsNamedAsCamelNamesItsWorkers() throws Exception {
        int port = FreePorts.next();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            Http11Component.register(context);
            context.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from(Http11Component.SCHEME + ":http://127.0.0.1:" + port + "/t?usingExecutorService=false").routeId("served")
                            .process(exchange -> ranOn.set(Thread.currentThread()))
                            .setBody(constant("ok"));
                }
            });
            context.start();
            for (int start = 1; start <= 2; start++) {
                ranOn.set(null);
                HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/t")).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());

                assertThat(answer.body()).as("start %d", start).isEqualTo("ok");
                assertThat(ranOn.get()).as("start %d", start).isInstanceOf(FastThreadLocalThread.class);
                assertThat(ranOn.get().getName()).startsWith("Camel Thread #").endsWith(" - NettyServerTCPWorker");
                // Stopped and started again, the component makes its event loops again.
                context.getRouteController().stopRoute("served");
                context.getComponent(Http11Component.SCHEME).stop();
                context.getComponent(Http11Component.SCHEME).start();
                context.getRouteController().startRoute("served");
            }
        }
    }
}
