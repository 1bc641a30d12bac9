package io.github.agentlb.core.fleet;

import java.util.List;

/**
 * Told the whole fleet each time a membership source sees it change: every agent it knows now,
 * names distinct, draining ones included. A source never hands over an empty list by accident:
 * when what it reads is empty, unreadable or invalid it keeps its last good fleet, says why in
 * one log line, and calls nothing. Implementations apply the list as one change (all or nothing)
 * and must not block for long: sources call from their own thread.
 */
@FunctionalInterface
public interface FleetListener {

    /**
     * @param agents the fleet now, never empty, names distinct, in the source's order
     * @throws IllegalArgumentException if the fleet cannot be applied (nothing changed then)
     */
    void fleetChanged(List<AgentSpec> agents);
}
