package io.github.agentlb.core.bounded;

import java.util.Objects;

/**
 * Where bounded loads sends one keyed request; the failover order after it is the rest of the
 * ring walk ({@link RingWalk#startingWith}).
 *
 * @param agent the agent chosen
 * @param kind  why it was chosen
 */
public record Placement(String agent, Kind kind) {

    /** Why the agent was chosen. */
    public enum Kind {
        /** The key's home agent (the ring owner), as for its previous request. */
        HOME,
        /**
         * Another agent than for the key's previous request: its home passed the key on (rank
         * rule) or was full (plain rule), and this agent of the overflow order took it.
         */
        OVERFLOW,
        /** The same agent away from home as for the key's previous request. */
        STICKY,
        /** Home again after the key's previous request went elsewhere. */
        RETURNED,
        /**
         * Home although full: a heavy key is kept whole on its home (rank rule), or no agent has
         * room (plain rule).
         */
        HELD,
        /**
         * Another agent than the share bound chose, for this request only: the chosen one had too
         * many requests in flight ({@link BoundedLoad#inFlightFactor()}).
         */
        DIVERTED
    }

    public Placement {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(kind, "kind");
    }
}
