package io.github.agentlb.loadgen.agents;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * What one variant of the agents scenario measured.
 *
 * <ul>
 *   <li>Time to first token: from the client's send to the first {@code data:} line, successful
 *       requests only, HdrHistogram at 3 significant digits, in ms.</li>
 *   <li>Agent-side time to first token: per request at the agent, from its arrival at the LLM
 *       model to its first token, queue wait included (the model's wait plus its computed time to
 *       first token), over all agents, p50 and p99 in ms: without the proxy, the network or the
 *       client's own scheduling delays.</li>
 *   <li>Cache hit rate: Σ cached blocks / Σ prompt blocks over the agents, as their LLM models
 *       counted at admission.</li>
 *   <li>In-flight per agent: the time-averaged number of requests the agent was answering, from
 *       the client's records (Σ of its answers' send-to-end times / the run's wall time);
 *       {@link #inFlightMaxOverMean()} is the largest over the mean (1.0 is perfect balance).</li>
 *   <li>Stickiness: the share of MCP-style turns after the first answered by the agent that
 *       answered the first (and minted the session id).</li>
 * </ul>
 * Immutable.
 *
 * @param label           the variant's label
 * @param replicas        proxy replicas
 * @param keyed           whether the variant routes by a key
 * @param bounded         whether it has a load bound
 * @param requests        requests sent
 * @param errors          requests that failed (non-2xx, cut stream, I/O, timeout)
 * @param timeouts        of those, the timeouts
 * @param ttftP50Ms       p50 time to first token, ms (NaN with no success)
 * @param ttftP99Ms       p99 time to first token, ms (NaN with no success)
 * @param promptBlocks    Σ prompt blocks over the agents
 * @param cachedBlocks    Σ cached prompt blocks over the agents
 * @param inFlight        agent id to its time-averaged in-flight requests
 * @param answered        agent id to its successful answers
 * @param mcpLaterTurns   MCP-style turns after the first whose first turn named an agent
 * @param stickyTurns     of those, answered by the first turn's agent
 * @param maxWaiting      the largest queue any agent had
 * @param agentTtftP50Ms  p50 agent-side time to first token (queue wait included), ms (NaN when none was admitted)
 * @param agentTtftP99Ms  p99 agent-side time to first token (queue wait included), ms (NaN when none was admitted)
 * @param modelTtftMeanMs the mean time to first token the agents' models computed (base + prefill
 *                        of the uncached blocks, from admission), ms: what the cache bought,
 *                        without the queue, the proxy, the network or the machine's load (NaN
 *                        when none was admitted)
 * @param wallNanos       the run's wall time, ns
 * @param errorSamples    up to 5 error texts, for the report
 */
