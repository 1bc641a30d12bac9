package io.github.agentlb.core.shared;

import io.github.agentlb.core.Check;
import java.util.List;

/**
 * What one follower replica saw since its previous share, for the leader to learn from: the ring
 * positions of the keyed requests it routed and the load reports its agents' answers carried. The
 * leader adds the positions to its key history and the reports to its evaluation window, so that
 * it evaluates all replicas' traffic, not its own share of it.
 *
 * <p>A follower shares every {@link #shareEvery shareEvery(evaluationWindow, replicas,
 * SHARES_PER_WINDOW)} of its own requests: {@value #SHARES_PER_WINDOW} times per window of the
 * leader's, which closes one every {@code evaluationWindow / replicas} of its own requests. A share
 * per leader's window would reach the leader up to a whole window late (after the evaluation it
 * was meant for, describing the ring before the last move): in {@code AvnReplicaObservationsTest}
 * that lag cost all the gain; a quarter of a window costs about none.
 *
 * <p>Bounded: at most {@value #MAX_POSITIONS} positions and {@value #MAX_REPORTS} reports per share
 * (a follower shares earlier when a bound is reached), which keeps one encoded share (about 25
 * bytes a line) far below ZooKeeper's 1 MB znode limit. Immutable.
 *
 * @param replicaId the sharing replica's id, not blank
 * @param sequence  1, 2, ...: one more each share of this replica; a receiver takes each
 *                  (replica, sequence) once and ignores one not above the last it took
 * @param positions ring positions of the keyed requests, in the order they were routed
 * @param reports   load reports, in arrival order
 */
public record Observations(String replicaId, long sequence, List<Long> positions, List<Report> reports) {

    /** Most positions in one share. */
    public static final int MAX_POSITIONS = 4096;
    /** Most reports in one share. */
    public static final int MAX_REPORTS = 4096;

    /**
     * @throws IllegalArgumentException if the id is blank, the sequence {@code < 1}, a list null, holds
     *                                  null or exceeds its bound
     */
    public Observations {
        Check.notBlank("replicaId", replicaId);
        if (sequence < 1) {
            throw new IllegalArgumentException("sequence must be >= 1, was " + sequence);
        }
        if (positions == null || reports == null) {
            throw new IllegalArgumentException("positions and reports must not be null");
        }
        if (positions.size() > MAX_POSITIONS) {
            throw new IllegalArgumentException("at most " + MAX_POSITIONS + " positions, was " + positions.size());
        }
        if (reports.size() > MAX_REPORTS) {
            throw new IllegalArgumentException("at most " + MAX_REPORTS + " reports, was " + reports.size());
        }
        try {
            positions = List.copyOf(positions);
            reports = List.copyOf(reports);
        } catch (NullPointerException e) {
            throw new IllegalArgumentException("positions and reports must not hold null");
        }
    }

    /** Shares of each follower per window of the leader's: {@value}. */
    public static final int SHARES_PER_WINDOW = 4;

    /**
     * How many of its own requests a follower routes between two shares:
     * {@code max(1, evaluationWindow / (replicas x sharesPerWindow))}, at most {@link #MAX_POSITIONS}.
     *
     * @param replicas        replicas sharing the allocation (values below 1 count as 1)
     * @param sharesPerWindow shares per leader's window (values below 1 count as 1)
     */
    public static int shareEvery(int evaluationWindow, int replicas, int sharesPerWindow) {
        long perShare = (long) evaluationWindow / ((long) Math.max(1, replicas) * Math.max(1, sharesPerWindow));
        return (int) Math.min(MAX_POSITIONS, Math.max(1, perShare));
    }

    /** Nothing observed: no position, no report. */
    public boolean isEmpty() {
        return positions.isEmpty() && reports.isEmpty();
    }

    /**
     * One load report: an agent's CPU and memory utilization, as its answer carried it.
     *
     * @param agent  the agent id, not blank
     * @param cpu    fraction 0..1
     * @param memory fraction 0..1
     */
    public record Report(String agent, double cpu, double memory) {

        /** @throws IllegalArgumentException if the id is blank or a value is NaN or outside [0, 1] */
        public Report {
            Check.notBlank("agent", agent);
            Check.fraction("cpu", cpu);
            Check.fraction("memory", memory);
        }
    }
}
