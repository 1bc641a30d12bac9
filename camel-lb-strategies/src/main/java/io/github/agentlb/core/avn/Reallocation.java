package io.github.agentlb.core.avn;

import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.ring.OneNodeMove;
import io.github.agentlb.core.stats.LoadStatistics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.DoubleToIntFunction;
import java.util.stream.LongStream;

/**
 * The paper's dynamic reallocation (section 2.2.2, fig. 5) as a pure step function: from a ring and
 * what an evaluation sees, the moves to make and the resulting ring.
 *
 * <h2>The step</h2>
 * Replay the recent keyed requests (their ring positions) on the ring to get each agent's request
 * share, compute {@code L_i} (eq. 3) and S (eqs. 4-5). If moves are allowed (S above the
 * threshold, or as {@link MoveGuard} decides), then while S exceeds the settle threshold and fewer
 * than the allowed moves were made, move one virtual node from the agent with the largest
 * {@code L_i} to the one with the smallest, and evaluate S again. The donor keeps at least one
 * virtual node; the total never changes. Ties on {@code L_i} go to the smaller agent id. With
 * {@link AdaptiveVirtualNodesConfig.Builder#paperRule()} (settle threshold = threshold, one move)
 * this is the paper's step.
 *
 * <h2>Re-evaluating without waiting: replay</h2>
 * The paper re-evaluates S after each move. We replay the same requests on the candidate ring: the
 * request counts after the move are exact for those requests. An agent's CPU and memory are assumed
 * to scale with its requests, {@code L_i' = L_i * L_ti' / L_ti} (exact without utilization
 * reports, where {@code L_i = 100 * L_ti}), each prediction from what the window measured on the
 * current ring. Where idle CPU and resident memory do not follow the requests (the live
 * heterogeneous fleet) this credits a move with more effect than it has, so an evaluation stops
 * moving early; the next evaluations, while {@link MoveGuard} stays active, continue. We tried
 * scaling the CPU alone and keeping memory: on the paper's model (experiment b, memory following
 * the load) that predicted too little and the paper's rule then moved a node back and forth
 * without end; erring on the optimistic side converges.
 *
 * <h2>Which move, and oscillation</h2>
 * A move changes two arcs only: the donor's last label {@code donor:(n-1)} goes, the receiver's
 * next label {@code receiver:m} comes. But those arcs fall where the hash puts them, so the
 * paper's move can make things worse: the removed arc may go to a third agent, the new point may
 * take its keys from the least loaded agent. Hence, in this order:
 * <ol>
 *   <li>the first pair, donor by {@code L_i} descending among the {@link #CANDIDATE_AGENTS} most
 *       loaded agents, receiver by {@code L_i} ascending among the {@link #CANDIDATE_AGENTS} least
 *       loaded (donor more loaded than receiver; the paper's pair first), whose replay gives a
 *       strictly smaller S;
 *   <li>else the first such pair whose replay changes no agent's request count (its arcs hold none
 *       of the recent keys): it costs no recent user their agent, and it changes the labels the next
 *       move would use, so the search is not stuck on one ring;
 *   <li>else nothing moves.
 * </ol>
 * So an evaluation never makes its own traffic look worse, and a hot key cannot be bounced from
 * agent to agent (that would change request counts without lowering S). On different traffic a
 * later evaluation can undo a move; the replayed history (not just the last window) makes that
 * rare.
 *
 * <h2>Cost</h2>
 * A move changes the owner only of positions on two arcs ({@link OneNodeMove}), so a candidate
 * is judged by looking up those positions, not by replaying the history on a candidate ring, and
 * a ring is built only for the move chosen. Per evaluation, w replayed positions, v virtual
 * nodes, h agents, m moves (at most {@code maxMovesPerEvaluation}), c candidates per move (at most
 * {@link #CANDIDATE_AGENTS}{@code ^2} = 64; 3 for three agents), a positions on a candidate's two
 * arcs (about {@code 2w/v} on average):
 * O(w log w + w log v + m * (h log h + v + c * (log w + a log v + h log h))).
 * {@link Evaluation#work()} counts the candidates and lookups. Before, every pair of agents
 * (h(h-1)/2) was tried with a full replay on a ring of its own, O(m h^2 (v + w log v)): at 300
 * agents one evaluation did not finish in 5 minutes.
 *
 * <p>Stateless and thread-safe.
 */
public final class Reallocation {

    /**
     * Donors are taken from this many most loaded agents (that can give a node), receivers from
     * this many least loaded: 8, so at most 64 candidate moves per step. With up to 9 agents this
     * is every pair a donor more loaded than its receiver can form, so the search is the full one.
     */
    static final int CANDIDATE_AGENTS = 8;

    private static final double EPSILON = 1e-12;

    private Reallocation() {
    }

