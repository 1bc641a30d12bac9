package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/**
 * Ctrl-C under {@code mvn camel:run}: Camel Main's shutdown hook lets the JVM exit once the first
 * CamelContext is destroyed, which is an embedded agent's; the demo's own hook holds the JVM until
 * the proxy's context is destroyed, so every agent stops and every last line is logged.
 */
class DemoShutdownTest {

    @Test
    void theJvmWaitsForTheProxysContextNotForTheFirstContextDestroyed() throws Exception {
        CamelContext agent = new DefaultCamelContext();
        CamelContext proxy = new DefaultCamelContext();
        agent.start();
        EmbeddedAgentsService service = new EmbeddedAgentsService(
                EmbeddedAgents.startIfNoneAnswer(List.of(), 1).orElseThrow(), proxy);
        proxy.addService(service, true, true);
        proxy.start();
        try {
            agent.stop(); // an embedded agent's context, destroyed while the proxy's stops
            assertThat(service.proxyDestroyed()).as("another context destroyed first").isFalse();
            proxy.stop();
            assertThat(service.proxyDestroyed()).isTrue();
            service.hook().run(); // what the JVM runs at its exit: returns at once now
            assertThat(Runtime.getRuntime().removeShutdownHook(service.hook()))
                    .as("the hook is gone once the proxy's context is: nothing left to hold").isFalse();
        } finally {
            proxy.stop();
            agent.stop();
        }
    }
}
