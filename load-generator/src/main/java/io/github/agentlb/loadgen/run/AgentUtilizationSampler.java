package io.github.agentlb.loadgen.run;

import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.loadgen.stats.UtilizationSeries;
import io.github.agentlb.loadgen.stats.UtilizationSummary;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Samples the utilization of each agent of an {@link EmbeddedCluster} every {@link #PERIOD} on a
 * {@link PeriodicSampler} while a measured run goes on; what every in-process run (closed loop,
 * open loop, time-bound) reports per agent. Close it when the run ends, then read {@link #summary()}.
 * Not meant to be shared between runs.
 */
public final class AgentUtilizationSampler implements AutoCloseable {

    /** How often each embedded agent's utilization is sampled during the measured run. */
    public static final Duration PERIOD = Duration.ofMillis(100);

    private final Map<String, UtilizationSeries> series = new TreeMap<>();
    private final PeriodicSampler sampler;

    private AgentUtilizationSampler(List<StubAgent> agents) {
        agents.forEach(a -> series.put(a.config().agentId(), new UtilizationSeries()));
        sampler = PeriodicSampler.start("utilization", PERIOD, () -> {
            for (StubAgent agent : agents) {
                series.get(agent.config().agentId()).add(System.nanoTime(), agent.load().utilization());
            }
        });
    }

    /** Takes a first sample of each agent now, then one every {@link #PERIOD}. */
    public static AgentUtilizationSampler start(List<StubAgent> agents) {
        return new AgentUtilizationSampler(agents);
    }

    /** Each agent's time-averaged utilization over the samples taken so far; read after {@link #close()}. */
    public UtilizationSummary summary() {
        return UtilizationSummary.of(series);
    }

    /** Takes a last sample and stops sampling. */
    @Override
    public void close() {
        sampler.close();
    }
}
