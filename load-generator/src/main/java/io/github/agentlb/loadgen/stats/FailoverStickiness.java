package io.github.agentlb.loadgen.stats;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether users kept their agent through a fault, as a consistent-hash balancer promises: only
 * the dead agent's users move while it is down, and they come back after. Computed from the
 * successful answers alone (a failed request tells nothing about where the balancer sent it).
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
        Map<Integer, String> home = soleAgents(byPhase.get(0));
        int dead = (int) home.values().stream().filter(deadAgent::equals).count();
        Tally down = tally(byPhase.get(1), home, deadAgent, false);
        Tally after = tally(byPhase.get(2), home, deadAgent, false);
        List<TimedOutcome> fromReturn = outcomes.stream().filter(o -> o.sentAtNanos() - returnFromNanos >= 0).toList();
        Tally back = tally(fromReturn, home, deadAgent, true);
        return new FailoverStickiness(dead, home.size() - dead, down.users, down.stayed, after.users, after.stayed,
                back.users, back.stayed);
    }

    private record Tally(int users, int stayed) {
    }

    /** Among users with a home on the dead agent ({@code deadUsers}) or elsewhere, who stayed there. */
    private static Tally tally(List<TimedOutcome> outcomes, Map<Integer, String> home, String deadAgent,
                               boolean deadUsers) {
        Map<Integer, Boolean> stayed = new HashMap<>();
        for (TimedOutcome t : outcomes) {
            RequestOutcome o = t.outcome();
            String h = home.get(o.userId());
            if (o.isSuccess() && h != null && h.equals(deadAgent) == deadUsers) {
                stayed.merge(o.userId(), h.equals(o.agentId()), Boolean::logicalAnd);
            }
        }
        return new Tally(stayed.size(), (int) stayed.values().stream().filter(Boolean::booleanValue).count());
    }

    /** Each user answered by exactly one agent in {@code outcomes}, with that agent. */
    private static Map<Integer, String> soleAgents(List<TimedOutcome> outcomes) {
        Map<Integer, String> agent = new HashMap<>();
        Map<Integer, Boolean> sole = new HashMap<>();
        for (TimedOutcome t : outcomes) {
            RequestOutcome o = t.outcome();
            if (o.isSuccess()) {
                String first = agent.putIfAbsent(o.userId(), o.agentId());
                sole.merge(o.userId(), first == null || first.equals(o.agentId()), Boolean::logicalAnd);
            }
        }
        agent.keySet().removeIf(user -> !sole.get(user));
        return agent;
    }

    /** The shares, NaN when none. */
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
