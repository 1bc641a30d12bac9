package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.ring.HashRing;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * Membership changes keep the ring consistent: a removal drops only the departed agent's virtual
 * nodes, an addition only adds the newcomer's, and the learned allocation survives. Keys are
 * {@code "0" .. "99999"}, agents {@code http://h1 .. h4}, as in the membership tests (where the rebuild by
 * eq. (2) moved 8,325 keys between the survivors of a removal and 15,256 among the others on an
 * addition).
 */
class MembershipChangeTest {

    private static final int KEYS = 100_000;
    private static final String H1 = "http://h1";
    private static final String H2 = "http://h2";
    private static final String H3 = "http://h3";
    private static final String H4 = "http://h4";

    @Test
    void removingAnAgentMovesNoKeyBetweenTheSurvivors() {
        AdaptiveVirtualNodes avn = threeAgents();
        HashRing before = avn.ring();
        avn.updateAgents(List.of(H1, H2));
        assertThat(avn.virtualNodes()).containsExactly(Map.entry(H1, 50), Map.entry(H2, 50));
        Moves moves = Moves.between(before, avn.ring());
        assertThat(moves.betweenOthers(H3)).isZero();
        assertThat(moves.total()).isEqualTo(moves.from(H3)).isEqualTo(36_277);
        assertThat(avn.capacityShares()).containsExactly(Map.entry(H1, 0.5), Map.entry(H2, 0.5));
        // what rebuilding the ring by eq. (2) with the same total (75/75) did
        assertThat(Moves.between(before, rebuilt(List.of(H1, H2))).betweenOthers(H3)).isEqualTo(8_325);
    }

    @Test
    void addingAnAgentMovesKeysOnlyToIt() {
        AdaptiveVirtualNodes avn = threeAgents();
        HashRing before = avn.ring();
        avn.updateAgents(List.of(H1, H2, H3, H4));
        // eq. (2) share of the newcomer: 1/4 of the ring, 150 * (1/4) / (3/4) = 50 nodes added
        assertThat(avn.virtualNodes()).containsExactly(Map.entry(H1, 50), Map.entry(H2, 50), Map.entry(H3, 50),
                Map.entry(H4, 50));
        Moves moves = Moves.between(before, avn.ring());
        assertThat(moves.total()).isEqualTo(moves.to(H4)).isEqualTo(25_393);
        // what rebuilding the ring by eq. (2) with the same total (38/38/37/37) did; one-node
        // moves from the others to h4 ending at the same counts build the same ring
        assertThat(Moves.between(before, rebuilt(List.of(H1, H2, H3, H4))).betweenOthers(H4)).isEqualTo(15_256);
    }

