package io.github.agentlb.core.health;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The state machine of active health checks ({@link ActiveHealthCheck}) for a set of agents: feed
 * it each probe's result, it says when an agent goes down or comes up. An agent starts up;
 * {@code unhealthyThreshold} failed probes in a row mark it down, then {@code healthyThreshold}
 * passed probes in a row mark it up (HAProxy's {@code fall}/{@code rise}, Envoy's thresholds); a
 * result against the run resets the other count. A step function: no clock, no I/O.
 *
 * <p>Thread-safe: every method takes this object's monitor (called once per probe, not per request).
 */
public final class HealthCheckStates {

    /** What one probe result changed. */
    public enum Transition {
        /** Nothing: the agent stays as it was. */
        NONE,
        /** The agent was up and is now down. */
        MARKED_DOWN,
        /** The agent was down and is now up. */
        MARKED_UP
    }

    private final ActiveHealthCheck config;
    private final Map<String, Counts> agents = new HashMap<>();

    /** @param config the thresholds */
    public HealthCheckStates(ActiveHealthCheck config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Sets the agents tracked: survivors keep their state, new agents start up, removed ones are forgotten. */
    public synchronized void setAgents(Collection<String> agentIds) {
        agents.keySet().retainAll(Set.copyOf(agentIds));
        agentIds.forEach(id -> agents.computeIfAbsent(id, k -> new Counts()));
    }

    /**
     * Records one probe of {@code agentId}.
     *
     * @param passed whether the probe passed (the expected status in time)
     * @return the transition it caused; {@link Transition#NONE} for an agent not tracked
     */
    public synchronized Transition record(String agentId, boolean passed) {
        Counts c = agents.get(agentId);
        if (c == null) {
            return Transition.NONE;
        }
        if (passed) {
            c.failed = 0;
            c.passed++;
            if (c.down && c.passed >= config.healthyThreshold()) {
                c.down = false;
                return Transition.MARKED_UP;
            }
        } else {
            c.passed = 0;
            c.failed++;
            if (!c.down && c.failed >= config.unhealthyThreshold()) {
                c.down = true;
                return Transition.MARKED_DOWN;
            }
        }
        return Transition.NONE;
    }

    /** @return whether {@code agentId} is marked down */
    public synchronized boolean isDown(String agentId) {
        Counts c = agents.get(agentId);
        return c != null && c.down;
    }

    /** @return the agents marked down, sorted */
    public synchronized Set<String> down() {
        Set<String> out = new TreeSet<>();
        agents.forEach((id, c) -> {
            if (c.down) {
                out.add(id);
            }
        });
        return out;
    }

    private static final class Counts {
        int passed;
        int failed;
        boolean down;
    }
}
