package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class AgentsStubEnvTest {

    @Test
    void oneLinePerAgentWithTheScenarioSettingsAndSeeds() {
        List<String> lines = AgentsSettings.ofDefaults().stubEnv(42);

        assertEquals(AgentsSettings.DEFAULT_AGENTS, lines.size());
        assertEquals("AGENT_ID=A1 SEED=1303 FIRST_TOKEN_MS=20 TOKENS_PER_SECOND=400 ANSWER_TOKENS=8 PREFIX_BLOCK_CHARS=64 "
                + "PREFIX_CACHE_BLOCKS=4300 UNCACHED_BLOCK_MS=3 MAX_RUNNING=8 MAX_QUEUE=64 MINT_SESSIONS=true", lines.get(0));
    }
}
