package io.github.agentlb.fleet.kubernetes;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;

/** EndpointSlices as the EndpointSlice controller writes them, for tests. */
final class Slices {

    private Slices() {
    }

    static EndpointSlice slice(String name, String service, String addressType, List<EndpointPort> ports, Endpoint... endpoints) {
        return new EndpointSliceBuilder()
                .withNewMetadata().withName(name).addToLabels(KubernetesFleetSource.SERVICE_NAME_LABEL, service).endMetadata()
                .withAddressType(addressType).withPorts(ports).withEndpoints(endpoints).build();
    }

    static List<EndpointPort> port(String name, int port) {
        return List.of(new EndpointPortBuilder().withName(name).withPort(port).withProtocol("TCP").build());
    }

    static Endpoint pod(String pod, String address, Boolean ready, Boolean serving, Boolean terminating, String zone) {
        return new EndpointBuilder().withAddresses(address)
                .withNewConditions().withReady(ready).withServing(serving).withTerminating(terminating).endConditions()
                .withZone(zone).withNewTargetRef().withKind("Pod").withName(pod).withNamespace("agents").endTargetRef().build();
    }

    static Endpoint ready(String pod, String address, String zone) {
        return pod(pod, address, true, true, false, zone);
    }
}