    /**
     * Evaluates a window without a {@link MoveGuard}: if S exceeds the threshold, moves up to
     * {@code maxMovesPerEvaluation} virtual nodes, until the predicted S is at most the settle
     * threshold.
     *
     * @param ring           the ring that served the window
     * @param capacityShares agent id to its capacity weight {@code e_i} (eq. 1, summing to 1)
     * @param window         what the window observed; its agents should be the ring's
     * @return the load indices, S, the moves made and the resulting ring
     */
    public static Evaluation evaluate(HashRing ring, Map<String, Double> capacityShares, WindowSnapshot window,
            AdaptiveVirtualNodesConfig config) {
        return evaluate(ring, capacityShares, window, config,
                s -> s > config.imbalanceThreshold() ? config.maxMovesPerEvaluation() : 0);
    }

    /**
     * Evaluates a window and moves at most {@code allowedMoves.applyAsInt(S)} virtual nodes, S
     * measured before any move; the moves stop earlier once the predicted S is at most the settle
     * threshold or no move qualifies.
     *
     * @param allowedMoves from S (fraction) to the virtual nodes this evaluation may move (>= 0),
     *                     e.g. {@link MoveGuard#movesAllowed}; called once
     * @return the load indices, S, the moves made and the resulting ring
     */
    public static Evaluation evaluate(HashRing ring, Map<String, Double> capacityShares, WindowSnapshot window,
            AdaptiveVirtualNodesConfig config, DoubleToIntFunction allowedMoves) {
        long[] positions = window.positions();
        SortedMap<String, Long> requests = owners(ring, positions);
        boolean withUtilization = LoadIndex.usesUtilization(requests, window.utilization());
        SortedMap<String, Double> loads = LoadIndex.loadIndices(requests, capacityShares, window.utilization(), config);
        double imbalance = LoadIndex.imbalanceIndex(loads);

        Measured measured = new Measured(requests, loads, capacityShares,
                withUtilization ? config.loadWeights().requests() : 1, OneNodeMove.sortedUnsigned(positions));
        List<Evaluation.Move> moves = new ArrayList<>();
        State state = new State(ring, measured.requests.clone(), measured.loads.clone(), imbalance);
        int allowed = allowedMoves.applyAsInt(imbalance);
        Work work = new Work();
        work.lookups = positions.length;
        while (state.imbalance > config.settleThreshold() && moves.size() < allowed) {
            State next = bestMove(state, measured, work);
            if (next == null) {
                break;
            }
            moves.add(new Evaluation.Move(next.from, next.to, state.imbalance, next.imbalance));
            state = next;
        }
        return new Evaluation(positions.length, loads, imbalance, withUtilization, moves, state.ring,
                new Evaluation.Work(work.candidates, work.lookups));
    }

    /**
     * The virtual node counts after moving one from {@code from} to {@code to}: on the ring, label
     * {@code from:(n-1)} disappears and {@code to:m} appears.
     *
     * @throws IllegalArgumentException if {@code from} has a single virtual node, or an agent is unknown
     */
    public static SortedMap<String, Integer> moveOne(Map<String, Integer> counts, String from, String to) {
        Integer donor = counts.get(from);
        Integer receiver = counts.get(to);
        if (donor == null || receiver == null || from.equals(to)) {
            throw new IllegalArgumentException("a move needs two distinct known agents, was " + from + " -> " + to);
        }
        if (donor < 2) {
            throw new IllegalArgumentException("virtualNodes of " + from + " must stay >= 1, was " + donor);
        }
        SortedMap<String, Integer> moved = new TreeMap<>(counts);
        moved.put(from, donor - 1);
        moved.put(to, receiver + 1);
        return moved;
    }

