package io.github.agentlb.loadgen.stats;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

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
            throw new IllegalArgumentException("need 0 <= otherMoved <= moved <= compared, were " + otherMoved + ", "
                    + moved + ", " + compared);
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
        Map<Integer, String> before = agentsAtEnd(earlier);
        Map<Integer, String> after = agentsAtEnd(later);
        int compared = 0, moved = 0, otherMoved = 0;
        for (Map.Entry<Integer, String> user : before.entrySet()) {
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
        for (TimedOutcome o : phase) {
            RequestOutcome outcome = o.outcome();
            if (outcome.isSuccess()) {
                last.merge(outcome.userId(), o, (a, b) -> b.sentAtNanos() - a.sentAtNanos() >= 0 ? b : a);
            }
        }
        Map<Integer, String> agents = new HashMap<>();
        last.forEach((user, o) -> agents.put(user, o.outcome().agentId()));
        return agents;
    }
}
