package io.github.agentlb.core.ring;

import java.util.HashSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The walk behind {@link HashRing#agentsClockwise}: the distinct owners met from a point on,
 * clockwise. Nothing is computed ahead: most requests take only the owner, so the set of agents
 * seen is created on the first step past it. Not thread-safe (one per walk); the ring's arrays
 * are never written.
 */
final class ClockwiseAgents implements Iterator<String> {
    private final String[] owners;
    private final int agents;
    private final int start;
    private int step;
    private Set<String> seen;
    private String next;

    /**
     * @param owners the ring's point owners, in ring order; not copied
     * @param agents the number of distinct agents on the ring
     * @param start  the index of the first point
     */
    ClockwiseAgents(String[] owners, int agents, int start) {
        this.owners = owners;
        this.agents = agents;
        this.start = start;
    }

    @Override
    public boolean hasNext() {
        if (next == null) {
            next = advance();
        }
        return next != null;
    }

    @Override
    public String next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        String current = next;
        next = null;
        return current;
    }

    private String advance() {
        if (step == 0) {
            step = 1;
            return owners[start];
        }
        if (seen == null) {
            seen = new HashSet<>();
            seen.add(owners[start]);
        }
        while (seen.size() < agents && step < owners.length) {
            String owner = owners[(start + step++) % owners.length];
            if (seen.add(owner)) {
                return owner;
            }
        }
        return null;
    }
}
