package io.github.agentlb.fleet.kubernetes;

import static io.github.agentlb.fleet.kubernetes.Slices.port;
import static io.github.agentlb.fleet.kubernetes.Slices.ready;
import static io.github.agentlb.fleet.kubernetes.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.github.agentlb.core.fleet.AgentSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The API server gone after the start (down, or refusing the watch): the source keeps its last
 * fleet and says so in {@code problem()}, rather than nothing while its fleet grows out of date.
 * End to end over fabric8's mock API server, its own for this class, stopped by the test; the wait
 * bounded by 20 s (the source says so after 5 s without a watch).
 */
@Tag("e2e")
@EnableKubernetesMockClient(crud = true)
class KubernetesWatchLostTest {

    KubernetesClient client;
    KubernetesMockServer server;

    @Test
    void anApiServerGoneAfterTheStartIsTheSourcesProblemAndTheFleetIsKept() throws InterruptedException {
        BlockingQueue<List<AgentSpec>> told = new LinkedBlockingQueue<>();
        client.discovery().v1().endpointSlices().inNamespace("ns-w").resource(slice("agents-1", "agents", "IPv4",
                port("http", 9001), ready("agent-1", "10.1.0.1", null))).create();
        try (KubernetesFleetSource source = KubernetesFleetSource.builder("ns-w", "agents").client(client)
                .startTimeout(Duration.ofSeconds(10)).build()) {
            source.start(told::add);
            assertThat(told.poll()).hasSize(1);
            assertThat(source.problem()).isNull();

            server.destroy();

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (source.problem() == null && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(source.problem()).as("within 20 s").startsWith(
                    "not watching EndpointSlices for 5 s, the fleet may be out of date (retrying)");
            assertThat(source.fleet()).extracting(AgentSpec::name).containsExactly("agent-1");
            assertThat(told).isEmpty();
        }
    }
}
