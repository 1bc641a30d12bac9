package io.github.agentlb.core.select;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The slot counts of fractional weights, where Hamilton's method decides who gets the leftover slots. */
class LargestRemainderTest {

    private static Map<String, Integer> slots(Map<String, Double> weights, int resolution) {
        return SmoothWeightedRoundRobin.Schedule.of(weights, resolution).slotCounts();
    }

    @Test
    void theLeftoverSlotGoesToTheLargestFractionalPartWhateverItsId() {
        // quotas 3.0, 3.33, 3.67 of 10: floors give 9, the tenth goes to c (.67), not to a (.0) or b (.33)
        assertThat(slots(Map.of("a", 0.9, "b", 1.0, "c", 1.1), 10))
                .containsExactly(Map.entry("a", 3), Map.entry("b", 3), Map.entry("c", 4));
    }

    @Test
    void fractionalPartsAreComparedNotWholeQuotas() {
        // quotas 7.07 and 2.93: the leftover goes to b's .93, although a's quota is larger
        assertThat(slots(Map.of("a", 2.9, "b", 1.2), 10)).containsExactly(Map.entry("a", 7), Map.entry("b", 3));
    }

    @Test
    void onlyTheLeftoverSlotsAreHandedOut() {
        // whole weights over the resolution: quotas exactly 1, 1, 2 of 4, no slot left over
        assertThat(slots(Map.of("a", 5.0, "b", 5.0, "c", 10.0), 4))
                .containsExactly(Map.entry("a", 1), Map.entry("b", 1), Map.entry("c", 2));
        // quotas 1.5, 1.5, 7 of 10: one slot left over, a and b tie at .5, the smaller id takes it
        assertThat(slots(Map.of("a", 1.5, "b", 1.5, "c", 7.0), 10))
                .containsExactly(Map.entry("a", 2), Map.entry("b", 1), Map.entry("c", 7));
    }

    @Test
    void scheduleTextGivesItsLengthAndCounts() {
        assertThat(SmoothWeightedRoundRobin.Schedule.of(Map.of("a", 2, "b", 1), 10).toString())
                .isEqualTo("Schedule[length=3, slotCounts={a=2, b=1}]");
    }
}
