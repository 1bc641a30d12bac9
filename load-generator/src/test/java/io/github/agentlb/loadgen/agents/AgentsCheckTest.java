package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.agentlb.camel.RoundRobinLB;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class AgentsCheckTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void resultCountsFromTurnsAndAgents() {
        AgentsVariant variant = new AgentsVariant("x", "rr", false, false, 1, RoundRobinLB::new);
        List<Turn> turns = new ArrayList<>();
        // conversation 2 is MCP-style: its first answer came from A1, later turns from A1, A1, A2
        turns.add(new Turn(2, 0, true, 0, ok(10, 400, "A1")));
        turns.add(new Turn(2, 1, true, 0, ok(20, 400, "A1")));
        turns.add(new Turn(2, 2, true, 0, ok(30, 100, "A1")));
        turns.add(new Turn(2, 3, true, 0, ok(40, 100, "A2")));
        turns.add(new Turn(0, 0, false, 0, new ChatStreamClient.Answer(0, -1, 500_000_000L, null, null,
                "timeout after 500 ms")));
        Map<String, AgentsResult.AgentCounters> agents = new TreeMap<>(Map.of(
                "A1", new AgentsResult.AgentCounters(300, 240, 2, 3, 90_000_000L,
                        new long[] {30_000_000L, 35_000_000L, 90_000_000L}),
                "A2", new AgentsResult.AgentCounters(100, 60, 0, 1, 30_000_000L, new long[] {40_000_000L})));

        AgentsResult r = AgentsResult.of(variant, turns, agents, SECOND);

        assertEquals(5, r.requests());
        assertEquals(1, r.errors());
        assertEquals(1, r.timeouts());
        assertEquals(0.75, r.hitRate(), 1e-12);
        assertEquals(3, r.mcpLaterTurns());
        assertEquals(2, r.stickyTurns());
        assertEquals(2.0 / 3, r.stickiness(), 1e-12);
        assertEquals(Map.of("A1", 3L, "A2", 1L), r.answered());
        // A1 busy 0.4 + 0.4 + 0.1 s, A2 0.1 s of 1 s: mean 0.5, max 0.9
        assertEquals(0.9, r.inFlight().get("A1"), 1e-12);
        assertEquals(1.8, r.inFlightMaxOverMean(), 1e-12);
        assertEquals(30.0, r.modelTtftMeanMs(), 1e-12);
        assertEquals(2, r.maxWaiting());
        assertEquals(20.0, r.ttftP50Ms(), 0.05);
        // agent side, queue wait included, over both agents: 30, 35, 40, 90 ms
        assertEquals(35.0, r.agentTtftP50Ms(), 0.05);
        assertEquals(90.0, r.agentTtftP99Ms(), 0.1);
        assertEquals(List.of("conversation 0 turn 0: timeout after 500 ms"), r.errorSamples());
    }

    @Test
    void passesWhenTheBestBoundedKeyedVariantMeetsEveryGoal() {
        AgentsCheck check = AgentsCheck.of(List.of(result("rr", false, false, 1, 100, 0.70, 1.05, 0),
                result("ch", true, false, 1, 40, 0.93, 1.40, 0), result("ch-bounded", true, true, 1, 45, 0.92, 1.10, 0),
                result("ch-bounded x2", true, true, 2, 47, 0.91, 1.12, 0)));
        assertTrue(check.passed(), String.join("\n", check.reasons()));
        assertEquals("ch-bounded", check.best().orElseThrow().label());
    }

    @Test
    void readsTheCheckedVariantWhenItRanEvenIfAnotherBoundedVariantIsFaster() {
        AgentsCheck check = AgentsCheck.of(List.of(result("rr", false, false, 1, 100, 0.70, 1.05, 0),
                result(AgentsVariant.CHECKED, true, true, 1, 45, 0.91, 1.40, 0),
                result(AgentsVariant.CHECKED + " x2", true, true, 2, 45, 0.91, 1.30, 0),
                result(AgentsVariant.SHARE_BOUNDED, true, true, 1, 40, 0.95, 1.05, 0)));
        assertEquals(AgentsVariant.CHECKED, check.best().orElseThrow().label());
        assertFalse(check.passed(), String.join("\n", check.reasons()));
        assertTrue(check.reasons().contains("keys-inflight-kept: max/mean in-flight 1.40 (goal <= 1.25): MISSED"),
                String.join("\n", check.reasons()));
    }

    @Test
    void missesOnEachGoal() {
        AgentsResult rr = result("rr", false, false, 1, 100, 0.70, 1.05, 0);
        assertFalse(AgentsCheck.of(List.of(rr, result("b", true, true, 1, 51, 0.95, 1.0, 0))).passed());
        assertFalse(AgentsCheck.of(List.of(rr, result("b", true, true, 1, 40, 0.89, 1.0, 0))).passed());
        assertFalse(AgentsCheck.of(List.of(rr, result("b", true, true, 1, 40, 0.95, 1.3, 0))).passed());
        assertFalse(AgentsCheck.of(List.of(rr, result("b", true, true, 1, 40, 0.95, 1.0, 1))).passed());
        assertFalse(AgentsCheck.of(List.of(rr, result("b", true, true, 1, 40, 0.95, 1.0, 0),
                result("b x2", true, true, 2, 40, 0.92, 1.0, 0))).passed());
        assertFalse(AgentsCheck.of(List.of(rr, result("ch", true, false, 1, 40, 0.95, 1.0, 0))).passed());
    }

    @Test
    void aClientSideMissWithTheAgentSideMetSaysBothAndHolds() {
        AgentsResult rr = result("rr", false, false, 1, 100, 0.70, 1.05, 0, 80);
        AgentsResult bounded = result("b", true, true, 1, 60, 0.95, 1.0, 0, 30);
        AgentsCheck check = AgentsCheck.of(List.of(rr, bounded));
        assertTrue(check.passed(), String.join("\n", check.reasons()));
        assertTrue(check.reasons().stream().anyMatch(r -> r.contains("MISSED at the client")
                && r.contains("0.60 x rr's") && r.contains("0.38 x rr's") && r.endsWith("met at the agents only")),
                String.join("\n", check.reasons()));
        AgentsResult agentMiss = result("b", true, true, 1, 60, 0.95, 1.0, 0, 50);
        assertFalse(AgentsCheck.of(List.of(rr, agentMiss)).passed());
    }

    private static ChatStreamClient.Answer ok(long ttftMs, long totalMs, String agent) {
        return new ChatStreamClient.Answer(200, ttftMs * 1_000_000L, totalMs * 1_000_000L, agent, null, null);
    }

    /** A result with the given figures: two agents whose in-flight ratio is {@code maxOverMean}. */
    private static AgentsResult result(String label, boolean keyed, boolean bounded, int replicas, double p50,
                                       double hitRate, double maxOverMean, long errors) {
        return result(label, keyed, bounded, replicas, p50, hitRate, maxOverMean, errors, p50);
    }

    /** As above, with the agent-side p50 {@code agentP50}. */
    private static AgentsResult result(String label, boolean keyed, boolean bounded, int replicas, double p50,
                                       double hitRate, double maxOverMean, long errors, double agentP50) {
        return new AgentsResult(label, replicas, keyed, bounded, 100, errors, 0, p50, 2 * p50, 1000,
                Math.round(hitRate * 1000), new TreeMap<>(Map.of("A1", maxOverMean, "A2", 2 - maxOverMean)),
                new TreeMap<>(Map.of("A1", 50L, "A2", 50L)), 10, 10, 0, agentP50, 2 * agentP50, p50, SECOND,
                List.of());
    }
}
