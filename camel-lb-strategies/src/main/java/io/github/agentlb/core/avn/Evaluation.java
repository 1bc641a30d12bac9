package io.github.agentlb.core.avn;

import io.github.agentlb.core.ring.HashRing;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The outcome of one evaluation of {@link AdaptiveVirtualNodes}. Immutable and thread-safe.
 *
 * @param requests        keyed requests replayed (the history's positions)
 * @param loadIndices     agent id to {@code L_i} (eq. 3), percent, sorted by agent id
 * @param imbalanceIndex  S (eqs. 4-5) before any move, a fraction
 * @param usedUtilization whether {@code L_i} included CPU and memory (every agent had reported)
 * @param moves           the virtual nodes moved, in order; empty if S was within the threshold or no move qualified
 * @param ring            the ring after the moves (the same instance as before if there were none)
 * @param work            what the evaluation computed (for tests and benchmarks of its cost)
 */
public record Evaluation(long requests, SortedMap<String, Double> loadIndices, double imbalanceIndex,
        boolean usedUtilization, List<Move> moves, HashRing ring, Work work) {

    public Evaluation {
        loadIndices = Collections.unmodifiableSortedMap(new TreeMap<>(loadIndices));
        moves = List.copyOf(moves);
    }

    /** S expected after the moves: the last move's prediction, or the measured S without moves. */
    public double predictedImbalanceIndex() {
        return moves.isEmpty() ? imbalanceIndex : moves.get(moves.size() - 1).predictedImbalanceAfter();
    }

    /**
     * One virtual node moved: {@code from} lost its last label ({@code from:(n-1)}), {@code to}
     * gained its next one ({@code to:m}), so only those two arcs changed owner.
     *
     * @param from                    the agent that lost a virtual node (the most loaded one that could)
     * @param to                      the agent that gained one
     * @param imbalanceBefore         S before the move
     * @param predictedImbalanceAfter S after the move, replaying the same requests on the new ring
     */
    public record Move(String from, String to, double imbalanceBefore, double predictedImbalanceAfter) {
    }

    /**
     * The work of one evaluation, counted rather than timed.
     *
     * @param candidateMoves one-node moves judged (each by the positions on its two arcs)
     * @param lookups        ring lookups of positions: the one replay of the history on the
     *                       current ring, plus the positions on the candidates' arcs
     */
    public record Work(int candidateMoves, long lookups) {
    }
}
