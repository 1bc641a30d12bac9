package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.agentlb.agent.ChatShape;
import io.github.agentlb.agent.llm.LlmShape;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A short run of the agents scenario: few conversations, fast agents, every variant at once.
 * Asserts what does not depend on the machine's speed: no errors, every MCP session kept on its
 * agent, every request counted, and that a keyed variant finds more of its prompts cached than
 * round-robin (a conversation's turns meet their own prefix on the agent that served them).
 */
@Tag("e2e")
class AgentsScenarioTest {

    @Test
    void shortRunOfEveryVariant() throws Exception {
        Conversations workload = Conversations.of(12, 4, 3, 7);
        // 8 agents as the default, and a cache of about 1.3 x an agent's fair share (3 system prompts,
        // 179 blocks, and an eighth of the final prompts, 1,522 / 8 blocks); no prefill cost: the
        // cache decides hits, the clock only speed.
        AgentsScenario.Settings settings = new AgentsScenario.Settings(8, new ChatShape(1, 2_000, 4),
                LlmShape.custom().blockChars(64).cacheBlocks(480).uncachedBlockMs(0).maxRunning(8).maxQueue(64)
                        .mintSessions(true).build(), 6, Duration.ofSeconds(10));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AgentsScenario scenario = new AgentsScenario(workload, settings, 7,
                new PrintStream(out, true, StandardCharsets.UTF_8));

        List<AgentsResult> results = AgentsJob.run(scenario, AgentsVariant.standard());

        Map<String, AgentsResult> byLabel = results.stream()
                .collect(Collectors.toMap(AgentsResult::label, r -> r));
        assertEquals(AgentsVariant.standard().size(), results.size());
        for (AgentsResult r : results) {
            assertEquals(48, r.requests(), r.label());
            assertEquals(0, r.errors(), r.label() + ": " + r.errorSamples());
            // one conversation in ten is MCP-style: conversation 9, its 3 later turns
            assertEquals(3, r.mcpLaterTurns(), r.label());
            assertEquals(1.0, r.stickiness(), r.label());
            assertEquals(48, r.answered().values().stream().mapToLong(Long::longValue).sum(), r.label());
            assertTrue(r.promptBlocks() > 0, r.label());
            // at the agents: queue wait + the model's time to first token, never below its 1 ms base
            assertTrue(r.agentTtftP50Ms() >= 1.0 && r.agentTtftP99Ms() >= r.agentTtftP50Ms(),
                    r.label() + ": " + r.agentTtftP50Ms() + " / " + r.agentTtftP99Ms());
        }
        System.out.print(AgentsReport.table(results));
        double rr = byLabel.get("rr").hitRate();
        for (String keyed : List.of("ch", "keys", AgentsVariant.SHARE_BOUNDED, AgentsVariant.CHECKED)) {
            double hitRate = byLabel.get(keyed).hitRate();
            assertTrue(hitRate > rr, keyed + " hit rate " + hitRate + " vs rr's " + rr);
        }
        String markdown = AgentsReport.markdown(scenario, results, AgentsCheck.of(results));
        assertTrue(markdown.startsWith("## Scenario agents"), markdown);
        assertTrue(AgentsReport.table(results).contains("| rr |"));
        assertTrue(AgentsReport.table(results).contains("| " + AgentsVariant.IN_FLIGHT + " |"));
    }
}
