package io.github.agentlb.loadgen.config;

import io.github.agentlb.agent.AgentConfig;
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
     * A3 at half the capacity of A1 and A2: {@value #FULL_CAPACITY}, {@value #FULL_CAPACITY} and
     * {@value #HALF_CAPACITY} concurrent requests, same delays. Why: the default 10 closed-loop
     * workers over 50-150 ms agents, utilization = (in service + queued) / capacity; a total capacity
     * of 15 leaves a balanced fleet at 2/3 (4, 4 and 2 in flight), Robinhood's range, where the
     * balancer rather than saturation decides. Round-robin sends A3 a third, about 4 in flight
     * (1.33, queueing) against 3 at the others (0.5), max/mean about 1.7: a large, measurable
     * difference for a load-aware strategy. (4, 4, 2 would put a balanced fleet at saturation.) A3
     * also reports a higher idle CPU ({@value #HALF_CAPACITY_CPU_BASE}) and memory
     * ({@value #HALF_CAPACITY_MEMORY_BASE}), which the adaptive virtual node strategy's load index
     * (paper eq. 3) reads, as a smaller machine with the same resident software would.
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
     * The agents {@link #AGENT_IDS}, then {@code more} made as A1 is, from {@code template} (port 0), each
     * with a delay seed of its own from {@code seed}; in {@link #HETEROGENEOUS}, its capacities and A3's idle load.
     */
    public List<AgentConfig> agents(AgentConfig template, long seed, String... more) {
        return Stream.concat(AGENT_IDS.stream(), Stream.of(more)).map(id -> {
            AgentConfig.Builder agent = template.toBuilder().agentId(id).port(0)
                    .seed(AgentConfig.defaultSeed(id) ^ seed);
            if (this == HETEROGENEOUS) {
                boolean reduced = id.equals(AGENT_IDS.get(AGENT_IDS.size() - 1));
                agent.capacity(reduced ? HALF_CAPACITY : FULL_CAPACITY);
                if (reduced) {
                    agent.cpuBase(HALF_CAPACITY_CPU_BASE).memoryBase(HALF_CAPACITY_MEMORY_BASE);
                }
            }
            return agent.build();
        }).toList();
    }
}
