package io.github.agentlb.fleet.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.github.agentlb.fleet.CapturedLog;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A list the API server refuses at start (RBAC's 403 on {@code endpointslices}): the start fails in
 * one line naming the status and the server's message, and fabric8 logs nothing (its informer's
 * failed first list is an ERROR with a stack trace). Over fabric8's mock API server, which answers
 * the list with 403.
 */
@Tag("e2e")
@EnableKubernetesMockClient
class KubernetesListRefusedTest {

    KubernetesClient client;
    KubernetesMockServer server;

    @Test
    void aListRefusedAtStartFailsTheStartInOneLineAndFabric8LogsNothing() {
        // The source's own list, and the informer's (from version 0), both refused.
        for (String query : List.of("limit=1", "resourceVersion=0")) {
            server.expect().get().withPath("/apis/discovery.k8s.io/v1/namespaces/ns-r/endpointslices"
                            + "?labelSelector=kubernetes.io%2Fservice-name%3Dagents&" + query)
                    .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden")
                            .withMessage("endpointslices.discovery.k8s.io is forbidden: User \"lb\" cannot list").build())
                    .always();
        }
        try (CapturedLog fabric8 = new CapturedLog("io.fabric8");
             KubernetesFleetSource source = KubernetesFleetSource.builder("ns-r", "agents").client(client)
                     .startTimeout(Duration.ofSeconds(10)).build()) {
            assertThatThrownBy(() -> source.start(fleet -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("kubernetes:ns-r/agents: cannot list EndpointSlices: HTTP 403: "
                            + "endpointslices.discovery.k8s.io is forbidden: User \"lb\" cannot list");
            assertThat(fabric8.at("ERROR")).isEmpty();
            assertThat(fabric8.at("WARN")).isEmpty();
            assertThat(source.fleet()).isEmpty();
        }
    }
}
