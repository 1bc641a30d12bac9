package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.agent.llm.LlmModel;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code --url} mode end to end: a few conversations through an in-JVM demo proxy (the
 * bounded keyed variant) over stub agents with the scenario's LLM settings, every figure from the
 * answers. Asserts no speed: no errors, usage on every answer, a hit rate above 0 close to the
 * agents' own counters, MCP sessions kept.
 */
@Tag("e2e")
class AgentsUrlRunTest {

    @TempDir
    Path dir;

    @Test
    void conversationsThroughARunningProxyReportUsageAndStickiness() throws Exception {
        Conversations workload = Conversations.of(10, 3, 2, 11);
        AgentsScenario scenario = new AgentsScenario(workload, AgentsScenario.Settings.ofDefaults(), 11,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        AgentsVariant variant = AgentsVariant.standard().stream()
                .filter(v -> v.label().equals(AgentsVariant.SHARE_BOUNDED)).findFirst().orElseThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(scenario.agentConfigs(),
                ProxyConfig.builder().strategy(variant.strategy()), variant::balancer, 1)) {
            AgentsUrlRun run = new AgentsUrlRun(workload, 3, Duration.ofSeconds(10),
                    new PrintStream(out, true, StandardCharsets.UTF_8));

            AgentsUrlResult r = run.run(cluster.baseUrls().get(0), "keys-bounded");

            assertEquals(30, r.requests());
            assertEquals(0, r.errors(), r.errorSamples().toString());
            assertEquals(30, r.withUsage(), "every answer carries usage");
            assertTrue(r.hitRate() > 0, "hit rate " + r.hitRate());
            assertEquals(2, r.mcpLaterTurns(), "conversation 9, turns 1 and 2");
            assertEquals(1.0, r.stickiness());
            assertEquals(30, r.answered().values().stream().mapToLong(Long::longValue).sum());
            long prompt = 0;
            long cached = 0;
            for (StubAgent agent : cluster.agents()) {
                LlmModel.Counters counters = agent.llm().counters();
                prompt += counters.promptBlocks();
                cached += counters.cachedBlocks();
            }
            double counted = (double) cached / prompt;
            System.out.printf("hit rate from usage %.3f, from the agents' counters %.3f%n", r.hitRate(), counted);
            // Usage counts the prompt's partial last block too, the counters full blocks only.
            assertEquals(counted, r.hitRate(), 0.05);

            run.writeJson(r, dir);
            JsonNode json = new ObjectMapper().readTree(dir.resolve(AgentsUrlRun.jsonFileName("keys-bounded")).toFile());
            assertEquals(30, json.path("requests").asInt());
            assertEquals(r.hitRate(), json.path("hitRate").asDouble(), 1e-9);
            assertTrue(run.markdown(r).contains("| keys-bounded | 30 | 0 |"), run.markdown(r));
        }
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("== agents keys-bounded: 30 requests"), out.toString());
    }
}
