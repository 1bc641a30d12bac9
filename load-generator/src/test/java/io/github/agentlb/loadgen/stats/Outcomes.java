package io.github.agentlb.loadgen.stats;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;


/** Hand-made outcomes for the fleet tests: times in ms on a clock starting at 0. */
public final class Outcomes {

    private static int next;

    private Outcomes() {
    }

    /** User {@code user}'s request sent at {@code sentMs}, answered by {@code agent} after {@code latencyMs}. */
    public static TimedOutcome answered(int user, String agent, long sentMs, long latencyMs) {
        return new TimedOutcome(RequestOutcome.success("r" + (++next), user, agent, 200, latencyMs * 1_000_000L),
                sentMs * 1_000_000L);
    }

    /** User {@code user}'s request sent at {@code sentMs} that got a 503 after 1 ms. */
    public static TimedOutcome failed(int user, long sentMs) {
        return new TimedOutcome(RequestOutcome.error("r" + (++next), user, 503, 1_000_000L), sentMs * 1_000_000L);
    }

    /** Total answered by each agent over {@code t}: the sum of its buckets. */
    public static Map<String, Long> totals(Timeline t) {
        Map<String, Long> totals = new TreeMap<>();
        t.answeredPerAgent().forEach((agent, counts) -> totals.put(agent, Arrays.stream(counts).sum()));
        return totals;
    }
}
