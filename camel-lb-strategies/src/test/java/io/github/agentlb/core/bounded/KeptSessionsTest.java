package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Session counts per agent: moves at each placement, recounts every tau / 4 of an injected clock. */
class KeptSessionsTest {

    private static final long TAU = 400;

    private final KeyTable keys = new KeyTable(100, TAU);
    private final KeptSessions sessions = new KeptSessions(TAU, 1000);

    /** A key whose last request went to {@code agent} at {@code seen}, without a placement counted. */
    private KeyTable.Entry seen(String key, String agent, long seen) {
        KeyTable.Entry entry = keys.touch(key);
        entry.inFlightAgent = agent;
        entry.inFlightSeenNanos = seen;
        return entry;
    }

    @Test
    void aPlacementCountsAtOnceAndMovesTheSessionFromWhereItCounted() {
        KeyTable.Entry k = keys.touch("k");
        sessions.placed(k, "A", 1000);
        assertThat(sessions.counts()).isEqualTo(Map.of("A", 1));
        sessions.placed(k, "B", 1001);
        assertThat(sessions.counts()).isEqualTo(Map.of("A", 0, "B", 1));
        assertThat(sessions.load(agent -> 0).applyAsInt("B")).isEqualTo(1);
        assertThat(sessions.load(agent -> 3).applyAsInt("B")).isEqualTo(3);
        assertThat(sessions.load(agent -> 0).applyAsInt("C")).isZero();
    }

    @Test
    void aCountNeverGoesBelowZero() {
        KeyTable.Entry k = keys.touch("k");
        sessions.placed(k, "A", 1000);
        sessions.placed(k, "B", 1000);
        // As a placement that raced a recount leaves it: counted on A, whose count is already 0.
        KeyTable.Entry raced = keys.touch("raced");
        raced.countedOn = "A";
        sessions.placed(raced, "B", 1000);
        assertThat(sessions.counts()).isEqualTo(Map.of("A", 0, "B", 2));
        // Counted on an agent that no longer has a count at all.
        KeyTable.Entry gone = keys.touch("gone");
        gone.countedOn = "Z";
        sessions.placed(gone, "B", 1000);
        assertThat(sessions.counts()).isEqualTo(Map.of("A", 0, "B", 3));
    }

    @Test
    void theFirstRecountIsDueExactlyTauOverFourAfterTheStart() {
        sessions.placed(keys.touch("k"), "A", 1000);
        seen("s", "B", 1000);
        sessions.recountIfDue(keys, 1099);
        assertThat(sessions.counts()).isEqualTo(Map.of("A", 1));
        sessions.recountIfDue(keys, 1100);
        assertThat(sessions.counts()).isEqualTo(Map.of("A", 1, "B", 1));
    }

    @Test
    void theNextRecountIsDueTauOverFourAfterTheLast() {
        sessions.recountIfDue(keys, 1100);
        assertThat(sessions.counts()).isEmpty();
        seen("s", "B", 1150);
        sessions.recountIfDue(keys, 1101);
        sessions.recountIfDue(keys, 1199);
        assertThat(sessions.counts()).isEmpty();
        sessions.recountIfDue(keys, 1200);
        assertThat(sessions.counts()).isEqualTo(Map.of("B", 1));
    }

    @Test
    void aRecountKeepsOnlySessionsSeenWithinTau() {
        KeyTable.Entry fresh = seen("fresh", "A", 1100);
        KeyTable.Entry edge = seen("edge", "A", 1100 - TAU);
        KeyTable.Entry stale = seen("stale", "B", 1100 - TAU - 1);
        KeyTable.Entry never = keys.touch("never");
        stale.countedOn = "B";
        sessions.recountIfDue(keys, 1100);
        assertThat(sessions.counts()).isEqualTo(Map.of("A", 2));
        assertThat(fresh.countedOn).isEqualTo("A");
        assertThat(edge.countedOn).isEqualTo("A");
        assertThat(stale.countedOn).isNull();
        assertThat(never.countedOn).isNull();
        assertThat(sessions.active(1100 - TAU, 1100)).isTrue();
        assertThat(sessions.active(1100 - TAU - 1, 1100)).isFalse();
    }
}
