package io.github.agentlb.core.shared;

import java.util.ArrayList;
import java.util.List;

/**
 * What a follower replica saw since its last share with the leader: the ring positions of the
 * keyed requests it routed and the load reports it received, taken as one {@link Observations}
 * every {@code every} requests, or earlier when a bound of {@link Observations} is reached.
 * Thread-safe: one monitor, held only to append or take.
 */
final class ObservationBuffer {

    private List<Long> positions = new ArrayList<>();
    private List<Observations.Report> reports = new ArrayList<>();
    private int requestsSinceShare;
    private long sequence;

    /**
     * Counts a request routed, with its key's ring position (null without a key).
     *
     * @param every     requests between shares, >= 1
     * @param replicaId this replica's id in the shares
     * @return the observations due for sharing now, or null
     */
    synchronized Observations routed(Long position, int every, String replicaId) {
        if (position != null) {
            positions.add(position);
        }
        requestsSinceShare++;
        return requestsSinceShare >= every || positions.size() >= Observations.MAX_POSITIONS ? take(replicaId) : null;
    }

    /** Keeps a load report; returns the observations due for sharing now (a bound reached), or null. */
    synchronized Observations reported(String agent, double cpu, double memory, String replicaId) {
        reports.add(new Observations.Report(agent, cpu, memory));
        return reports.size() >= Observations.MAX_REPORTS ? take(replicaId) : null;
    }

    /** Forgets what was kept (a replica that starts to lead shares nothing). */
    synchronized void clear() {
        positions = new ArrayList<>();
        reports = new ArrayList<>();
        requestsSinceShare = 0;
    }

    private Observations take(String replicaId) {
        Observations taken = new Observations(replicaId, ++sequence, positions, reports);
        clear();
        return taken;
    }
}