public record AgentsResult(String label, int replicas, boolean keyed, boolean bounded, long requests, long errors,
                           long timeouts, double ttftP50Ms, double ttftP99Ms, long promptBlocks, long cachedBlocks,
                           SortedMap<String, Double> inFlight, SortedMap<String, Long> answered, long mcpLaterTurns,
                           long stickyTurns, int maxWaiting, double agentTtftP50Ms,
                           double agentTtftP99Ms, double modelTtftMeanMs, long wallNanos,
                           List<String> errorSamples) {

    /** Error texts kept for the report. */
    public static final int ERROR_SAMPLES = 5;

    public AgentsResult {
        Objects.requireNonNull(label, "label");
        inFlight = new TreeMap<>(inFlight);
        answered = new TreeMap<>(answered);
        errorSamples = List.copyOf(errorSamples);
    }

    /**
     * Per-agent LLM counters read after the run.
     *
     * @param promptBlocks         Σ prompt blocks of the requests it admitted
     * @param cachedBlocks         Σ of their cached blocks
     * @param maxWaiting           its largest queue
     * @param admitted             requests it admitted
     * @param firstTokenNanosTotal Σ of the times to first token its model computed (base + prefill), ns
     * @param agentFirstTokenNanos per admitted request, its queue wait plus computed time to first token, ns
     */
    public record AgentCounters(long promptBlocks, long cachedBlocks, int maxWaiting, long admitted,
                                long firstTokenNanosTotal, long[] agentFirstTokenNanos) {
        public AgentCounters {
            agentFirstTokenNanos = agentFirstTokenNanos.clone();
        }

        /** Without agent-side samples. */
        public AgentCounters(long promptBlocks, long cachedBlocks, int maxWaiting, long admitted,
                             long firstTokenNanosTotal) {
            this(promptBlocks, cachedBlocks, maxWaiting, admitted, firstTokenNanosTotal, new long[0]);
        }
    }

    /**
     * Computes a variant's figures from its turns and its agents' counters.
     *
     * @param agents    agent id to its counters; every agent of the run, also those that answered nothing
     * @param wallNanos the run's wall time, ns, > 0
     */
    public static AgentsResult of(AgentsVariant variant, List<Turn> turns, Map<String, AgentCounters> agents,
                                  long wallNanos) {
        if (wallNanos <= 0) {
            throw new IllegalArgumentException("wallNanos must be > 0, was " + wallNanos);
        }
        TurnTally tally = TurnTally.of(turns, true);
        SortedMap<String, Long> busyNanos = new TreeMap<>();
        SortedMap<String, Long> answered = new TreeMap<>();
        agents.keySet().forEach(id -> {
            busyNanos.put(id, 0L);
            answered.put(id, 0L);
        });
        for (Turn t : turns) {
            ChatStreamClient.Answer a = t.answer();
            if (a.agentId() != null) {
                busyNanos.merge(a.agentId(), a.totalNanos(), Long::sum);
                if (a.ok()) {
                    answered.merge(a.agentId(), 1L, Long::sum);
                }
            }
        }
        SortedMap<String, Double> inFlight = new TreeMap<>();
        busyNanos.forEach((id, busy) -> inFlight.put(id, (double) busy / wallNanos));
        long prompt = agents.values().stream().mapToLong(AgentCounters::promptBlocks).sum();
        long cached = agents.values().stream().mapToLong(AgentCounters::cachedBlocks).sum();
        int maxWaiting = agents.values().stream().mapToInt(AgentCounters::maxWaiting).max().orElse(0);
        long admitted = agents.values().stream().mapToLong(AgentCounters::admitted).sum();
        double modelTtft = admitted == 0 ? Double.NaN
                : agents.values().stream().mapToLong(AgentCounters::firstTokenNanosTotal).sum() / 1e6 / admitted;
        Histogram agentTtft = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
        for (AgentCounters a : agents.values()) {
            for (long nanos : a.agentFirstTokenNanos()) {
                agentTtft.recordValue(Math.min(agentTtft.getHighestTrackableValue(),
                        Math.max(0, TimeUnit.NANOSECONDS.toMicros(nanos))));
            }
        }
        boolean anyAgent = agentTtft.getTotalCount() > 0;
        return new AgentsResult(variant.label(), variant.replicas(), variant.keyed(), variant.bounded(), turns.size(),
                tally.errors(), tally.timeouts(), tally.ttftP50Ms(), tally.ttftP99Ms(), prompt, cached, inFlight,
                answered, tally.mcpLaterTurns(), tally.stickyTurns(), maxWaiting,
                anyAgent ? agentTtft.getValueAtPercentile(50) / 1000.0 : Double.NaN,
                anyAgent ? agentTtft.getValueAtPercentile(99) / 1000.0 : Double.NaN, modelTtft, wallNanos,
                tally.errorSamples());
    }

    /** Σ cached blocks / Σ prompt blocks; 0 without prompt blocks. */
    public double hitRate() {
        return promptBlocks == 0 ? 0 : (double) cachedBlocks / promptBlocks;
    }

    /** The largest time-averaged in-flight over the agents' mean; 0 when none was busy. */
    public double inFlightMaxOverMean() {
        double mean = inFlight.values().stream().mapToDouble(Double::doubleValue).average().orElse(0);
        double max = inFlight.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return mean == 0 ? 0 : max / mean;
    }

    /** Sticky MCP turns over MCP turns after the first; 1.0 when there were none. */
    public double stickiness() {
        return mcpLaterTurns == 0 ? 1.0 : (double) stickyTurns / mcpLaterTurns;
    }

    /** Wall time, s. */
    public double seconds() {
        return wallNanos / 1e9;
    }
}
