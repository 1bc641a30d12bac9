package io.github.agentlb.camel;

import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A balancer's queue ({@link FlowControl}) at one moment, for metrics and health details. Counts are
 * since the balancer was created. Immutable.
 *
 * @param waiting      band to the exchanges waiting in it now, highest band first (bands seen so far)
 * @param capacity     the most exchanges that may wait ({@code queueSize}; 0 while the queue is off)
 * @param admitted     exchanges holding a place at an agent now (in flight through the queue's gate)
 * @param released     exchanges released from the queue to an agent
 * @param rejectedFull exchanges refused because the queue was full (429)
 * @param expired      exchanges that waited {@code queueTimeout} (503/504), or that no agent was left to try while they waited (503)
 * @param left         exchanges whose client left while they waited
 * @param waitNanos    the total wait of the exchanges released, ns
 * @param maxWaitNanos the longest wait of an exchange released, ns
 */
public record QueueFigures(Map<Integer, Integer> waiting, int capacity, int admitted, long released,
                           long rejectedFull, long expired, long left, long waitNanos, long maxWaitNanos) {

    public QueueFigures {
        Map<Integer, Integer> copy = new TreeMap<>(Comparator.reverseOrder());
        copy.putAll(waiting);
        waiting = Collections.unmodifiableMap(copy);
    }

    /** @return the exchanges waiting now, all bands */
    public int size() {
        return waiting.values().stream().mapToInt(Integer::intValue).sum();
    }
}
