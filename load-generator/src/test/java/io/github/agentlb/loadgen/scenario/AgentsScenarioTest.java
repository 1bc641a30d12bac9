package io.github.agentlb.loadgen.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.ChatShape;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.agent.llm.LlmModel;
import io.github.agentlb.agent.llm.LlmShape;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.agents.AgentsSettings;
import io.github.agentlb.loadgen.agents.ChatStreamClient;
import io.github.agentlb.loadgen.agents.Conversations;
import io.github.agentlb.loadgen.agents.Turn;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.TestConfigs;
import io.github.agentlb.loadgen.report.JsonReport;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentsScenarioTest {

    private static final long SECOND = 1_000_000_000L;

    @TempDir
    Path dir;

    private static Setup setup(long seed, PrintStream out) {
        return Measurements.setup(AgentConfig.custom().build(), Strategies.names(), new LoadTestConfig(2000, 200, 10, seed, 5_000, 500, 100, 0), out);
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    @Test
    void theMainJobRunsTheAgentsScenario() {
        assertTrue(Scenario.all().stream().anyMatch(s -> s instanceof AgentsScenario));
    }

    @Test
    void variantsHaveDistinctLabelsAndOneReplicatedRun() {
        List<Variant> variants = new AgentsScenario().variants(setup(42, quiet()));
        assertEquals(variants.size(), variants.stream().map(Variant::label).distinct().count());
        assertEquals(List.of("rr", "lr", "ch", "keys", "keys-bounded", "keys-inflight", "keys-inflight-kept",
                "keys-inflight-kept x2"), variants.stream().map(Variant::label).toList());
        assertEquals(1, variants.stream().filter(v -> v.replicas() > 1).count());
        assertTrue(AgentsScenario.bounded(AgentsScenario.CHECKED) && AgentsScenario.keyed(AgentsScenario.CHECKED));
        assertEquals(List.of("ch", "keys", "keys-bounded", "keys-inflight", "keys-inflight-kept", "keys-inflight-kept x2"),
                new AgentsScenario().variants(Measurements.setup(AgentConfig.custom().build(), List.of("ch"),
                        TestConfigs.defaults(), quiet())).stream().map(Variant::label).toList());
    }

    @Test
    void resultCountsFromTurnsAndAgents() {
        List<Turn> turns = new ArrayList<>();
        // conversation 2 is MCP-style: its first answer came from A1, later turns from A1, A1, A2
        turns.add(new Turn(2, 0, true, ok(10, 400, "A1")));
        turns.add(new Turn(2, 1, true, ok(20, 400, "A1")));
        turns.add(new Turn(2, 2, true, ok(30, 100, "A1")));
        turns.add(new Turn(2, 3, true, ok(40, 100, "A2")));
        turns.add(new Turn(0, 0, false, new ChatStreamClient.Answer(0, -1, 500_000_000L, null, null,
                "timeout after 500 ms", null)));
        Map<String, AgentsScenario.Counters> agents = new TreeMap<>(Map.of(
                "A1", new AgentsScenario.Counters(new LlmModel.Counters(3, 0, 0, 2, 300, 240, 90_000_000L, 0),
                        new long[] {30_000_000L, 35_000_000L, 90_000_000L}),
                "A2", new AgentsScenario.Counters(new LlmModel.Counters(1, 0, 0, 0, 100, 60, 30_000_000L, 0),
                        new long[] {40_000_000L})));

        Result r = new AgentsScenario().result(new Variant("x", "rr", () -> null, 1), "http://h", TestConfigs.defaults(),
                turns, agents, SECOND);

        assertEquals(5, r.totals().requests());
        assertEquals(1, r.clientErrors());
        assertEquals(1, r.totals().timeouts());
        assertEquals(0.75, r.number("hit_rate"), 1e-12);
        Measurements.assertReportShape(r);
        assertEquals(3, r.number("mcp_later_turns"));
        assertEquals(2, r.number("sticky_turns"));
        assertEquals(2.0 / 3, r.number("mcp_stickiness"), 1e-12);
        assertEquals(3L, r.totals().agents().get("A1").count());
        assertEquals(1L, r.totals().agents().get("A2").count());
        // A1 busy 0.4 + 0.4 + 0.1 s, A2 0.1 s of 1 s: mean 0.5, max 0.9
        assertEquals(0.9, (Double) ((Map<?, ?>) r.figures().get("in_flight")).get("A1"), 1e-12);
        assertEquals(1.8, r.number("in_flight_max_over_mean"), 1e-12);
        assertEquals(30.0, r.number("model_ttft_mean_ms"), 1e-12);
        assertEquals(2, r.number("max_waiting"));
        assertEquals(20.0, r.number("ttft_p50_ms"), 0.05);
        // agent side, queue wait included, over both agents: 30, 35, 40, 90 ms
        assertEquals(35.0, r.number("agent_ttft_p50_ms"), 0.05);
        assertEquals(90.0, r.number("agent_ttft_p99_ms"), 0.1);
        assertEquals(List.of("conversation 0 turn 0: timeout after 500 ms"), r.figures().get("error_samples"));
    }

    @Test
    void passesWhenTheBestBoundedKeyedVariantMeetsEveryGoal() {
        AgentsScenario.Goal check = AgentsScenario.goal(List.of(result("rr", false, false, 1, 100, 0.70, 1.05, 0),
                result("ch", true, false, 1, 40, 0.93, 1.40, 0), result("ch-bounded", true, true, 1, 45, 0.92, 1.10, 0),
                result("ch-bounded x2", true, true, 2, 47, 0.91, 1.12, 0)));
        assertTrue(check.passed(), reasons(check));
        assertEquals("ch-bounded", check.best().orElseThrow().variant());
    }

    @Test
    void readsTheCheckedVariantWhenItRanEvenIfAnotherBoundedVariantIsFaster() {
        AgentsScenario.Goal check = AgentsScenario.goal(List.of(result("rr", false, false, 1, 100, 0.70, 1.05, 0),
                result(AgentsScenario.CHECKED, true, true, 1, 45, 0.91, 1.40, 0),
                result(AgentsScenario.CHECKED + " x2", true, true, 2, 45, 0.91, 1.30, 0),
                result(AgentsScenario.SHARE_BOUNDED, true, true, 1, 40, 0.95, 1.05, 0)));
        assertEquals(AgentsScenario.CHECKED, check.best().orElseThrow().variant());
        assertFalse(check.passed(), reasons(check));
        assertTrue(check.checks().stream().anyMatch(c -> c.detail()
                .equals("keys-inflight-kept: max/mean in-flight 1.40 (goal <= 1.25): MISSED")), reasons(check));
    }

    @Test
    void missesOnEachGoal() {
        Result rr = result("rr", false, false, 1, 100, 0.70, 1.05, 0);
        assertFalse(AgentsScenario.goal(List.of(rr, result("b", true, true, 1, 51, 0.95, 1.0, 0))).passed());
        assertFalse(AgentsScenario.goal(List.of(rr, result("b", true, true, 1, 40, 0.89, 1.0, 0))).passed());
        assertFalse(AgentsScenario.goal(List.of(rr, result("b", true, true, 1, 40, 0.95, 1.3, 0))).passed());
        assertFalse(AgentsScenario.goal(List.of(rr, result("b", true, true, 1, 40, 0.95, 1.0, 1))).passed());
        assertFalse(AgentsScenario.goal(List.of(rr, result("b", true, true, 1, 40, 0.95, 1.0, 0),
                result("b x2", true, true, 2, 40, 0.92, 1.0, 0))).passed());
        assertFalse(AgentsScenario.goal(List.of(rr, result("ch", true, false, 1, 40, 0.95, 1.0, 0))).passed());
    }

    @Test
    void aClientSideMissWithTheAgentSideMetSaysBothAndHolds() {
        Result rr = result("rr", false, false, 1, 100, 0.70, 1.05, 0, 80);
        Result bounded = result("b", true, true, 1, 60, 0.95, 1.0, 0, 30);
        AgentsScenario.Goal check = AgentsScenario.goal(List.of(rr, bounded));
        assertTrue(check.passed(), reasons(check));
        assertTrue(check.checks().stream().map(Result.Check::detail).anyMatch(r -> r.contains("MISSED at the client")
                && r.contains("0.60 x rr's") && r.contains("0.38 x rr's") && r.endsWith("met at the agents only")),
                reasons(check));
        Result agentMiss = result("b", true, true, 1, 60, 0.95, 1.0, 0, 50);
        assertFalse(AgentsScenario.goal(List.of(rr, agentMiss)).passed());
    }

    @Test
    void aUrlRunsFiguresComeFromTheAnswers() throws Exception {
        List<Turn> turns = new ArrayList<>();
        // Conversation 0 (plain): two turns on A1, usage 100/0 then 200/150.
        turns.add(new Turn(0, 0, false, ok("A1", 10, new ChatStreamClient.Usage(100, 0))));
        turns.add(new Turn(0, 1, false, ok("A2", 20, new ChatStreamClient.Usage(200, 150))));
        // Conversation 2 (MCP): first on A2, then A2 (sticky), then a 404 from another agent.
        turns.add(new Turn(2, 0, true, ok("A2", 30, new ChatStreamClient.Usage(100, 50))));
        turns.add(new Turn(2, 1, true, ok("A2", 40, null)));
        turns.add(new Turn(2, 2, true, new ChatStreamClient.Answer(404, -1, 1_000_000, null, null, "status 404", null)));
        AgentsScenario scenario = new AgentsScenario();

        Result r = scenario.urlResult("nginx", "http://127.0.0.1:1", TestConfigs.of(6, 3),
                turns, SECOND);

        assertEquals(5, r.totals().requests());
        assertEquals(1, r.clientErrors());
        assertEquals(1L, r.totals().errorStatuses().get(404));
        assertEquals(400, r.number("prompt_tokens"));
        assertEquals(200, r.number("cached_tokens"));
        assertEquals(3, r.number("answers_with_usage"));
        assertEquals(0.5, r.number("hit_rate"), 1e-9);
        Measurements.assertReportShape(r);
        assertEquals(2, r.number("mcp_later_turns"));
        assertEquals(1, r.number("sticky_turns"));
        assertEquals(0.5, r.number("mcp_stickiness"), 1e-9);
        assertEquals(1L, r.totals().agents().get("A1").count());
        assertEquals(3L, r.totals().agents().get("A2").count());
        assertEquals(20.0, r.number("ttft_p50_ms"), 0.1);
        String md = scenario.section(List.of(r)).tables().get(0).markdown();
        assertTrue(md.contains("| nginx | 5 | 1 (404 x 1) | 20.0 |"), md);
        String body = new Conversations(3, 2, 1, 1).requestBody(2, 1);
        JsonNode json = new ObjectMapper().readTree(AgentsScenario.withUsage(body));
        assertTrue(json.path("stream_options").path("include_usage").asBoolean());
        assertTrue(json.path("stream").asBoolean());
        assertEquals(new ObjectMapper().readTree(body).path("messages"), json.path("messages"));
    }

    /**
     * A short run of every variant at once: few conversations, fast agents. Asserts what does not
     * depend on the machine's speed: no errors, every MCP session kept on its agent, every request
     * counted, and that a keyed variant finds more of its prompts cached than round-robin (a
     * conversation's turns meet their own prefix on the agent that served them).
     */
    @Test
    @Tag("e2e")
    void shortRunOfEveryVariant() throws Exception {
        Conversations workload = new Conversations(12, 4, 3, 7);
        // 8 agents as the default, and a cache of about 1.3 x an agent's fair share (3 system prompts,
        // 179 blocks, and an eighth of the final prompts, 1,522 / 8 blocks); no prefill cost: the
        // cache decides hits, the clock only speed.
        AgentsSettings settings = new AgentsSettings(8, new ChatShape(1, 2_000, 4), LlmShape.custom().blockChars(64)
                .cacheBlocks(480).uncachedBlockMs(0).maxRunning(8).maxQueue(64).mintSessions(true).build(), 6,
                Duration.ofSeconds(10));
        AgentsScenario scenario = new AgentsScenario(workload, settings);
        Setup setup = setup(7, quiet());

        List<Result> results = scenario.runAll(scenario.variants(setup), setup);

        Map<String, Result> byLabel = results.stream().collect(Collectors.toMap(Result::variant, r -> r));
        assertEquals(8, results.size());
        for (Result r : results) {
            assertEquals(48, r.totals().requests(), r.variant());
            assertEquals(0, r.clientErrors(), r.variant() + ": " + r.figures().get("error_samples"));
            // one conversation in ten is MCP-style: conversation 9, its 3 later turns
            assertEquals(3, r.number("mcp_later_turns"), r.variant());
            assertEquals(1.0, r.number("mcp_stickiness"), r.variant());
            assertEquals(48, r.totals().agents().values().stream().mapToLong(a -> a.count()).sum(), r.variant());
            assertTrue(r.number("prompt_blocks") > 0, r.variant());
            // Each run says whether the generator kept pace (load-generator/README.md, "Self-check"): the
            // conversations are a closed loop, every turn sent once the previous answer ended.
            assertTrue(r.pace() != null && r.pace().selfCheck().gaps() > 0, r.variant() + ": the workers' gaps");
            assertTrue(r.lines().stream().anyMatch(l -> l.contains("Self-check:")), r.variant() + ": " + r.lines());
            // at the agents: queue wait + the model's time to first token, never below its 1 ms base
            assertTrue(r.number("agent_ttft_p50_ms") >= 1.0 && r.number("agent_ttft_p99_ms") >= r.number("agent_ttft_p50_ms"),
                    r.variant() + ": " + r.number("agent_ttft_p50_ms") + " / " + r.number("agent_ttft_p99_ms"));
        }
        double rr = byLabel.get("rr").number("hit_rate");
        for (String keyed : List.of("ch", "keys", AgentsScenario.SHARE_BOUNDED, AgentsScenario.CHECKED)) {
            double hitRate = byLabel.get(keyed).number("hit_rate");
            assertTrue(hitRate > rr, keyed + " hit rate " + hitRate + " vs rr's " + rr);
        }
        Section section = scenario.section(results);
        String table = section.tables().get(0).markdown();
        assertEquals("agents", section.title());
        assertTrue(table.contains("| rr |"));
        assertTrue(table.contains("| " + AgentsScenario.IN_FLIGHT + " |"));
        assertTrue(byLabel.get(AgentsScenario.CHECKED).checks().size() > 1, "the goal's checks on the checked variant");
        for (Result r : results) {
            assertTrue(JsonReport.write(r, dir).toFile().isFile());
        }
        assertTrue(dir.resolve("report-agents-keys-inflight-kept-x2.json").toFile().isFile());
    }

    /**
     * The {@code --url} mode end to end: a few conversations through an in-JVM demo proxy (the
     * bounded keyed variant) over stub agents with the scenario's LLM settings, every figure from the
     * answers. Asserts no speed: no errors, usage on every answer, a hit rate above 0 close to the
     * agents' own counters, MCP sessions kept.
     */
    @Test
    @Tag("e2e")
    void conversationsThroughARunningProxyReportUsageAndStickiness() throws Exception {
        Conversations workload = new Conversations(10, 3, 2, 11);
        AgentsSettings settings = new AgentsSettings(8, AgentsSettings.DEFAULT_CHAT, AgentsSettings.DEFAULT_LLM, 3,
                Duration.ofSeconds(10));
        AgentsScenario scenario = new AgentsScenario(workload, settings);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Setup setup = setup(11, new PrintStream(out, true, StandardCharsets.UTF_8));
        Variant variant = scenario.variants(setup).stream().filter(v -> v.label().equals(AgentsScenario.SHARE_BOUNDED))
                .findFirst().orElseThrow();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(scenario.agents(setup),
                ProxyConfig.builder().strategy(variant.strategy()), variant.balancer(), 1)) {

            Result r = setup.print(scenario.runAgainst(cluster.baseUrls().get(0), "keys-bounded", setup));

            RunStatistics s = r.totals();
            assertEquals(30, s.requests());
            assertEquals(0, r.clientErrors(), String.valueOf(r.figures().get("error_samples")));
            assertEquals(30, r.number("answers_with_usage"), "every answer carries usage");
            assertTrue(r.number("hit_rate") > 0, "hit rate " + r.number("hit_rate"));
            assertEquals(2, r.number("mcp_later_turns"), "conversation 9, turns 1 and 2");
            assertEquals(1.0, r.number("mcp_stickiness"));
            assertEquals(30, s.agents().values().stream().mapToLong(a -> a.count()).sum());
            long prompt = 0;
            long cached = 0;
            for (StubAgent agent : cluster.agents()) {
                LlmModel.Counters counters = agent.llm().counters();
                prompt += counters.promptBlocks();
                cached += counters.cachedBlocks();
            }
            double counted = (double) cached / prompt;
            System.out.printf("hit rate from usage %.3f, from the agents' counters %.3f%n", r.number("hit_rate"), counted);
            // Usage counts the prompt's partial last block too, the counters full blocks only.
            assertEquals(counted, r.number("hit_rate"), 0.05);

            JsonReport.write(r, dir);
            JsonNode json = new ObjectMapper().readTree(dir.resolve("report-agents-keys-bounded.json").toFile());
            assertEquals(30, json.path("requests").asInt());
            assertTrue(json.at("/pace/self_check/kept_pace").isBoolean(), json.toString());
            assertEquals(r.number("hit_rate"), json.at("/figures/hit_rate").asDouble(), 1e-9);
            String md = scenario.section(List.of(r)).tables().get(0).markdown();
            assertTrue(md.contains("| keys-bounded | 30 | 0 |"), md);
        }
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("== agents keys-bounded: 30 requests"), out.toString());
    }

    private static String reasons(AgentsScenario.Goal goal) {
        return goal.checks().stream().map(Result.Check::detail).collect(Collectors.joining("\n"));
    }

    private static ChatStreamClient.Answer ok(long ttftMs, long totalMs, String agent) {
        return new ChatStreamClient.Answer(200, ttftMs * 1_000_000L, totalMs * 1_000_000L, agent, null, null, null);
    }

    private static ChatStreamClient.Answer ok(String agent, long ttftMs, ChatStreamClient.Usage usage) {
        return new ChatStreamClient.Answer(200, ttftMs * 1_000_000, (ttftMs + 20) * 1_000_000, agent, null, null, usage);
    }

    /** A result with the given figures: two agents whose in-flight ratio is {@code maxOverMean}. */
    private static Result result(String label, boolean keyed, boolean bounded, int replicas, double p50, double hitRate,
                                 double maxOverMean, long errors) {
        return result(label, keyed, bounded, replicas, p50, hitRate, maxOverMean, errors, p50);
    }

    /** As above, with the agent-side p50 {@code agentP50}. */
    private static Result result(String label, boolean keyed, boolean bounded, int replicas, double p50, double hitRate,
                                 double maxOverMean, long errors, double agentP50) {
        List<io.github.agentlb.loadgen.stats.RequestOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < errors; i++) {
            outcomes.add(io.github.agentlb.loadgen.stats.RequestOutcome.error("e" + i, 1, 500, 1));
        }
        RunStatistics s = RunStatistics.of(outcomes, List.of("A1", "A2"), SECOND);
        Map<String, Object> figures = Result.map("keyed", keyed, "bounded", bounded, "ttft_p50_ms", p50,
                "agent_ttft_p50_ms", agentP50, "hit_rate", hitRate, "in_flight_max_over_mean", maxOverMean,
                "mcp_stickiness", 1.0);
        return new Result("agents", label, "ch", "http://h", true, TestConfigs.defaults(), replicas, s, List.of(),
                figures, List.of(), errors, null, null, List.of(), List.of());
    }
}