    /** At the defaults, over h1, h2, h3. */
    private static AdaptiveVirtualNodes threeAgents() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.ofDefaults());
        avn.setAgents(List.of(H1, H2, H3));
        return avn;
    }

    private static HashRing rebuilt(List<String> agents) {
        AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.ofDefaults();
        return HashRing.of(VirtualNodeAllocation.allocate(VirtualNodeAllocation.equalWeights(agents),
                config.totalVirtualNodes()), config.hashFunction());
    }

    @Test
    void removingAndAddingBackRestoresTheMapping() {
        AdaptiveVirtualNodes avn = threeAgents();
        HashRing full = avn.ring();
        avn.updateAgents(List.of(H1, H2));
        HashRing without = avn.ring();
        avn.updateAgents(List.of(H1, H2, H3));
        Moves moves = Moves.between(without, avn.ring());
        assertThat(moves.total()).isEqualTo(moves.to(H3)).isEqualTo(36_277);
        assertThat(Moves.between(full, avn.ring()).total()).isZero();
    }

    @Test
    void theLearnedAllocationSurvivesARemovalAndAReAdd() {
        AdaptiveVirtualNodes avn = learned();
        SortedMap<String, Integer> learned = avn.virtualNodes();
        assertThat(learned).isNotEqualTo(Map.of("a", 50, "b", 50, "c", 50));
        long reallocations = avn.reallocations();

        HashRing before = avn.ring();
        avn.updateAgents(List.of("a", "c"));
        assertThat(avn.virtualNodes()).containsExactly(Map.entry("a", learned.get("a")), Map.entry("c", learned.get("c")));
        assertThat(Moves.between(before, avn.ring()).betweenOthers("b")).isZero();
        assertThat(avn.reallocations()).isEqualTo(reallocations);

        HashRing survivors = avn.ring();
        avn.updateAgents(List.of("a", "b", "c"));
        int survivorsTotal = learned.get("a") + learned.get("c");
        // b's eq. (2) share is 1/3 of the ring: half the survivors' total, rounded
        assertThat(avn.virtualNodes()).containsExactly(Map.entry("a", learned.get("a")),
                Map.entry("b", Math.round(survivorsTotal / 2f)), Map.entry("c", learned.get("c")));
        Moves moves = Moves.between(survivors, avn.ring());
        assertThat(moves.total()).isEqualTo(moves.to("b")).isPositive();
    }

    @Test
    void aNewcomersShareFollowsItsCapacityWeight() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.ofDefaults());
        AgentUtilization idle = new AgentUtilization(0.2, 0.2);
        avn.setAgents(Map.of("a", idle, "b", idle, "c", idle));
        // P = 0.4: half the weight of the others (eq. 1), so 1/7 of the ring: 150 * 0.5 / 3 = 25 nodes
        avn.updateAgents(Map.of("a", idle, "b", idle, "c", idle, "d", new AgentUtilization(0.4, 0.4)));
        assertThat(avn.virtualNodes()).containsExactly(Map.entry("a", 50), Map.entry("b", 50), Map.entry("c", 50),
                Map.entry("d", 25));
        assertThat(avn.capacityShares().get("d")).isEqualTo(1.0 / 7, org.assertj.core.api.Assertions.within(1e-12));
    }

    @Test
    void setAgentsStartsOverWhileUpdateAgentsKeepsTheSurvivors() {
        AdaptiveVirtualNodes avn = learned();
        SortedMap<String, Integer> learned = avn.virtualNodes();
        avn.updateAgents(List.of("a", "b", "c"));
        assertThat(avn.virtualNodes()).isEqualTo(learned);
        avn.setAgents(List.of("a", "b", "c"));
        assertThat(avn.virtualNodes()).containsExactly(Map.entry("a", 50), Map.entry("b", 50), Map.entry("c", 50));
    }

    @Test
    void replacingEveryAgentStartsOverByEquationTwo() {
        AdaptiveVirtualNodes avn = learned();
        avn.updateAgents(List.of("x", "y"));
        assertThat(avn.virtualNodes()).containsExactly(Map.entry("x", 75), Map.entry("y", 75));
    }

    @Test
    void aRejectedMembershipChangeLeavesTheStateAsItWas() {
        AdaptiveVirtualNodes avn = learned();
        avn.record(1);
        HashRing ring = avn.ring();
        SortedMap<String, Double> shares = avn.capacityShares();
        Evaluation last = avn.lastEvaluation().orElseThrow();
        MoveGuard.Phase phase = avn.guardPhase();
        Map<String, AgentUtilization> missing = new HashMap<>();
        missing.put("a", new AgentUtilization(0.2, 0.2));
        missing.put("b", null);

        assertThatThrownBy(() -> avn.updateAgents(List.of("a", " "))).hasMessage("agent id must not be blank, was ' '");
        assertThatThrownBy(() -> avn.updateAgents(List.of())).hasMessage("agents must not be empty, was []");
        assertThatThrownBy(() -> avn.updateAgents(missing)).hasMessage("start-up utilization of b must not be null");
        assertThatThrownBy(() -> avn.setAgents(Map.of("a", 1, "b", 0), Map.of("a", 0.5, "b", 0.5)))
                .hasMessage("virtualNodes of b must be >= 1, was 0");
        assertThatThrownBy(() -> avn.setAgents(Map.of("a", 1), Map.of("a", 0.0)))
                .hasMessage("weight of a must be finite and > 0, was 0.0");
        assertThatThrownBy(() -> new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(2).build())
                .updateAgents(List.of("a", "b", "c"))).hasMessage("totalVirtualNodes must be >= the number of agents (3), was 2");

        assertThat(avn.ring()).isSameAs(ring);
        assertThat(avn.capacityShares()).isEqualTo(shares);
        assertThat(avn.lastEvaluation()).containsSame(last);
        assertThat(avn.guardPhase()).isEqualTo(phase);
        assertThat(avn.windowRequests()).isEqualTo(1);
    }

    @Test
    void theStepFunctionChecksItsArguments() {
        assertThatThrownBy(() -> MembershipChange.virtualNodes(Map.of("a", 5), Map.of("a", 1.0, "b", -1.0), 10))
                .hasMessage("weight of b must be finite and > 0, was -1.0");
        assertThatThrownBy(() -> MembershipChange.virtualNodes(Map.of(), Map.of(), 10))
                .hasMessage("agents must not be empty, was []");
        assertThat(MembershipChange.virtualNodes(Map.of(), Map.of("a", 1.0, "b", 3.0), 8))
                .containsExactly(Map.entry("a", 2), Map.entry("b", 6));
        // two newcomers at once share their eq. (2) part, 10 * 2 / 1 = 20, by eq. (2) among themselves
        assertThat(MembershipChange.virtualNodes(Map.of("a", 10, "gone", 3), Map.of("a", 1.0, "x", 1.5, "y", 0.5), 99))
                .containsExactly(Map.entry("a", 10), Map.entry("x", 15), Map.entry("y", 5));
    }

    /** Agents a, b, c after an evaluation that moved nodes from the hot "a" (cpu 0.9) to "c" (0.2). */
    private static AdaptiveVirtualNodes learned() {
        AdaptiveVirtualNodes avn = HotAgentWindow.reported();
        assertThat(avn.evaluate().orElseThrow().moves()).isNotEmpty();
        return avn;
    }

    /** Owners of keys "0" .. "99999" on two rings. */
    private record Moves(String[] before, String[] after) {

        static Moves between(HashRing before, HashRing after) {
            String[] b = new String[KEYS];
            String[] a = new String[KEYS];
            for (int key = 0; key < KEYS; key++) {
                b[key] = before.agentFor(Integer.toString(key));
                a[key] = after.agentFor(Integer.toString(key));
            }
            return new Moves(b, a);
        }

        int total() {
            int moved = 0;
            for (int key = 0; key < KEYS; key++) {
                moved += before[key].equals(after[key]) ? 0 : 1;
            }
            return moved;
        }

        int from(String agent) {
            int moved = 0;
            for (int key = 0; key < KEYS; key++) {
                moved += before[key].equals(agent) && !after[key].equals(agent) ? 1 : 0;
            }
            return moved;
        }

        int to(String agent) {
            int moved = 0;
            for (int key = 0; key < KEYS; key++) {
                moved += !before[key].equals(agent) && after[key].equals(agent) ? 1 : 0;
            }
            return moved;
        }

        /** Keys that changed owner with neither owner being {@code agent}. */
        int betweenOthers(String agent) {
            int moved = 0;
            for (int key = 0; key < KEYS; key++) {
                boolean changed = !before[key].equals(after[key]);
                moved += changed && !before[key].equals(agent) && !after[key].equals(agent) ? 1 : 0;
            }
            return moved;
        }
    }
}
