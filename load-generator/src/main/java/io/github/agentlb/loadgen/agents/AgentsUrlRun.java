package io.github.agentlb.loadgen.agents;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.loadgen.report.ReportJson;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The agents scenario's {@link Conversations} sent to a balancer that is already running
 * ({@code --scenario agents --url URL --strategy LABEL}): the same requests as the in-process
 * scenario, each with {@code "stream_options":{"include_usage":true}} so that the answer's last
 * chunk carries OpenAI's {@code usage}, sent the same way ({@link AgentsScenario.Settings#inFlight()}
 * closed-loop workers, each taking the next conversation and sending its turns one after another,
 * {@code ?user_id=c<i>}, an MCP-style conversation's first session id with its later turns). The
 * figures come from the answers alone ({@link AgentsUrlResult}), so any balancer in front of stub
 * agents (or of vLLM) can be compared; one table row and {@code agents-url-<label>.json}.
 *
 * <p>Thread-safe: each {@link #run} has its own workers.
 */
public final class AgentsUrlRun {

    /** The path posted to under the base URL. */
    public static final String PATH = "/v1/chat/completions";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Conversations workload;
    private final int inFlight;
    private final Duration timeout;
    private final PrintStream stdout;

    /**
     * @param workload the conversations
     * @param inFlight closed-loop workers, >= 1
     * @param timeout  per request, send to {@code [DONE]}, > 0
     * @param stdout   where progress goes
     */
    public AgentsUrlRun(Conversations workload, int inFlight, Duration timeout, PrintStream stdout) {
        this.workload = Objects.requireNonNull(workload, "workload");
        if (inFlight < 1) {
            throw new IllegalArgumentException("inFlight must be >= 1, was " + inFlight);
        }
        this.inFlight = inFlight;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.stdout = Objects.requireNonNull(stdout, "stdout");
    }

    /** The in-process scenario's workload and clients: default conversations from {@code seed}, 20 in flight, 10 s. */
    public static AgentsUrlRun ofDefaults(long seed, PrintStream stdout) {
        AgentsScenario.Settings settings = AgentsScenario.Settings.ofDefaults();
        return new AgentsUrlRun(Conversations.ofDefaults(seed), settings.inFlight(), settings.timeout(), stdout);
    }

    /** The conversations sent. */
    public Conversations workload() {
        return workload;
    }

    /**
     * Sends every conversation to {@code baseUrl} + {@value #PATH} and computes the figures.
     *
     * @param baseUrl {@code http://host:port}, no trailing slash
     * @param label   the balancer's name in the table and the file name
     * @throws Exception if a worker is interrupted or fails
     */
    public AgentsUrlResult run(String baseUrl, String label) throws Exception {
        stdout.printf(Locale.ROOT, "== agents %s: %d conversations of %d turns to %s%s, %d in flight%n", label,
                workload.conversations(), workload.turns(), baseUrl, PATH, inFlight);
        ChatStreamClient client = new ChatStreamClient(timeout);
        long start = System.nanoTime();
        URI uri = URI.create(baseUrl + PATH);
        List<Turn> turns = ConversationDriver.run(workload, client, inFlight, "agents-url-" + label,
                c -> URI.create(uri + "?user_id=" + workload.userId(c)), c -> 0, AgentsUrlRun::withUsage);
        AgentsUrlResult result = AgentsUrlResult.of(label, baseUrl, turns, System.nanoTime() - start);
        stdout.printf(Locale.ROOT, "== agents %s: %d requests in %.1f s, ttft p50 %.1f ms, hit rate %.3f (usage of "
                        + "%d answers), stickiness %.3f, errors %d%n", label, result.requests(), result.seconds(),
                result.ttftP50Ms(), result.hitRate(), result.withUsage(), result.stickiness(), result.errors());
        return result;
    }

    /** {@code body} (a JSON object) with {@code "stream_options":{"include_usage":true}} added at its end. */
    static String withUsage(String body) {
        try {
            ObjectNode node = (ObjectNode) JSON.readTree(body);
            node.putObject("stream_options").put("include_usage", true);
            return node.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The JSON file of a run labelled {@code label}. */
    public static String jsonFileName(String label) {
        return "agents-url-" + label + ".json";
    }

    /** A table's head, for {@link #row} lines. */
    public static String tableHead() {
        return "| target | requests | errors | ttft p50 ms | ttft p99 ms | hit rate (usage) | MCP stickiness "
                + "| answers per agent | s |\n|---|---:|---:|---:|---:|---:|---:|---|---:|\n";
    }

    /** One markdown table row of {@code r}. */
    public static String row(AgentsUrlResult r) {
        String answered = r.answered().entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(" "));
        return String.format(Locale.ROOT, "| %s | %d | %s | %.1f | %.1f | %.3f | %.3f | %s | %.1f |%n", r.label(),
                r.requests(), errors(r), r.ttftP50Ms(), r.ttftP99Ms(), r.hitRate(), r.stickiness(), answered,
                r.seconds());
    }

    /** The error count, with the statuses when there are errors, e.g. {@code 120 (404 x 120)}. */
    static String errors(AgentsUrlResult r) {
        if (r.errors() == 0) {
            return "0";
        }
        String statuses = r.errorStatuses().entrySet().stream()
                .map(e -> (e.getKey() == 0 ? "no answer" : String.valueOf(e.getKey())) + " x " + e.getValue())
                .collect(Collectors.joining(", "));
        return r.errors() + " (" + statuses + (r.timeouts() > 0 ? ", " + r.timeouts() + " timeouts" : "") + ")";
    }

    /** The {@code report.md} section of a run. */
    public String markdown(AgentsUrlResult r) {
        StringBuilder sb = new StringBuilder("## Scenario agents against " + r.target() + "\n\n");
        sb.append(String.format(Locale.ROOT, "%d conversations of %d turns (seed %d), %d in flight, each request "
                        + "with stream_options.include_usage; hit rate = Σ cached_tokens / Σ prompt_tokens of the "
                        + "answers' usage (%d of %d answers reported it); stickiness: MCP-style turns after the first "
                        + "answered by the agent of the first (from the chunk id).%n%n", workload.conversations(),
                workload.turns(), workload.seed(), inFlight, r.withUsage(), r.requests()));
        sb.append(tableHead()).append(row(r));
        r.errorSamples().forEach(e -> sb.append("- error: ").append(e).append('\n'));
        return sb.toString();
    }

    /**
     * Writes {@code r} as {@link #jsonFileName} into {@code dir} (created if missing).
     *
     * @return the file written
     * @throws IOException if it cannot be written
     */
    public Path writeJson(AgentsUrlResult r, Path dir) throws IOException {
        Files.createDirectories(dir);
        ObjectNode root = PRETTY.createObjectNode();
        root.put("scenario", AgentsJob.LABEL);
        root.put("label", r.label());
        root.put("target", r.target());
        root.put("conversations", workload.conversations());
        root.put("turns", workload.turns());
        root.put("seed", workload.seed());
        root.put("inFlight", inFlight);
        root.put("requests", r.requests());
        root.put("errors", r.errors());
        root.put("timeouts", r.timeouts());
        ObjectNode statuses = root.putObject("errorStatuses");
        r.errorStatuses().forEach((status, n) -> statuses.put(String.valueOf(status), n));
        ReportJson.putNumber(root, "ttftP50Ms", r.ttftP50Ms());
        ReportJson.putNumber(root, "ttftP99Ms", r.ttftP99Ms());
        root.put("promptTokens", r.promptTokens());
        root.put("cachedTokens", r.cachedTokens());
        root.put("answersWithUsage", r.withUsage());
        root.put("hitRate", r.hitRate());
        root.put("mcpLaterTurns", r.mcpLaterTurns());
        root.put("stickyTurns", r.stickyTurns());
        root.put("stickiness", r.stickiness());
        ObjectNode answered = root.putObject("answered");
        r.answered().forEach(answered::put);
        root.put("seconds", r.seconds());
        root.putArray("errorSamples").addAll(r.errorSamples().stream().map(root::textNode).toList());
        Path file = dir.resolve(jsonFileName(r.label()));
        PRETTY.writeValue(file.toFile(), root);
        return file;
    }
}
