package io.github.agentlb.demo;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.camel.RoundRobinLB;
import java.util.List;
import java.util.Locale;

/**
 * The strategies the demo proxy can run, by short name. Thread-safe; stateless.
 */
public final class Strategies {

    /** Round-robin: {@link RoundRobinLB}. */
    public static final String ROUND_ROBIN = "rr";
    /** Consistent hashing on the {@code user_id} query parameter: {@link ConsistentHashLB}. */
    public static final String CONSISTENT_HASH = "ch";
    /** Utilization-driven weights, one PID controller per agent: {@link PidWeightedLB}. */
    public static final String PID = "pid";
    /** Consistent hashing with adaptive, capacity-weighted virtual nodes: {@link AdaptiveVirtualNodeLB}. */
    public static final String ADAPTIVE_VIRTUAL_NODES = "avn";

    private static final List<String> NAMES = List.of(ROUND_ROBIN, CONSISTENT_HASH, PID, ADAPTIVE_VIRTUAL_NODES);

    private Strategies() {
    }

    /**
     * A new balancer for {@code name} with its default settings. A balancer instance belongs to
     * one route: create one per route.
     *
     * @param name a strategy name from {@link #names()}, case-insensitive
     * @throws IllegalArgumentException if the name is unknown; the message lists the valid names
     */
    public static AgentLoadBalancerSupport create(String name) {
        String key = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return switch (key) {
            case ROUND_ROBIN -> new RoundRobinLB();
            case CONSISTENT_HASH -> new ConsistentHashLB();
            case PID -> new PidWeightedLB();
            case ADAPTIVE_VIRTUAL_NODES -> new AdaptiveVirtualNodeLB();
            default -> throw new IllegalArgumentException(
                    "strategy must be one of " + NAMES + ", was '" + name + "'");
        };
    }

    /** The valid strategy names, in a stable order; unmodifiable. */
    public static List<String> names() {
        return NAMES;
    }
}
