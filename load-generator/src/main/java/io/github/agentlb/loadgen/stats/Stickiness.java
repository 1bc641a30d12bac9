package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import io.github.agentlb.loadgen.config.Workload;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where the balancer kept each user (a key), computed from the successful answers alone (no I/O, no
 * clock): a failed request tells nothing about where the balancer sent it, so it neither breaks nor
 * makes a user's stickiness, as in {@link RunStatistics}. One measure per scenario that tests it:
 * {@link HotKeyStatistics} (a hot user and the others), {@link FailoverStickiness} (users through an
 * agent's fault) and {@link KeyMoves} (keys moved between the phases of a fleet change). Stateless.
 */
public final class Stickiness {

    private Stickiness() {
    }

    /** Each answered user's agents among {@code outcomes}. */
    static Map<Integer, Set<String>> agentsOfUsers(Stream<RequestOutcome> outcomes) {
        return outcomes.filter(RequestOutcome::isSuccess).collect(Collectors.groupingBy(RequestOutcome::userId,
                Collectors.mapping(RequestOutcome::agentId, Collectors.toSet())));
    }

    /**
     * What a hot-key run did to the hot user and to the others: the users other than
     * {@value Workload#HOT_USER} answered at least once ({@code otherUsers}), of which those whose
     * answers all came from one agent whichever replica they passed ({@code stickyOthers}) and those
     * each replica kept on one agent, though replicas may disagree ({@code stickyOthersPerReplica},
     * equal with one replica); the hot user's successful requests per agent, sorted by agent; the
     * balancer replicas the requests alternated across, >= 1.
     */
    public record HotKeyStatistics(int otherUsers, int stickyOthers, int stickyOthersPerReplica,
                                   SortedMap<String, Long> hotUserAgents, int replicas) {

        /** @throws IllegalArgumentException unless {@code 0 <= stickyOthers <= stickyOthersPerReplica <= otherUsers} */
        public HotKeyStatistics {
            if (stickyOthers < 0 || stickyOthers > stickyOthersPerReplica || stickyOthersPerReplica > otherUsers) {
                throw new IllegalArgumentException("need 0 <= stickyOthers <= stickyOthersPerReplica <= otherUsers, was "
                        + stickyOthers + ", " + stickyOthersPerReplica + ", " + otherUsers);
            }
            Check.atLeast("replicas", replicas, 1);
            hotUserAgents = Collections.unmodifiableSortedMap(new TreeMap<>(hotUserAgents));
        }

        /** The statistics of {@code outcomes} sent across {@code replicas} replicas, {@code replicaOf} a request's (0-based). */
        public static HotKeyStatistics of(List<RequestOutcome> outcomes, int replicas,
                                          ToIntFunction<RequestOutcome> replicaOf) {
            SortedMap<String, Long> hot = outcomes.stream().filter(o -> o.isSuccess() && o.userId() == Workload.HOT_USER)
                    .collect(Collectors.groupingBy(RequestOutcome::agentId, TreeMap::new, Collectors.counting()));
            List<RequestOutcome> others = outcomes.stream().filter(o -> o.userId() != Workload.HOT_USER).toList();
            Map<Integer, Set<String>> agentsOfUser = agentsOfUsers(others.stream());
            Set<Integer> splitByAReplica = others.stream().filter(RequestOutcome::isSuccess)
                    .collect(Collectors.groupingBy(replicaOf::applyAsInt)).values().stream()
                    .flatMap(ofReplica -> agentsOfUsers(ofReplica.stream()).entrySet().stream())
                    .filter(e -> e.getValue().size() > 1).map(Map.Entry::getKey).collect(Collectors.toSet());
            int sticky = (int) agentsOfUser.values().stream().filter(agents -> agents.size() == 1).count();
            return new HotKeyStatistics(agentsOfUser.size(), sticky, agentsOfUser.size() - splitByAReplica.size(), hot,
                    replicas);
        }

        /** Share of the other users whose answers all came from one agent, 0..1. */
        public double othersStickiness() {
            return otherUsers == 0 ? 0 : (double) stickyOthers / otherUsers;
        }

        /** Share of the other users each replica kept on one agent, 0..1. */
        public double othersStickinessPerReplica() {
            return otherUsers == 0 ? 0 : (double) stickyOthersPerReplica / otherUsers;
        }

        public int hotUserAgentCount() {
            return hotUserAgents.size();
        }

        /** The hot user's successful requests. */
        public long hotUserRequests() {
            return hotUserAgents.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * Whether users kept their agent through a fault, as a consistent-hash balancer promises: only
     * the dead agent's users move while it is down, and they come back after. A user's <em>home</em>
     * is the agent that answered all its requests before the kill; a user answered by two agents
     * then (every user of a round-robin run, nearly) has none and is not counted. Counted: users
     * whose home is the dead agent, and the others; of the others, those answered in the down phase
     * and in the after phase, and of each those answered only by their home; of the dead agent's
     * users, those answered for requests sent from the return (the re-admission when observed, else
     * the restart), and of those the ones answered only by their home from then on.
     */
    public record FailoverStickiness(int deadAgentUsers, int otherUsers, int othersInDown, int othersStayedDown,
                                     int othersInAfter, int othersStayedAfter, int deadUsersInReturn,
                                     int deadUsersReturned) {

        /**
         * The figures of a run's outcomes in {@code phases} (before, down, after) when {@code deadAgent}
         * (as in {@code agent_id}) was killed; requests sent from {@code returnFromNanos} count for the return.
         */
        public static FailoverStickiness of(List<TimedOutcome> outcomes, Phases phases, String deadAgent,
                                            long returnFromNanos) {
            Objects.requireNonNull(deadAgent, "deadAgent");
            List<List<TimedOutcome>> byPhase = phases.split(outcomes);
            Map<Integer, String> home = agentsOfUsers(byPhase.get(0).stream().map(TimedOutcome::outcome)).entrySet()
                    .stream().filter(e -> e.getValue().size() == 1)
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().iterator().next()));
            int dead = (int) home.values().stream().filter(deadAgent::equals).count();
            int[] down = stayed(byPhase.get(1), home, deadAgent, false);
            int[] after = stayed(byPhase.get(2), home, deadAgent, false);
            int[] back = stayed(outcomes.stream().filter(o -> o.sentAtNanos() - returnFromNanos >= 0).toList(), home,
                    deadAgent, true);
            return new FailoverStickiness(dead, home.size() - dead, down[0], down[1], after[0], after[1], back[0],
                    back[1]);
        }

        /** Answered users homed on the dead agent ({@code deadUsers}) or elsewhere, and those answered by their home only. */
        private static int[] stayed(List<TimedOutcome> outcomes, Map<Integer, String> home, String deadAgent,
                                    boolean deadUsers) {
            Map<Integer, Set<String>> agents = agentsOfUsers(outcomes.stream().map(TimedOutcome::outcome)
                    .filter(o -> home.containsKey(o.userId()) && home.get(o.userId()).equals(deadAgent) == deadUsers));
            return new int[] {agents.size(),
                (int) agents.entrySet().stream().filter(e -> e.getValue().equals(Set.of(home.get(e.getKey())))).count()};
        }

        /** {@link #othersStayedDown} over {@link #othersInDown}, fraction 0..1; NaN when none. */
        public double othersStayedDownShare() {
            return share(othersStayedDown, othersInDown);
        }

        /** {@link #othersStayedAfter} over {@link #othersInAfter}, fraction 0..1; NaN when none. */
        public double othersStayedAfterShare() {
            return share(othersStayedAfter, othersInAfter);
        }

        /** {@link #deadUsersReturned} over {@link #deadUsersInReturn}, fraction 0..1; NaN when none. */
        public double deadUsersReturnedShare() {
            return share(deadUsersReturned, deadUsersInReturn);
        }

        private static double share(int part, int whole) {
            return whole == 0 ? Double.NaN : (double) part / whole;
        }
    }

    /**
     * Keys (users) whose agent changed from one phase of a run to the next, among the users answered
     * in both ({@code compared}). A user's agent in a phase is that of its last-sent answered request
     * there, so a key a ramping agent takes over counts where it ended. A move from or to a changing
     * agent (joining, leaving, back) is theirs; any other ({@code otherMoved}) is a key of an agent
     * that did not change, which consistent hashing promises never to move. Immutable.
     */
    public record KeyMoves(int compared, int moved, int otherMoved) {

        /** @throws IllegalArgumentException unless {@code 0 <= otherMoved <= moved <= compared} */
        public KeyMoves {
            if (!(0 <= otherMoved && otherMoved <= moved && moved <= compared)) {
                throw new IllegalArgumentException("need 0 <= otherMoved <= moved <= compared, were " + otherMoved
                        + ", " + moved + ", " + compared);
            }
        }

        /** The moves from a phase's outcomes to the next's (any order); {@code changing}: the agents that join or leave. */
        public static KeyMoves between(Collection<TimedOutcome> earlier, Collection<TimedOutcome> later,
                                       Set<String> changing) {
            Map<Integer, String> after = agentsAtEnd(later);
            List<List<String>> compared = agentsAtEnd(earlier).entrySet().stream()
                    .filter(e -> after.containsKey(e.getKey())).map(e -> List.of(e.getValue(), after.get(e.getKey())))
                    .toList();
            List<List<String>> moved = compared.stream().filter(move -> !move.get(0).equals(move.get(1))).toList();
            return new KeyMoves(compared.size(), moved.size(),
                    (int) moved.stream().filter(move -> move.stream().noneMatch(changing::contains)).count());
        }

        /** Each answered user's agent at the end of a phase: that of its last-sent answered request. */
        static Map<Integer, String> agentsAtEnd(Collection<TimedOutcome> phase) {
            return phase.stream().filter(o -> o.outcome().isSuccess())
                    .collect(Collectors.groupingBy(o -> o.outcome().userId(), Collectors.collectingAndThen(
                            Collectors.reducing((a, b) -> b.sentAtNanos() - a.sentAtNanos() >= 0 ? b : a),
                            last -> last.orElseThrow().outcome().agentId())));
        }
    }
}
