package io.github.agentlb.loadgen.agents;

import io.github.agentlb.loadgen.config.LoadTestConfig;

/**
 * Prints {@link AgentsSettings#stubEnv} of the defaults, so that a script starts stub agent JVMs as
 * the in-process agents scenario starts its agents:
 * {@code java -cp load-generator.jar io.github.agentlb.loadgen.agents.AgentsStubEnv [SEED]}
 * (default seed {@value LoadTestConfig#DEFAULT_SEED}, the load generator's). Stateless.
 */
public final class AgentsStubEnv {

    private AgentsStubEnv() {
    }

    /** Prints the lines for the seed in {@code args[0]}, else the default seed. */
    public static void main(String[] args) {
        AgentsSettings.ofDefaults().stubEnv(args.length > 0 ? Long.parseLong(args[0]) : LoadTestConfig.DEFAULT_SEED)
                .forEach(System.out::println);
    }
}
