package io.github.agentlb.fleet.kubernetes;

import static io.github.agentlb.fleet.kubernetes.Slices.pod;
import static io.github.agentlb.fleet.kubernetes.Slices.port;
import static io.github.agentlb.fleet.kubernetes.Slices.ready;
import static io.github.agentlb.fleet.kubernetes.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.github.agentlb.core.fleet.AgentSpec;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Against fabric8's mock API server in CRUD mode (offline, loopback). End to end: the informer's
 * watch over a real socket is the subject here, so changes are awaited on the wall clock, each wait
 * bounded by {@link #WAIT} (10 s, which a starved CPU still meets).
 */
@Tag("e2e")
@EnableKubernetesMockClient(crud = true)
class KubernetesFleetSourceTest {

    private static final long WAIT = 10;

    KubernetesClient client;

    private final BlockingQueue<List<AgentSpec>> told = new LinkedBlockingQueue<>();

    @Test
    void startReadsTheServicesSlicesOnlyAndKeepsZones() {
        create("ns-a", slice("agents-1", "agents", "IPv4", port("http", 9001),
                ready("agent-1", "10.1.0.1", "zone-a"), ready("agent-2", "10.1.0.2", "zone-b")));
        create("ns-a", slice("other-1", "other", "IPv4", port("http", 9001), ready("other-1", "10.9.0.1", null)));
        create("ns-b", slice("agents-1", "agents", "IPv4", port("http", 9001), ready("elsewhere", "10.8.0.1", null)));
        try (KubernetesFleetSource source = source("ns-a", "agents")) {
            source.start(told::add);
            assertThat(told.poll()).containsExactly(
                    new AgentSpec("agent-1", URI.create("http://10.1.0.1:9001"), 1, false, "zone-a"),
                    new AgentSpec("agent-2", URI.create("http://10.1.0.2:9001"), 1, false, "zone-b"));
            assertThat(source.describe()).isEqualTo("kubernetes:ns-a/agents");
        }
    }

    /**
     * The first watch event needs fabric8's deserializer of any kind, whose making loads every model
     * class on the class path: on a loaded machine it held the client's event loop, which all its
     * requests share, for 21 s (another request timed out after 10 s). The start makes it, on the
     * caller's thread.
     */
    @Test
    void theStartMakesTheDeserializerOfWatchEventsOnTheCallersThread() throws Exception {
        create("ns-e", slice("agents-1", "agents", "IPv4", port("http", 9001), ready("agent-1", "10.1.0.1", null)));
        java.lang.reflect.Field made = io.fabric8.kubernetes.client.utils.KubernetesSerialization.class
                .getDeclaredField("kubernetesDeserializer");
        made.setAccessible(true);
        assertThat(made.get(client.getKubernetesSerialization())).as("not made before the start").isNull();
        try (KubernetesFleetSource source = source("ns-e", "agents")) {
            source.start(told::add);
            assertThat(made.get(client.getKubernetesSerialization())).isNotNull();
            assertThat(told.poll()).hasSize(1);
        }
    }

    @Test
    void aPodThatScalesInDrainsThenLeavesAndANewSliceJoins() throws InterruptedException {
        create("ns-c", slice("agents-1", "agents", "IPv4", port("http", 9001),
                ready("agent-1", "10.1.0.1", null), ready("agent-2", "10.1.0.2", null)));
        try (KubernetesFleetSource source = source("ns-c", "agents")) {
            source.start(told::add);
            assertThat(told.poll()).hasSize(2);

            update("ns-c", slice("agents-1", "agents", "IPv4", port("http", 9001),
                    ready("agent-1", "10.1.0.1", null), pod("agent-2", "10.1.0.2", false, true, true, null)));
            assertThat(next()).extracting(AgentSpec::name, AgentSpec::draining)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("agent-1", false), org.assertj.core.groups.Tuple.tuple("agent-2", true));

            update("ns-c", slice("agents-1", "agents", "IPv4", port("http", 9001), ready("agent-1", "10.1.0.1", null)));
            assertThat(next()).extracting(AgentSpec::name).containsExactly("agent-1");

            create("ns-c", slice("agents-2", "agents", "IPv4", port("http", 9001), ready("agent-3", "10.1.0.3", null)));
            assertThat(next()).extracting(AgentSpec::name).containsExactly("agent-1", "agent-3");
        }
    }

    @Test
    void noReadyEndpointKeepsTheLastFleetUntilOneIsReadyAgain() throws InterruptedException {
        create("ns-d", slice("agents-1", "agents", "IPv4", port("http", 9001), ready("agent-1", "10.1.0.1", null)));
        try (KubernetesFleetSource source = source("ns-d", "agents")) {
            source.start(told::add);
            assertThat(told.poll()).hasSize(1);

            update("ns-d", slice("agents-1", "agents", "IPv4", port("http", 9001), pod("agent-1", "10.1.0.1", false, false, false, null)));
            awaitTrue(() -> source.problem() != null);
            assertThat(source.problem()).isEqualTo("no ready endpoint (1 IPv4 slices, 1 endpoints, 0 draining)");
            client.discovery().v1().endpointSlices().inNamespace("ns-d").withName("agents-1").delete();
            awaitTrue(() -> source.problem().startsWith("no ready endpoint (0 IPv4 slices"));
            assertThat(source.fleet()).extracting(AgentSpec::name).containsExactly("agent-1");
            assertThat(told).isEmpty();

            create("ns-d", slice("agents-2", "agents", "IPv4", port("http", 9001), ready("agent-2", "10.1.0.2", null)));
            assertThat(next()).extracting(AgentSpec::name).containsExactly("agent-2");
            assertThat(source.problem()).isNull();
        }
    }

    @Test
    void startFailsWithoutAReadyEndpointAndMayBeTriedAgain() {
        create("ns-e", slice("agents-1", "agents", "IPv4", port("http", 9001), pod("agent-1", "10.1.0.1", false, true, true, null)));
        assertThatThrownBy(() -> source("ns-e", "nothing").start(told::add))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kubernetes:ns-e/nothing: no ready endpoint (0 IPv4 slices, 0 endpoints, 0 draining)");
        try (KubernetesFleetSource source = source("ns-e", "agents")) {
            assertThatThrownBy(() -> source.start(told::add))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("kubernetes:ns-e/agents: no ready endpoint (1 IPv4 slices, 1 endpoints, 1 draining)");
            assertThat(told).isEmpty();
            create("ns-e", slice("agents-2", "agents", "IPv4", port("http", 9001), ready("agent-2", "10.1.0.2", null)));
            source.start(told::add);
            assertThat(told.poll()).extracting(AgentSpec::name, AgentSpec::draining).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("agent-1", true), org.assertj.core.groups.Tuple.tuple("agent-2", false));
        }
    }

    @Test
    void closeEndsTheWatchAndKeepsTheCallersClient() throws InterruptedException {
        create("ns-f", slice("agents-1", "agents", "IPv4", port("http", 9001), ready("agent-1", "10.1.0.1", null)));
        KubernetesFleetSource source = source("ns-f", "agents");
        source.start(told::add);
        assertThatThrownBy(() -> source.start(told::add)).isInstanceOf(IllegalStateException.class);
        source.close();
        source.close();
        told.clear();
        create("ns-f", slice("agents-2", "agents", "IPv4", port("http", 9001), ready("agent-2", "10.1.0.2", null)));
        assertThat(client.discovery().v1().endpointSlices().inNamespace("ns-f").list().getItems()).hasSize(2);
        assertThat(told.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void theBuilderNamesTheBadFieldAndValue() {
        assertBad(() -> KubernetesFleetSource.builder("Prod", "agents"),
                "namespace must be a DNS label (a-z, 0-9, '-', at most 63), was 'Prod'");
        assertBad(() -> KubernetesFleetSource.builder("prod", null),
                "service must be a DNS label (a-z, 0-9, '-', at most 63), was 'null'");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").portName(" "), "portName must not be blank, was ' '");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").addressType("ipv4"),
                "addressType must be IPv4, IPv6 or FQDN, was ipv4");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").scheme("tcp"), "scheme must be http or https, was tcp");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").startTimeout(Duration.ZERO), "startTimeout must be > 0, was PT0S");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").client(null), "client must not be null, was null");
    }

    /**
     * A port name that Kubernetes cannot have (an IANA service name: a-z, 0-9 and '-', at most 15, a
     * letter, no '-' at an end nor twice) would match no slice's port, so it is refused; a start
     * timeout under a millisecond would be rounded to none.
     */
    @Test
    void aPortNameKubernetesCannotHaveAndAStartTimeoutUnderAMillisecondAreRefused() {
        String rule = "portName must be a Kubernetes port name (a-z, 0-9, '-', at most 15, a letter), was ";
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").portName("HTTP PORT"), rule + "'HTTP PORT'");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").portName("http-"), rule + "'http-'");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").portName("a--b"), rule + "'a--b'");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").portName("8080"), rule + "'8080'");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").portName("a234567890123456"), rule + "'a234567890123456'");
        KubernetesFleetSource.builder("prod", "agents").portName("http-metrics2").portName("a23456789012345");
        assertBad(() -> KubernetesFleetSource.builder("prod", "agents").startTimeout(Duration.ofNanos(500_000)),
                "startTimeout must be >= 1 ms, was PT0.0005S");
    }

    private static void assertBad(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    private KubernetesFleetSource source(String namespace, String service) {
        return KubernetesFleetSource.builder(namespace, service).client(client).startTimeout(Duration.ofSeconds(WAIT)).build();
    }

    private void create(String namespace, EndpointSlice slice) {
        client.discovery().v1().endpointSlices().inNamespace(namespace).resource(slice).create();
    }

    private void update(String namespace, EndpointSlice slice) {
        client.discovery().v1().endpointSlices().inNamespace(namespace).resource(slice).update();
    }

    private List<AgentSpec> next() throws InterruptedException {
        List<AgentSpec> fleet = told.poll(WAIT, TimeUnit.SECONDS);
        assertThat(fleet).as("a fleet within %d s", WAIT).isNotNull();
        return fleet;
    }

    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within %d s", WAIT).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
