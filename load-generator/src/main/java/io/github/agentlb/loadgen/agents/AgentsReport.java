package io.github.agentlb.loadgen.agents;

import io.github.agentlb.loadgen.report.Charts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.knowm.xchart.CategoryChart;

/**
 * Writes the agents scenario: its {@code report.md} section, its console table and its chart
 * {@value #PNG_FILE} (XChart: per variant a bar of p50 time to first token in ms and one of the
 * cache hit rate in %, values on the bars). Stateless and thread-safe.
 */
public final class AgentsReport {

    /** The chart's file name. */
    public static final String PNG_FILE = "agents.png";
    /** Chart width, px. */
    public static final int WIDTH = 1000;
    /** Chart height, px. */
    public static final int HEIGHT = 500;

    private AgentsReport() {
    }

    /** One row per variant: the scenario's figures. */
    public static String table(List<AgentsResult> results) {
        StringBuilder sb = new StringBuilder("| variant | requests | errors | timeouts | ttft p50 ms | ttft p99 ms |"
                + " agent ttft p50 ms | agent ttft p99 ms | model ttft mean ms | cache hit rate | max/mean in-flight |"
                + " answers per agent | MCP stickiness |"
                + " max queue | s |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
        for (AgentsResult r : results) {
            String answered = r.answered().values().stream().map(String::valueOf).collect(Collectors.joining("/"));
            sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.3f | %.2f | %s | %.3f"
                            + " | %d | %.1f |%n", r.label(), r.requests(), r.errors(), r.timeouts(), r.ttftP50Ms(),
                    r.ttftP99Ms(), r.agentTtftP50Ms(), r.agentTtftP99Ms(), r.modelTtftMeanMs(), r.hitRate(),
                    r.inFlightMaxOverMean(), answered, r.stickiness(),
                    r.maxWaiting(), r.seconds()));
        }
        return sb.toString();
    }

    /** The {@code report.md} section. */
    public static String markdown(AgentsScenario scenario, List<AgentsResult> results, AgentsCheck check) {
        Conversations w = scenario.workload();
        StringBuilder sb = new StringBuilder("## Scenario agents\n\n");
        sb.append(String.format(Locale.ROOT, "%d conversations of %d turns in %d groups sharing a system prompt of "
                        + "%d-%d chars (seed %d); first user message about %d chars, later ones %d-%d, assistant answers "
                        + "(written by the client) %d-%d, and after the first turn a tool result or document excerpt of %d-%d per "
                        + "turn; turn k sends the whole history. One conversation in %d "
                        + "(%d) is MCP-style: it sends its first answer's Mcp-Session-Id with every later turn. Every "
                        + "request: POST /v1/chat/completions?user_id=c<i>, streamed, %d tokens. Each variant on its "
                        + "own agents and proxies, all at once; learned sessions on in every variant; keys = ch keyed by "
                        + "session header, then prompt prefix, then user_id; keys-bounded = the share bound alone (balance "
                        + "factor %.2f); keys-inflight = share %.2f and in-flight factor %.2f (KubeAI's rule, checked per "
                        + "request); keys-inflight-kept = the same, the in-flight bound placing each conversation once "
                        + "(setKeepInFlightPlacement), the variant checked; x2 = two proxy replicas, conversation i "
                        + "through replica i mod 2.%n%n",
                w.conversations(), w.turns(), w.groups(), Conversations.SYSTEM_MIN_CHARS, Conversations.SYSTEM_MAX_CHARS,
                w.seed(), Conversations.FIRST_USER_CHARS, Conversations.USER_MIN_CHARS, Conversations.USER_MAX_CHARS,
                Conversations.ASSISTANT_MIN_CHARS, Conversations.ASSISTANT_MAX_CHARS, Conversations.TOOL_MIN_CHARS,
                Conversations.TOOL_MAX_CHARS, Conversations.MCP_EVERY, w.mcpConversations(),
                Conversations.ANSWER_TOKENS, AgentsVariant.BALANCE_FACTOR, AgentsVariant.BALANCE_FACTOR,
                AgentsVariant.IN_FLIGHT_FACTOR));
        sb.append("Agents: ").append(scenario.settings().describe()).append(".\n\n");
        sb.append("Time to first token: send to the first `data:` line at the client. Cache hit rate: Σ cached "
                + "blocks / Σ prompt blocks over the agents. In-flight: per agent, the time-averaged number of "
                + "requests it was answering (Σ send-to-end times of its answers / wall time); max/mean over the "
                + "agents. Agent ttft: per request at the agent, from its arrival to its first token, queue wait included "
                + "(p50, p99): without the proxy, loopback or the client's scheduling delays. Model ttft mean: the "
                + "mean time to first token the agents' models computed (base + prefill of the uncached blocks, from "
                + "admission): what the cache bought, without the queue. Stickiness: MCP-style turns after the first answered by the agent that minted the "
                + "session.\n\n");
        sb.append(table(results)).append('\n');
        sb.append("Check: ").append(check.passed() ? "PASSED" : "MISSED").append('\n');
        check.reasons().forEach(reason -> sb.append("- ").append(reason).append('\n'));
        for (AgentsResult r : results) {
            r.errorSamples().forEach(e -> sb.append("- ").append(r.label()).append(" error: ").append(e).append('\n'));
        }
        return sb.append('\n').append("![agents](").append(PNG_FILE).append(")\n").toString();
    }

    /** Builds the chart ({@value #WIDTH} x {@value #HEIGHT} px); at least one result. */
    public static CategoryChart chart(List<AgentsResult> results) {
        List<String> labels = results.stream().map(AgentsResult::label).toList();
        CategoryChart chart = Charts.categoryChart(WIDTH, HEIGHT,
                "LLM agents: p50 time to first token and cache hit rate per variant", "Variant", "ms / %");
        chart.getStyler().setLabelsVisible(true);
        chart.addSeries("p50 time to first token, ms", labels,
                results.stream().map(r -> Double.isNaN(r.ttftP50Ms()) ? 0.0 : round1(r.ttftP50Ms())).toList());
        chart.addSeries("cache hit rate, %", labels, results.stream().map(r -> round1(100 * r.hitRate())).toList());
        return chart;
    }

    /**
     * Writes the chart as {@value #PNG_FILE} into {@code dir} (created if missing).
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public static Path writeChart(List<AgentsResult> results, Path dir) throws IOException {
        return Charts.writePng(chart(results), dir, PNG_FILE);
    }

    private static double round1(double value) {
        return Math.round(value * 10) / 10.0;
    }
}
