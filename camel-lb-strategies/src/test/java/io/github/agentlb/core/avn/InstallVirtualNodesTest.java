package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.ring.HashRing;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InstallVirtualNodesTest {

    private final AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom()
            .totalVirtualNodes(30).evaluationWindow(10).build(), () -> 0L);

    @Test
    void installsTheGivenCountsAsTheRingAndKeepsWindowAndWeights() {
        avn.setAgents(List.of("a", "b", "c"));
        for (int i = 0; i < 7; i++) {
            avn.record(i * 1_000_003L);
        }
        Map<String, Double> shares = avn.capacityShares();

        assertThat(avn.installVirtualNodes(Map.of("a", 3, "b", 16, "c", 11))).isTrue();

        assertThat(avn.virtualNodes()).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("a", 3, "b", 16, "c", 11)));
        HashRing expected = HashRing.of(Map.of("a", 3, "b", 16, "c", 11), avn.config().hashFunction());
        for (String key : List.of("u1", "u2", "u3", "u42", "alice")) {
            assertThat(avn.ring().agentAt(avn.ring().hash(key))).isEqualTo(expected.agentAt(expected.hash(key)));
        }
        assertThat(avn.windowRequests()).isEqualTo(7);
        assertThat(avn.capacityShares()).isEqualTo(shares);
        assertThat(avn.reallocations()).isZero();
    }

    @Test
    void theSameCountsChangeNothing() {
        avn.setAgents(List.of("a", "b", "c"));
        HashRing ring = avn.ring();
        assertThat(avn.installVirtualNodes(avn.virtualNodes())).isFalse();
        assertThat(avn.ring()).isSameAs(ring);
    }

    @Test
    void countsForOtherAgentsAreRejectedAndChangeNothing() {
        assertThatThrownBy(() -> avn.installVirtualNodes(Map.of("a", 1))).isInstanceOf(IllegalStateException.class);
        avn.setAgents(List.of("a", "b", "c"));
        HashRing ring = avn.ring();
        assertThatThrownBy(() -> avn.installVirtualNodes(Map.of("a", 10, "b", 20)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must name the agents [a, b, c]");
        assertThatThrownBy(() -> avn.installVirtualNodes(Map.of("a", 0, "b", 20, "c", 10)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(avn.ring()).isSameAs(ring);
    }
}
