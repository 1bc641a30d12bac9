package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimelineTest {

    private static final long MS = 1_000_000;
    private static final long ORIGIN = 7_000 * MS;

    /** An outcome completing {@code atMs} after the origin: sent 10 ms before, answered after 10 ms. */
    private static TimedOutcome answered(String agent, long atMs) {
        return new TimedOutcome(RequestOutcome.success("r" + atMs, 1, agent, 200, 10 * MS), ORIGIN + (atMs - 10) * MS);
    }

    @Test
    void eachRequestCountsInTheBucketOfItsCompletionPerAgentAndFailuresApart() {
        List<TimedOutcome> outcomes = List.of(answered("A1", 500), answered("A2", 1_200), answered("A2", 1_999),
                new TimedOutcome(RequestOutcome.error("r9", 3, 0, 30 * MS), ORIGIN + 2_470 * MS),
                answered("A1", 1_000));

        Timeline t = Timeline.of(outcomes, ORIGIN, Duration.ofSeconds(1), List.of("A1", "A2", "A3"));

        assertThat(t.failed()).hasSize(3);
        assertThat(t.bucketStartsSeconds()).containsExactly(0.0, 1.0, 2.0);
        assertThat(t.answeredPerAgent()).containsOnlyKeys("A1", "A2", "A3");
        assertThat(t.answeredPerAgent().get("A1")).containsExactly(1, 1, 0);
        assertThat(t.answeredPerAgent().get("A2")).containsExactly(0, 2, 0);
        assertThat(t.answeredPerAgent().get("A3")).containsExactly(0, 0, 0);
        assertThat(t.failed()).containsExactly(0, 0, 1);
        assertThat(Outcomes.totals(t)).containsEntry("A1", 2L).containsEntry("A2", 2L).containsEntry("A3", 0L);
    }

    @Test
    void ratesAreCountsOverTheBucketWidth() {
        Timeline t = Timeline.of(List.of(answered("A1", 100), answered("A1", 200), answered("A1", 700)), ORIGIN,
                Duration.ofMillis(500), List.of("A1"));

        assertThat(t.bucketSeconds()).isEqualTo(0.5);
        assertThat(Timeline.perSecond(t.answeredPerAgent().get("A1"), t.bucketSeconds())).containsExactly(4.0, 2.0);
    }

    @Test
    void aCompletionBeforeTheOriginCountsInTheFirstBucketAndAnEmptyRunHasOneBucket() {
        Timeline early = Timeline.of(List.of(answered("A9", -300)), ORIGIN, Duration.ofSeconds(1), List.of("A1"));
        assertThat(early.answeredPerAgent().get("A9")).containsExactly(1);
        assertThat(early.answeredPerAgent().get("A1")).containsExactly(0);

        assertThat(Timeline.of(List.of(), ORIGIN, Duration.ofSeconds(1), List.of("A1")).failed()).containsExactly(0);
        assertThatThrownBy(() -> Timeline.of(List.of(), ORIGIN, Duration.ZERO, List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("bucket must be > 0, was PT0S");
    }
}
