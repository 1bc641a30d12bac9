package io.github.agentlb.core.avn;

import java.util.Arrays;
import java.util.Map;

/**
 * What an evaluation sees: the ring positions (key hashes) of recent keyed requests, to replay on
 * the current ring and on candidate rings, and each agent's CPU and memory utilization.
 * Immutable and thread-safe.
 *
 * @param positions   ring positions of the recent keyed requests, in any order; copied
 * @param utilization agent id to its utilization (an agent without reports is absent); copied
 */
public record WindowSnapshot(long[] positions, Map<String, AgentUtilization> utilization) {

    public WindowSnapshot {
        positions = positions.clone();
        utilization = Map.copyOf(utilization);
    }

    /** Positions without utilization reports. */
    public static WindowSnapshot of(long... positions) {
        return new WindowSnapshot(positions, Map.of());
    }

    /** The positions; a copy. */
    @Override
    public long[] positions() {
        return positions.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WindowSnapshot w && Arrays.equals(positions, w.positions) && utilization.equals(w.utilization);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(positions) + utilization.hashCode();
    }

    @Override
    public String toString() {
        return "WindowSnapshot[positions=" + positions.length + ", utilization=" + utilization + "]";
    }
}
