package io.github.agentlb.core.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class AllocationTest {

    private static final Map<String, Integer> COUNTS = Map.of("A1", 3, "A2", 16, "A3", 11);

    @Test
    void digestIsTheSameWhateverTheOrderOfTheAgentsAndDiffersForOtherAgents() {
        assertThat(Allocation.digestOf(List.of("A1", "A2", "A3"))).isEqualTo(Allocation.digestOf(List.of("A3", "A1", "A2")))
                .hasSize(32);
        assertThat(Allocation.digestOf(List.of("A1", "A2"))).isNotEqualTo(Allocation.digestOf(List.of("A1", "A2", "A3")));
        // Ids are separated before hashing: two agents never digest like one with the joined name.
        assertThat(Allocation.digestOf(List.of("A1A2"))).isNotEqualTo(Allocation.digestOf(List.of("A1", "A2")));
    }

    @Test
    void installableOnlyWhenNewerAndForTheSameMembers() {
        Allocation allocation = Allocation.of(5, 2, COUNTS);
        assertThat(allocation.rejection(4, List.of("A3", "A2", "A1"))).isEmpty();
        assertThat(allocation.rejection(5, List.of("A1", "A2", "A3"))).get().asString().contains("not newer");
        assertThat(allocation.rejection(4, List.of("A1", "A2"))).get().asString().contains("membership digest");
        Allocation forged = new Allocation(5, 2, Allocation.digestOf(List.of("A1", "A2", "A3")), new TreeMap<>(Map.of("A1", 3, "A4", 3)));
        assertThat(forged.rejection(4, List.of("A1", "A2", "A3"))).get().asString().contains("agents");
    }

    @Test
    void nextIsOneGenerationLaterUnderTheGivenEpoch() {
        Allocation next = Allocation.of(5, 2, COUNTS).next(3, COUNTS);
        assertThat(next.generation()).isEqualTo(6);
        assertThat(next.leaderEpoch()).isEqualTo(3);
        assertThat(next.virtualNodes()).isEqualTo(COUNTS);
    }

    @Test
    void invalidValuesAreRejectedNamingFieldAndValue() {
        assertThatThrownBy(() -> Allocation.of(0, 1, COUNTS)).hasMessage("generation must be >= 1, was 0");
        assertThatThrownBy(() -> Allocation.of(1, 0, COUNTS)).hasMessage("leaderEpoch must be >= 1, was 0");
        assertThatThrownBy(() -> Allocation.of(Long.MAX_VALUE, 1, COUNTS))
                .hasMessage("generation must be <= 4611686018427387904, was 9223372036854775807");
        assertThatThrownBy(() -> Allocation.of(1, (1L << 62) + 1, COUNTS))
                .hasMessage("leaderEpoch must be <= 4611686018427387904, was 4611686018427387905");
        assertThat(Allocation.of(Allocation.MAX_GENERATION - 1, 1, COUNTS).next(1, COUNTS).generation())
                .isEqualTo(Allocation.MAX_GENERATION);
        assertThatThrownBy(() -> Allocation.of(1, 1, Map.of("A1", 0))).hasMessage("virtual nodes of A1 must be >= 1, was 0");
        assertThatThrownBy(() -> Allocation.of(1, 1, Map.of())).hasMessageContaining("virtualNodes must not be empty");
    }

    @Test
    void digestIsTheHexOfTheFirstSixteenBytesOfSha256OverTheSortedIdsEachEndedByANewline() {
        // sha256("A1\nA2\nA3\n") and sha256("A1\nA2\n"), first 16 bytes
        assertThat(Allocation.digestOf(List.of("A3", "A1", "A2"))).isEqualTo("f14c554361b9093a1af4caf87a667e84");
        assertThat(Allocation.digestOf(List.of("A2", "A1"))).isEqualTo("36c766b94aaef6ecec97bc90d5e291cb");
    }

    @Test
    void oneVirtualNodeIsTheLeastAnAgentMayHave() {
        assertThat(Allocation.of(1, 1, Map.of("A1", 1)).virtualNodes()).containsExactly(Map.entry("A1", 1));
        assertThatThrownBy(() -> Allocation.of(1, 1, Map.of("A1", 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("virtual nodes of A1 must be >= 1, was 0");
    }
}
