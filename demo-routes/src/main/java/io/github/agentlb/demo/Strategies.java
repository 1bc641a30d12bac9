package io.github.agentlb.demo;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.LeastRequestLB;
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
    /** Least request with the power of two choices: {@link LeastRequestLB}. */
    public static final String LEAST_REQUEST = "lr";

    /**
     * Camel's own {@code roundRobin()} in the same proxy route, as a baseline for what our
     * balancer costs ; no balancer of ours, no failover. Not among {@link #names()}.
     */
    public static final String CAMEL_ROUND_ROBIN = "camel-rr";

    private static final List<String> NAMES = List.of(ROUND_ROBIN, CONSISTENT_HASH, PID, ADAPTIVE_VIRTUAL_NODES,
            LEAST_REQUEST);
    private static final List<String> BASELINES = List.of(CAMEL_ROUND_ROBIN);

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
            case LEAST_REQUEST -> new LeastRequestLB();
            case CAMEL_ROUND_ROBIN -> throw new IllegalArgumentException(
                    "strategy '" + CAMEL_ROUND_ROBIN + "' is Camel's own roundRobin(), which ProxyRoutes builds; it has no balancer of ours");
            default -> throw new IllegalArgumentException(
                    "strategy must be one of " + NAMES + ", was '" + name + "'");
        };
    }

    /** The valid strategy names, in a stable order; unmodifiable. */
    public static List<String> names() {
        return NAMES;
    }

    /** The proxy's baselines: Camel's built-in balancers by name ({@link #CAMEL_ROUND_ROBIN}); unmodifiable. */
    public static List<String> baselines() {
        return BASELINES;
    }

    /** Whether {@code name} (lower case) is a baseline, run by Camel's own balancer rather than one of ours. */
    public static boolean isBaseline(String name) {
        return BASELINES.contains(name);
    }
}
