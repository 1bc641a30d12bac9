package io.github.agentlb.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.shared.Allocation;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AllocationCodecTest {

    private static final Allocation ALLOCATION = Allocation.of(7, 2,
            Map.of("A1", 52, "http://localhost:8082?bridgeEndpoint=true", 49, "A 3", 49));

    @Test
    void roundTripsWithIdsHoldingSpacesAndEqualsSigns() {
        assertThat(AllocationCodec.decode(AllocationCodec.encode(ALLOCATION))).isEqualTo(ALLOCATION);
    }

    @Test
    void theStoredTextIsReadableAndPinned() {
        String text = new String(AllocationCodec.encode(Allocation.of(3, 1, Map.of("A1", 5, "A2", 10))), StandardCharsets.UTF_8);
        assertThat(text).isEqualTo("agentlb-allocation 1\ngeneration 3\nleader-epoch 1\nmembership-digest "
                + Allocation.digestOf(java.util.List.of("A1", "A2")) + "\nvirtual-nodes 5 A1\nvirtual-nodes 10 A2\n");
    }

    @Test
    void corruptContentIsRejectedNamingTheProblem() {
        String good = new String(AllocationCodec.encode(ALLOCATION), StandardCharsets.UTF_8);
        assertThatThrownBy(() -> decode("")).hasMessage("empty allocation");
        assertThatThrownBy(() -> decode("{\"generation\": 3}")).hasMessageContaining("not an allocation");
        assertThatThrownBy(() -> decode(good.replace("generation 7", "generation seven")))
                .hasMessage("generation must be a whole number, was 'seven'");
        assertThatThrownBy(() -> decode(good.replace("generation 7", "generation 9223372036854775807")))
                .as("a generation no leader could follow").isInstanceOf(IllegalArgumentException.class)
                .hasMessage("generation must be <= 4611686018427387904, was 9223372036854775807");
        assertThatThrownBy(() -> decode(good.replace("virtual-nodes 52 A1", "virtual-nodes 0 A1")))
                .hasMessage("virtual nodes of A1 must be >= 1, was 0");
        assertThatThrownBy(() -> decode(good.replace("virtual-nodes 52 A1", "virtual-nodes 52 A9")))
                .hasMessageContaining("does not match agents");
        assertThatThrownBy(() -> decode(good.replace("leader-epoch 2\n", ""))).hasMessageContaining("required");
        assertThatThrownBy(() -> decode(good + "weight 3\n")).hasMessageContaining("unknown line");
        assertThatThrownBy(() -> decode(good + "virtual-nodes 3 A1\n")).hasMessageContaining("repeated");
    }

    private static Allocation decode(String text) {
        return AllocationCodec.decode(text.getBytes(StandardCharsets.UTF_8));
    }
}
