package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.run.LoadRunner;
import java.io.PrintStream;
import java.util.Objects;

/**
 * What a scenario over agents started in this JVM runs with: the agents' common settings and the
 * seed of their delays, the measured load and where progress goes. Each scenario checks on its own
 * whether the load has the requests it needs (three phases, four, ...).
 *
 * <p>Immutable, so the runs of several strategies at the same time may share one; they share its
 * {@link #stdout()} too, each printing whole lines.
 *
 * @param template the agents' common settings (delays); ids, ports and seeds are set by the scenario
 * @param seed     seed of the agents' delays
 * @param config   the measured load and its warm-up
 * @param stdout   where progress goes
 */
public record ScenarioLoad(AgentConfig template, long seed, LoadTestConfig config, PrintStream stdout) {

    /** @throws NullPointerException if {@code template}, {@code config} or {@code stdout} is null */
    public ScenarioLoad {
        Objects.requireNonNull(template, "template");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(stdout, "stdout");
    }

    /**
     * Sends {@link #config()}'s warm-up, if it has one, to the balancer at {@code baseUrl}
     * (closed loop, not counted, no progress), labelled {@code "<strategy> warm-up"}.
     *
     * @throws IllegalStateException if the warm-up does not finish within its worst case
     * @throws Exception             if the Camel context cannot start
     */
    public void warmUp(String baseUrl, String strategy) throws Exception {
        if (config.warmupConfig().isPresent()) {
            new LoadRunner(config.warmupConfig().get(), null).run(baseUrl, strategy + " warm-up");
        }
    }
}
