package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import io.github.agentlb.loadgen.config.Workload;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
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
     * What a hot-key run did to the hot user and to the others. The measures:
     * <ul>
     *   <li>stickiness of the other users: among users other than {@value Workload#HOT_USER} with at
     *       least one successful answer, the share whose answers all came from one agent, whichever
     *       replica each request passed (fraction 0..1, 0 when none was answered);
     *   <li>within replicas: the share of those users that each replica kept on one agent, though two
     *       replicas may have chosen different agents; equal to the above with one replica, and the
     *       difference between the two is the users the replicas disagree on;
     *   <li>the agents the hot user reached, with its successful requests on each.
     * </ul>
     *
     * @param otherUsers              other users with a successful answer
     * @param stickyOthers            of those, users whose answers all came from one agent
     * @param stickyOthersPerReplica  of those, users each replica kept on one agent
     * @param hotUserAgents           the hot user's successful requests per agent, sorted by agent
     * @param replicas                balancer replicas the requests alternated across, >= 1
     */
    public record HotKeyStatistics(int otherUsers, int stickyOthers, int stickyOthersPerReplica,
                                   SortedMap<String, Long> hotUserAgents, int replicas) {

        /** @throws IllegalArgumentException if the counts are inconsistent */
        public HotKeyStatistics {
            if (stickyOthers < 0 || stickyOthers > stickyOthersPerReplica || stickyOthersPerReplica > otherUsers) {
                throw new IllegalArgumentException("need 0 <= stickyOthers <= stickyOthersPerReplica <= otherUsers, was "
                        + stickyOthers + ", " + stickyOthersPerReplica + ", " + otherUsers);
            }
            Check.atLeast("replicas", replicas, 1);
            hotUserAgents = Collections.unmodifiableSortedMap(new TreeMap<>(hotUserAgents));
        }

        /**
         * The statistics of {@code outcomes}, whose requests alternated across {@code replicas}
         * replicas as {@code replicaOf} says (the replica of a request, 0-based).
         */
        public static HotKeyStatistics of(List<RequestOutcome> outcomes, int replicas,
                                          ToIntFunction<RequestOutcome> replicaOf) {
            SortedMap<String, Long> hot = outcomes.stream().filter(o -> o.isSuccess() && o.userId() == Workload.HOT_USER)
                    .collect(Collectors.groupingBy(RequestOutcome::agentId, TreeMap::new, Collectors.counting()));
            List<RequestOutcome> others = outcomes.stream().filter(o -> o.userId() != Workload.HOT_USER).toList();
            Map<Integer, Set<String>> agentsOfUser = agentsOfUsers(others.stream());
            Set<Integer> splitByAReplica = new HashSet<>();
            others.stream().filter(RequestOutcome::isSuccess).collect(Collectors.groupingBy(replicaOf::applyAsInt))
                    .values().forEach(ofReplica -> agentsOfUsers(ofReplica.stream()).forEach((user, agents) -> {
                        if (agents.size() > 1) {
                            splitByAReplica.add(user);
                        }
                    }));
            int sticky = (int) agentsOfUser.values().stream().filter(agents -> agents.size() == 1).count();
            return new HotKeyStatistics(agentsOfUser.size(), sticky, agentsOfUser.size() - splitByAReplica.size(), hot,
                    replicas);
        }

        /**
         * The statistics of a run of {@code workload} over {@code replicas} replicas alternating as
         * the load route sends ({@link Workload#replicaOf}: request {@code i} to replica {@code i mod n}).
         */
        public static HotKeyStatistics of(List<RequestOutcome> outcomes, Workload workload, int replicas) {
            Map<String, Integer> position = new HashMap<>();
            List<Workload.PlannedRequest> planned = workload.requests();
            for (int i = 0; i < planned.size(); i++) {
                position.put(planned.get(i).requestId(), i);
            }
            return of(outcomes, replicas, o -> Workload.replicaOf(position.get(o.requestId()), replicas));
        }

        /** Share of the other users whose answers all came from one agent, 0..1. */
        public double othersStickiness() {
            return otherUsers == 0 ? 0 : (double) stickyOthers / otherUsers;
        }

        /** Share of the other users each replica kept on one agent, 0..1. */
        public double othersStickinessPerReplica() {
            return otherUsers == 0 ? 0 : (double) stickyOthersPerReplica / otherUsers;
        }

        /** The number of agents that answered the hot user. */
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
     * the dead agent's users move while it is down, and they come back after.
     *
     * <p>A user's <em>home</em> is the agent that answered all its requests of the first phase
     * (before the kill); users answered by two agents before the kill (every user of a
     * round-robin run, nearly) have no home and are not counted. The other users are those whose home
     * is not the dead agent.
     *
     * @param deadAgentUsers      users whose home is the dead agent
     * @param otherUsers          users whose home is another agent
     * @param othersInDown        other users answered during the down phase
     * @param othersStayedDown    of those, users whose down-phase answers all came from their home
     * @param othersInAfter       other users answered during the after phase
     * @param othersStayedAfter   of those, users whose after-phase answers all came from their home
     * @param deadUsersInReturn   dead agent's users answered for requests sent at or after the return
     *                            instant (the re-admission when observed, else the restart)
     * @param deadUsersReturned   of those, users whose answers from then on all came from their home
     */
    public record FailoverStickiness(int deadAgentUsers, int otherUsers, int othersInDown, int othersStayedDown,
                                     int othersInAfter, int othersStayedAfter, int deadUsersInReturn,
                                     int deadUsersReturned) {

        /**
         * Computes the figures of a run.
         *
         * @param outcomes        every request's outcome with its send time
         * @param phases          the run's phases: before, down and after the fault
         * @param deadAgent       the id of the agent that was killed, as in the answers' {@code agent_id}
         * @param returnFromNanos requests sent from this instant on count for the return
         */
        public static FailoverStickiness of(List<TimedOutcome> outcomes, Phases phases, String deadAgent,
                                            long returnFromNanos) {
            Objects.requireNonNull(deadAgent, "deadAgent");
            List<List<TimedOutcome>> byPhase = phases.split(outcomes);
            Map<Integer, String> home = new HashMap<>();
            agentsOfUsers(byPhase.get(0).stream().map(TimedOutcome::outcome)).forEach((user, agents) -> {
                if (agents.size() == 1) {
                    home.put(user, agents.iterator().next());
                }
            });
            int dead = (int) home.values().stream().filter(deadAgent::equals).count();
            int[] down = stayed(byPhase.get(1), home, deadAgent, false);
            int[] after = stayed(byPhase.get(2), home, deadAgent, false);
            int[] back = stayed(outcomes.stream().filter(o -> o.sentAtNanos() - returnFromNanos >= 0).toList(), home,
                    deadAgent, true);
            return new FailoverStickiness(dead, home.size() - dead, down[0], down[1], after[0], after[1], back[0],
                    back[1]);
        }

        /**
         * Among the answered users with a home on the dead agent ({@code deadUsers}) or elsewhere: how
         * many, and how many of them all of whose answers came from their home.
         */
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
     * Keys (users) whose agent changed from one phase of a run to the next. A user's agent in a
     * phase is the agent that answered the last-sent of its answered requests in that phase, so a
     * key that a ramping agent takes over during a phase counts where it ended. Only users answered
     * in both phases are compared. A move is the changing agents' when the agent before or the agent
     * after is one of them (the agent that joins or leaves, or is back); any other move is a key of
     * an agent that did not change, which consistent hashing promises never to move. Immutable.
     *
     * @param compared   users answered in both phases
     * @param moved      of those, users whose agent changed
     * @param otherMoved of those, users moved between two agents neither of which joined or left
     */
    public record KeyMoves(int compared, int moved, int otherMoved) {

        /** @throws IllegalArgumentException unless 0 <= otherMoved <= moved <= compared */
        public KeyMoves {
            if (!(0 <= otherMoved && otherMoved <= moved && moved <= compared)) {
                throw new IllegalArgumentException("need 0 <= otherMoved <= moved <= compared, were " + otherMoved
                        + ", " + moved + ", " + compared);
            }
        }

        /**
         * Counts the moves from {@code earlier} to {@code later}.
         *
         * @param earlier  the outcomes of a phase, any order
         * @param later    the outcomes of the next phase, any order
         * @param changing the agents that join or leave in the run; a move from or to one of them is theirs
         */
        public static KeyMoves between(Collection<TimedOutcome> earlier, Collection<TimedOutcome> later,
                                       Set<String> changing) {
            Map<Integer, String> after = agentsAtEnd(later);
            int compared = 0, moved = 0, otherMoved = 0;
            for (Map.Entry<Integer, String> user : agentsAtEnd(earlier).entrySet()) {
                String now = after.get(user.getKey());
                if (now == null) {
                    continue;
                }
                compared++;
                if (!now.equals(user.getValue())) {
                    moved++;
                    if (!changing.contains(now) && !changing.contains(user.getValue())) {
                        otherMoved++;
                    }
                }
            }
            return new KeyMoves(compared, moved, otherMoved);
        }

        /** Each answered user's agent at the end of a phase: that of its last-sent answered request. */
        static Map<Integer, String> agentsAtEnd(Collection<TimedOutcome> phase) {
            Map<Integer, TimedOutcome> last = new HashMap<>();
            phase.stream().filter(o -> o.outcome().isSuccess()).forEach(o -> last.merge(o.outcome().userId(), o,
                    (a, b) -> b.sentAtNanos() - a.sentAtNanos() >= 0 ? b : a));
            Map<Integer, String> agents = new HashMap<>();
            last.forEach((user, o) -> agents.put(user, o.outcome().agentId()));
            return agents;
        }
    }
}
