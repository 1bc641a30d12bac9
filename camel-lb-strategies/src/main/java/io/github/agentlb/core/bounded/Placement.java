package io.github.agentlb.core.bounded;

import java.util.List;

/**
 * Where bounded loads sends one keyed request.
 *
 * @param agents the agents to try: the choice first, then the failover order (the rest of the
 *               walk, each agent once); unmodifiable
 * @param kind   why the first agent was chosen
 */
public record Placement(List<String> agents, Kind kind) {

    /** Why the first agent was chosen. */
    public enum Kind {
        /** The key's home agent (the ring owner), under the bound. */
        HOME,
        /** Another agent: home was full, this was the first one under the bound in the walk. */
        OVERFLOW,
        /** The agent the key overflowed to earlier; it is still under the bound. */
        STICKY,
        /** Home again: home fell to the return level (c_low x mean) with the key's load added. */
        RETURNED,
        /**
         * Where the key already was, although full: no agent could take the key's own recent
         * requests under the bound (a hot key), so the key is kept whole rather than split.
         */
        HELD
    }

    public Placement {
        agents = List.copyOf(agents);
    }

    /** The agent chosen. */
    public String agent() {
        return agents.get(0);
    }
}
