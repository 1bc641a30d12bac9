package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.loadgen.config.AgentSet;
import java.util.List;

/** The load test's scenarios. */
public final class Scenarios {

    private Scenarios() {
    }

    /**
     * A new instance of every scenario, in the main job's order: {@code uniform},
     * {@code heterogeneous}, {@code hotkey}, {@code failure}, {@code hang}, {@code agents},
     * {@code busy}, {@code fleet}, {@code gray}.
     */
    public static List<Scenario> all() {
        return List.of(new PlainScenario(AgentSet.UNIFORM), new PlainScenario(AgentSet.HETEROGENEOUS),
                new HotKeyScenario(), new OutageScenario(false), new OutageScenario(true), new AgentsScenario(),
                new BadAgentScenario(true), new FleetScenario(), new BadAgentScenario(false));
    }
}
