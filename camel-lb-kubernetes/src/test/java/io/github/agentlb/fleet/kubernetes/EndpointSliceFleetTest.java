package io.github.agentlb.fleet.kubernetes;

import static io.github.agentlb.fleet.kubernetes.Slices.pod;
import static io.github.agentlb.fleet.kubernetes.Slices.port;
import static io.github.agentlb.fleet.kubernetes.Slices.ready;
import static io.github.agentlb.fleet.kubernetes.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.github.agentlb.core.fleet.AgentSpec;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class EndpointSliceFleetTest {

    private final EndpointSliceFleet onlyPort = new EndpointSliceFleet("http", null, "IPv4");

    @Test
    void readyServingTerminatingAndNotReadyGiveAgentDrainingAndAbsent() {
        EndpointSliceFleet.Result result = onlyPort.read(List.of(slice("agents-a", "agents", "IPv4", port("http", 9001),
                ready("agent-1", "10.1.0.1", "zone-a"),
                pod("agent-2", "10.1.0.2", false, true, true, "zone-b"),
                pod("agent-3", "10.1.0.3", false, false, true, "zone-a"),
                pod("agent-4", "10.1.0.4", false, false, false, "zone-a"),
                pod("agent-5", "10.1.0.5", null, null, null, null))));
        assertThat(result.problem()).isNull();
        assertThat(result.agents()).containsExactly(
                new AgentSpec("agent-1", URI.create("http://10.1.0.1:9001"), 1, false, "zone-a"),
                new AgentSpec("agent-2", URI.create("http://10.1.0.2:9001"), 1, true, "zone-b"),
                new AgentSpec("agent-5", URI.create("http://10.1.0.5:9001"), 1, false, null));
    }

    @Test
    void namesComeFromThePodThenTheHostnameThenTheAddress() {
        EndpointSliceFleet.Result result = new EndpointSliceFleet("https", null, "IPv6").read(List.of(
                slice("agents-v6", "agents", "IPv6", port("http", 8443),
                        new EndpointBuilder().withAddresses("fd00::9").withHostname("agent-h").build(),
                        new EndpointBuilder().withAddresses("fd00::a").build()),
                slice("agents-v4", "agents", "IPv4", port("http", 8443), ready("agent-1", "10.1.0.1", null))));
        assertThat(result.agents()).containsExactly(
                AgentSpec.of("[fd00::a]", URI.create("https://[fd00::a]:8443")),
                AgentSpec.of("agent-h", URI.create("https://[fd00::9]:8443")));
    }

    @Test
    void thePortIsTheNamedOneOrTheOnlyOne() {
        var twoPorts = List.of(new EndpointPortBuilder().withName("metrics").withPort(9100).build(),
                new EndpointPortBuilder().withName("http").withPort(9001).build());
        var slices = List.of(slice("agents-a", "agents", "IPv4", twoPorts, ready("agent-1", "10.1.0.1", null)));

        assertThat(new EndpointSliceFleet("http", "http", "IPv4").read(slices).agents())
                .containsExactly(AgentSpec.of("agent-1", URI.create("http://10.1.0.1:9001")));
        EndpointSliceFleet.Result unnamed = onlyPort.read(slices);
        assertThat(unnamed.agents()).isEmpty();
        assertThat(unnamed.problem()).isEqualTo(
                "no ready endpoint (1 IPv4 slices, 0 endpoints, 0 draining, 1 slices without a single port)");
    }

    @Test
    void anEndpointInTwoSlicesCountsOnceAndServingWins() {
        EndpointSliceFleet.Result result = onlyPort.read(List.of(
                slice("agents-a", "agents", "IPv4", port("http", 9001), pod("agent-1", "10.1.0.1", false, true, true, null)),
                slice("agents-b", "agents", "IPv4", port("http", 9001), ready("agent-1", "10.1.0.1", null),
                        ready("agent-2", "10.1.0.2", null))));
        assertThat(result.agents()).extracting(AgentSpec::name, AgentSpec::draining)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("agent-1", false), org.assertj.core.groups.Tuple.tuple("agent-2", false));
    }

    @Test
    void noReadyEndpointIsAProblemNotAnEmptyFleet() {
        assertThat(onlyPort.read(List.of()).problem()).isEqualTo("no ready endpoint (0 IPv4 slices, 0 endpoints, 0 draining)");
        EndpointSliceFleet.Result terminating = onlyPort.read(List.of(slice("agents-a", "agents", "IPv4", port("http", 9001),
                pod("agent-1", "10.1.0.1", false, true, true, null), pod("agent-2", "10.1.0.2", false, false, false, null))));
        assertThat(terminating.problem()).isEqualTo("no ready endpoint (1 IPv4 slices, 2 endpoints, 1 draining)");
    }
}