    /**
     * The first improving (else the first neutral) move among donors from the
     * {@link #CANDIDATE_AGENTS} most loaded agents and receivers from the {@link #CANDIDATE_AGENTS}
     * least loaded, each judged by the change in request counts its two arcs make
     * ({@link OneNodeMove#countChanges}); the ring is built for the chosen move only.
     */
    private static State bestMove(State state, Measured measured, Work work) {
        int agents = measured.agents.length;
        // By L_i, ties to the smaller agent id (agents are sorted by id).
        Comparator<Integer> byLoad = Comparator.<Integer>comparingDouble(i -> state.loads[i]).thenComparingInt(i -> i);
        List<Integer> receivers = new ArrayList<>();
        List<Integer> donors = new ArrayList<>();
        for (int i = 0; i < agents; i++) {
            receivers.add(i);
            if (state.ring.virtualNodes().get(measured.agents[i]) > 1) {
                donors.add(i);
            }
        }
        receivers.sort(byLoad);
        donors.sort(Comparator.<Integer>comparingDouble(i -> state.loads[i]).reversed().thenComparingInt(i -> i));
        receivers = receivers.subList(0, Math.min(receivers.size(), CANDIDATE_AGENTS));
        donors = donors.subList(0, Math.min(donors.size(), CANDIDATE_AGENTS));
        double[] unchanged = new double[agents];
        for (int i = 0; i < agents; i++) {
            unchanged[i] = measured.predict(i, state.requests[i]);
        }
        State neutral = null;
        for (int from : donors) {
            for (int to : receivers) {
                if (!(state.loads[from] > state.loads[to])) {
                    continue;
                }
                Map<String, Long> delta = new HashMap<>();
                work.candidates++;
                work.lookups += OneNodeMove.of(state.ring, measured.agents[from], measured.agents[to])
                        .countChanges(measured.sortedPositions, delta);
                long[] requests = state.requests.clone();
                double[] loads = unchanged.clone();
                delta.forEach((agent, change) -> {
                    int i = measured.index.get(agent);
                    requests[i] += change;
                    loads[i] = measured.predict(i, requests[i]);
                });
                double imbalance = LoadStatistics.of(loads).coefficientOfVariation();
                if (imbalance < state.imbalance - EPSILON) {
                    return state.moved(measured.agents[from], measured.agents[to], requests, loads, imbalance);
                }
                if (neutral == null && delta.values().stream().allMatch(change -> change == 0)) {
                    neutral = state.moved(measured.agents[from], measured.agents[to], requests, loads, imbalance);
                }
            }
        }
        return neutral;
    }

    /** Agent id to the number of {@code positions} it owns on {@code ring}; every agent of the ring, zeros included. */
    static SortedMap<String, Long> owners(HashRing ring, long[] positions) {
        SortedMap<String, Long> counts = new TreeMap<>();
        for (String agent : ring.agents()) {
            counts.put(agent, 0L);
        }
        for (long position : positions) {
            counts.merge(ring.agentAt(position), 1L, Long::sum);
        }
        return counts;
    }

    /**
     * What the evaluated window measured on the current ring, by agent index (agents sorted by id):
     * the base of every prediction.
     */
    private static final class Measured {
        final String[] agents;
        final Map<String, Integer> index = new HashMap<>();
        final long[] requests;
        final double[] loads;
        final double[] capacityShares;
        final long total;
        final double requestWeight;
        final long[] sortedPositions;

        Measured(SortedMap<String, Long> requests, SortedMap<String, Double> loads, Map<String, Double> capacityShares,
                double requestWeight, long[] sortedPositions) {
            this.agents = requests.keySet().toArray(new String[0]);
            this.requests = new long[agents.length];
            this.loads = new double[agents.length];
            this.capacityShares = new double[agents.length];
            for (int i = 0; i < agents.length; i++) {
                index.put(agents[i], i);
                this.requests[i] = requests.get(agents[i]);
                this.loads[i] = loads.get(agents[i]);
                this.capacityShares[i] = capacityShares.getOrDefault(agents[i], 1.0 / agents.length);
            }
            this.total = LongStream.of(this.requests).sum();
            this.requestWeight = requestWeight;
            this.sortedPositions = sortedPositions;
        }

        /**
         * {@code L_i} of agent {@code i} on a ring where it has {@code requestsAfter} of the
         * replayed requests: {@code L_i' = L_i * L_ti' / L_ti}, the request share replayed
         * exactly and the CPU and memory assumed to follow the requests (exact without
         * utilization reports, where {@code L_i = 100 * L_ti}); an agent that had no request gains
         * {@code 100 * b_t * L_ti'}.
         */
        double predict(int i, long requestsAfter) {
            double before = LoadIndex.requestShare(requests[i], total, capacityShares[i], agents.length);
            double after = LoadIndex.requestShare(requestsAfter, total, capacityShares[i], agents.length);
            return before > 0 ? loads[i] * after / before : loads[i] + 100 * requestWeight * after;
        }
    }

    /** What an evaluation did, counted as it goes. */
    private static final class Work {
        int candidates;
        long lookups;
    }

    /** A ring and the requests and load indices (by agent index) predicted on it. */
    private static final class State {
        final HashRing ring;
        final long[] requests;
        final double[] loads;
        final double imbalance;
        String from;
        String to;

        State(HashRing ring, long[] requests, double[] loads, double imbalance) {
            this.ring = ring;
            this.requests = requests;
            this.loads = loads;
            this.imbalance = imbalance;
        }

        /** The state after moving one node from {@code from} to {@code to}: its ring built, its prediction given. */
        State moved(String from, String to, long[] requests, double[] loads, double imbalance) {
            State next = new State(ring.withVirtualNodes(moveOne(ring.virtualNodes(), from, to)), requests, loads,
                    imbalance);
            next.from = from;
            next.to = to;
            return next;
        }
    }
}
