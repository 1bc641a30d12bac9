package io.github.agentlb.loadgen;

import io.github.agentlb.agent.AgentConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the embedded agents of the main job are set up. The request workload is the same in every
 * scenario; only the agents differ.
 */
public enum Scenario {

    /** Three identical agents, A1, A2 and A3. */
    UNIFORM;

    /** The agent ids of every scenario, in order. */
    public static final List<String> AGENT_IDS = List.of("A1", "A2", "A3");

    /** The name used on the command line and in reports, e.g. {@code uniform}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The agents of this scenario, derived from {@code template} (delays, host; port 0): ids from
     * {@link #AGENT_IDS}, each with its own delay seed derived from {@code seed}, so a run is
     * repeatable without two agents drawing the same delays.
     */
    public List<AgentConfig> agents(AgentConfig template, long seed) {
        List<AgentConfig> agents = new ArrayList<>();
        for (String id : AGENT_IDS) {
            agents.add(template.toBuilder().agentId(id).port(0).seed(AgentConfig.defaultSeed(id) ^ seed).build());
        }
        return agents;
    }
}
