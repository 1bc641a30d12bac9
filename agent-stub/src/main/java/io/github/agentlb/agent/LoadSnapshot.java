package io.github.agentlb.agent;

import java.util.Locale;

/**
 * The load an agent reports at one instant, the way ORCA (gRPC's Open Request Cost
 * Aggregation) and Robinhood (Dropbox, 2024) agents report it with each response.
 *
 * @param inService requests whose service delay is running, >= 0
 * @param queued requests waiting for a service slot, >= 0
 * @param utilization (inService + queued) / capacity, a fraction that exceeds 1 while requests
 *     queue; with unlimited capacity, inService / {@link AgentConfig#NOMINAL_CAPACITY}; in an
 *     answer's headers the numerator is averaged over time ({@link ServiceStation#reportedLoad()})
 * @param cpu simulated CPU utilization, fraction 0..1
 * @param memory simulated memory utilization, fraction 0..1
 */
public record LoadSnapshot(int inService, int queued, double utilization, double cpu, double memory) {

    /** Response header carrying {@link #utilization()}. */
    public static final String HEADER_UTILIZATION = "X-Agent-Utilization";
    /** Response header carrying {@link #cpu()}. */
    public static final String HEADER_CPU = "X-Agent-Cpu";
    /** Response header carrying {@link #memory()}. */
    public static final String HEADER_MEMORY = "X-Agent-Memory";

    /**
     * Simulated memory used by each queued request, fraction of the host's memory: a waiting
     * request holds its buffers, so a host that queues looks fuller.
     */
    public static final double MEMORY_PER_QUEUED_REQUEST = 0.01;

    /**
     * Computes the load of an agent.
     *
     * <p>Model, chosen to be simple and monotone rather than realistic:
     * <ul>
     *   <li>utilization = (inService + queued) / capacity, or inService / NOMINAL_CAPACITY when
     *       the capacity is unlimited;</li>
     *   <li>cpu = clamp(cpuBase + (1 - cpuBase) * min(1, utilization), 0, 1): idle hosts burn
     *       cpuBase, a saturated host 100%;</li>
     *   <li>memory = clamp(memoryBase + {@link #MEMORY_PER_QUEUED_REQUEST} * queued, 0, 1):
     *       memoryBase is a per-host knob so hosts can differ at equal load.</li>
     * </ul>
     *
     * @param inService requests in service, >= 0
     * @param queued requests queued, >= 0
     * @param config the agent's capacity, cpuBase and memoryBase
     */
    public static LoadSnapshot of(int inService, int queued, AgentConfig config) {
        return of(inService, queued, inService + queued, config);
    }

    /**
     * Computes the load of an agent whose utilization and CPU follow a time average of the
     * requests in its system rather than the count at this instant; memory follows
     * {@code queued} as in {@link #of(int, int, AgentConfig)}.
     *
     * @param inService requests in service now, >= 0
     * @param queued requests queued now, >= 0
     * @param inSystem requests in service + queued, averaged over time as the caller chooses, >= 0
     * @param config the agent's capacity, cpuBase and memoryBase
     */
    public static LoadSnapshot of(int inService, int queued, double inSystem, AgentConfig config) {
        int capacity = config.unlimitedCapacity() ? AgentConfig.NOMINAL_CAPACITY : config.capacity();
        double utilization = inSystem / capacity;
        double cpu = clamp01(config.cpuBase() + (1.0 - config.cpuBase()) * Math.min(1.0, utilization));
        double memory = clamp01(config.memoryBase() + MEMORY_PER_QUEUED_REQUEST * queued);
        return new LoadSnapshot(inService, queued, utilization, cpu, memory);
    }

    /** Formats a header value: plain decimal with a '.' and 4 fraction digits, e.g. {@code 1.5000}. */
    public static String format(double value) {
        return String.format(Locale.ROOT, "%.4f", value);
    }

    private static double clamp01(double v) {
        return Math.max(0.0, Math.min(1.0, v));
    }

    /** Sets the three load report headers of {@code load} on the exchange's message. */
    static void setHeaders(org.apache.camel.Exchange exchange, LoadSnapshot load) {
        org.apache.camel.Message m = exchange.getMessage();
        m.setHeader(HEADER_UTILIZATION, format(load.utilization()));
        m.setHeader(HEADER_CPU, format(load.cpu()));
        m.setHeader(HEADER_MEMORY, format(load.memory()));
    }
}
