package io.github.agentlb.loadgen.config;

import io.github.agentlb.agent.AgentConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The embedded agents of the uniform and heterogeneous scenarios (and of the others, which take
 * {@link #UNIFORM}'s): three stub agents A1-A3 that differ only in capacity.
 */
public enum AgentSet {

    /** Three identical agents, A1, A2 and A3, with the template's (unlimited) capacity. */
    UNIFORM,

    /**
     * A3 at half the capacity of A1 and A2: capacities {@value #FULL_CAPACITY},
     * {@value #FULL_CAPACITY} and {@value #HALF_CAPACITY} concurrent requests, same delays.
     *
     * <p>Why these numbers: the default load is 10 closed-loop workers over 50-150 ms agents, and
     * an agent reports utilization = (in service + queued) / capacity. A total capacity of 15
     * above the 10 requests in flight leaves the fleet at 2/3 utilization when it is balanced
     * (4, 4 and 2 requests in flight: 0.67 each), the range Robinhood's fleets run in, where the
     * balancer rather than saturation decides. Round-robin sends A3 a third of the requests,
     * which its 3 servers cannot keep up with: in the closed loop about 4 requests sit at A3
     * (utilization 1.33, queueing) and 3 at each of the others (0.5), max/mean about 1.7, so the
     * difference a load-aware strategy makes is large and measurable. Capacities 4, 4, 2 (total
     * equal to the concurrency) would put a balanced fleet exactly at saturation, where any
     * weight jitter queues.
     *
     * <p>A3 also reports a higher idle CPU ({@value #HALF_CAPACITY_CPU_BASE}) and memory
     * ({@value #HALF_CAPACITY_MEMORY_BASE}) than the defaults: the adaptive virtual node
     * strategy's load index (paper eq. 3) reads those reports, so the smaller host also looks
     * fuller to it, as a smaller machine with the same resident software would.
     */
    HETEROGENEOUS;

    /** The agent ids of every scenario, in order. */
    public static final List<String> AGENT_IDS = List.of("A1", "A2", "A3");
    /** Capacities (concurrent requests) of A1 and A2, and of A3, in {@link #HETEROGENEOUS}. */
    public static final int FULL_CAPACITY = 6, HALF_CAPACITY = FULL_CAPACITY / 2;
    /** Idle CPU and memory utilization A3 reports in {@link #HETEROGENEOUS}. */
    public static final double HALF_CAPACITY_CPU_BASE = 0.3, HALF_CAPACITY_MEMORY_BASE = 0.4;

    /** The name used on the command line, in reports and in file names, e.g. {@code uniform}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** One line saying how the agents differ, for reports. */
    public String description() {
        return this == UNIFORM ? "three identical agents A1, A2, A3 (unlimited capacity; utilization = in service / "
                + AgentConfig.NOMINAL_CAPACITY + ")" : String.format(Locale.ROOT, "A1 and A2 capacity %d, A3 capacity %d "
                + "(half) with idle CPU %.1f and memory %.1f; utilization = (in service + queued) / capacity",
                FULL_CAPACITY, HALF_CAPACITY, HALF_CAPACITY_CPU_BASE, HALF_CAPACITY_MEMORY_BASE);
    }

    /**
     * The agents of this scenario, derived from {@code template} (delays, host; port 0): ids from
     * {@link #AGENT_IDS}, each with its own delay seed derived from {@code seed}, so a run is
     * repeatable without two agents drawing the same delays; in {@link #HETEROGENEOUS}, the
     * capacities and A3's idle CPU and memory of that scenario. Then {@code more} agents, made as A1 is.
     */
    public List<AgentConfig> agents(AgentConfig template, long seed, String... more) {
        List<AgentConfig> agents = new ArrayList<>();
        for (String id : Stream.concat(AGENT_IDS.stream(), Stream.of(more)).toList()) {
            AgentConfig.Builder agent = template.toBuilder().agentId(id).port(0)
                    .seed(AgentConfig.defaultSeed(id) ^ seed);
            if (this == HETEROGENEOUS) {
                boolean reduced = id.equals(AGENT_IDS.get(AGENT_IDS.size() - 1));
                agent.capacity(reduced ? HALF_CAPACITY : FULL_CAPACITY);
                if (reduced) {
                    agent.cpuBase(HALF_CAPACITY_CPU_BASE).memoryBase(HALF_CAPACITY_MEMORY_BASE);
                }
            }
            agents.add(agent.build());
        }
        return agents;
    }
}
