package io.github.agentlb.loadgen.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.scenario.HotKeyScenario.HotKeyRun;
import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.stats.AgentSummary;
import io.github.agentlb.loadgen.stats.AvnSummary;
import io.github.agentlb.loadgen.stats.HotKeyStatistics;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Writes the hot-key scenario's results: {@code report-hotkey-<variant>.json} per run (the
 * figures of {@link ReportWriter#toJson} and the hot key's), the {@link HotKeyChart}, and the
 * section of {@code report.md}. Shares and stickiness are fractions 0..1. Stateless, thread-safe.
 */
public final class HotKeyReportWriter {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private HotKeyReportWriter() {
    }

    /** The JSON file name of a run: {@code report-hotkey-<variant>.json}. */
    public static String jsonFileName(String variant) {
        return "report-" + HotKeyScenario.LABEL + "-" + variant + ".json";
    }

    /**
     * Writes each run's JSON and the chart into {@code dir} (created if missing); nothing for no runs.
     *
     * @throws IOException if a file cannot be written
     */
    public static void write(List<HotKeyRun> runs, Path dir) throws IOException {
        if (runs.isEmpty()) {
            return;
        }
        Files.createDirectories(dir);
        for (HotKeyRun run : runs) {
            JSON.writeValue(dir.resolve(jsonFileName(run.variant().label())).toFile(), toJson(run));
        }
        HotKeyChart.write(runs, HotKeyScenario.TARGET_MAX_OVER_MEAN, dir);
    }

    /** The JSON document of a run. */
    public static ObjectNode toJson(HotKeyRun run) {
        ObjectNode root = ReportWriter.toJson(run.report());
        HotKeyStatistics hot = run.hot();
        root.put("strategy", run.variant().strategy());
        root.put("variant", run.variant().label());
        root.put("scenario", HotKeyScenario.LABEL);
        root.put("balance_factor", run.variant().balanceFactor());
        root.put("replicas", hot.replicas());
        root.put("hot_share", run.report().config().hotShare());
        root.put("hot_user", Workload.HOT_USER);
        root.put("hot_user_requests", hot.hotUserRequests());
        ObjectNode agents = root.putObject("hot_user_agents");
        hot.hotUserAgents().forEach(agents::put);
        root.put("other_users", hot.otherUsers());
        root.put("others_sticky_users", hot.stickyOthers());
        root.put("others_stickiness", hot.othersStickiness());
        root.put("others_stickiness_per_replica", hot.othersStickinessPerReplica());
        root.put("targets_met", run.meetsTargets());
        return root;
    }

    /** One line per run for the console. */
    public static String summary(HotKeyRun run) {
        RunStatistics s = run.report().statistics();
        HotKeyStatistics hot = run.hot();
        return String.format(Locale.ROOT, "%s (%s): %d requests, %d errors, %d timeouts; %s; max/mean %.3f; "
                        + "stickiness of users 1..%d %.3f%s; hot user on %s; targets %s", run.variant().label(),
                HotKeyScenario.LABEL, s.requests(), s.errors(), s.timeouts(),
                RunConsole.answeredPerAgent(s),
                s.maxOverMean(), run.report().config().users(), hot.othersStickiness(),
                hot.replicas() > 1 ? String.format(Locale.ROOT, " (%.3f within each replica)",
                        hot.othersStickinessPerReplica()) : "",
                hotUserOn(hot), run.meetsTargets() ? "met" : "missed");
    }

    /** The scenario's table; lines end with {@code \n}. */
    public static String table(List<HotKeyRun> runs) {
        SortedSet<String> agents = new TreeSet<>();
        runs.forEach(r -> agents.addAll(r.report().statistics().agents().keySet()));
        boolean replicated = runs.stream().anyMatch(r -> r.hot().replicas() > 1);
        StringBuilder sb = new StringBuilder("| balancer | balance factor | requests | errors | timeouts |");
        agents.forEach(a -> sb.append(' ').append(a).append(" |"));
        sb.append(" max/mean | stickiness (others) |").append(replicated ? " within each replica | replicas |" : "")
                .append(" hot user on | targets |\n|---|---:|---:|---:|---:|");
        agents.forEach(a -> sb.append("---:|"));
        sb.append("---:|---:|").append(replicated ? "---:|---|" : "").append("---|---|\n");
        for (HotKeyRun run : runs) {
            RunStatistics s = run.report().statistics();
            HotKeyStatistics hot = run.hot();
            sb.append("| ").append(run.variant().label()).append(" | ")
                    .append(run.variant().balanceFactor() > 0 ? format("%.2f", run.variant().balanceFactor()) : "-")
                    .append(" | ").append(s.requests()).append(" | ").append(s.errors()).append(" | ")
                    .append(s.timeouts()).append(" |");
            agents.forEach(a -> {
                AgentSummary agent = s.agents().get(a);
                sb.append(' ').append(agent == null ? 0 : agent.count()).append(" |");
            });
            sb.append(' ').append(format("%.3f", s.maxOverMean())).append(" | ")
                    .append(format("%.3f", hot.othersStickiness())).append(" |");
            if (replicated) {
                sb.append(' ').append(format("%.3f", hot.othersStickinessPerReplica())).append(" | ")
                        .append(hot.replicas()).append(run.variant().shared() ? " shared" : hot.replicas() > 1 ? " alone" : "")
                        .append(" |");
            }
            sb.append(' ').append(hotUserOn(hot)).append(" | ").append(run.meetsTargets() ? "met" : "missed")
                    .append(" |\n");
        }
        return sb.toString();
    }

    /**
     * The shared {@code avn} against one instance in the same run ({@code avn-shared} against
     * {@code avn-one}, and the unshared replicas {@code avn} beside), with the shared allocation's targets; empty
     * when the run has no shared variant.
     */
    public static String sharedComparison(List<HotKeyRun> runs) {
        HotKeyRun one = find(runs, "avn-one");
        HotKeyRun shared = find(runs, "avn-shared");
        if (one == null || shared == null) {
            return "";
        }
        HotKeyRun alone = find(runs, "avn");
        double mm = shared.report().statistics().maxOverMean() - one.report().statistics().maxOverMean();
        double st = shared.hot().othersStickiness() - one.hot().othersStickiness();
        // Stickiness moves in steps of one user (0.005 of 200): compare as printed, not in binary.
        double tolerance = 1e-9;
        boolean met = mm <= HotKeyScenario.TARGET_SHARED_MAX_OVER_MEAN_DELTA + tolerance
                && st >= -HotKeyScenario.TARGET_SHARED_STICKINESS_DELTA - tolerance;
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "Shared allocation: avn-shared (%d replicas, "
                        + "one allocation through ZooKeeper) max/mean %.3f, stickiness %.3f against one instance (avn-one) "
                        + "%.3f, %.3f: %+.3f and %+.3f; targets (max/mean at most +%.2f, stickiness at most -%.2f) %s",
                shared.hot().replicas(), shared.report().statistics().maxOverMean(), shared.hot().othersStickiness(),
                one.report().statistics().maxOverMean(), one.hot().othersStickiness(), mm, st,
                HotKeyScenario.TARGET_SHARED_MAX_OVER_MEAN_DELTA, HotKeyScenario.TARGET_SHARED_STICKINESS_DELTA,
                met ? "met" : "missed"));
        if (alone != null) {
            sb.append(String.format(Locale.ROOT, "; replicas each learning alone (avn): %.3f, %.3f (%+.3f, %+.3f)",
                    alone.report().statistics().maxOverMean(), alone.hot().othersStickiness(),
                    alone.report().statistics().maxOverMean() - one.report().statistics().maxOverMean(),
                    alone.hot().othersStickiness() - one.hot().othersStickiness()));
        }
        return sb.append(".\n").toString();
    }

    private static HotKeyRun find(List<HotKeyRun> runs, String label) {
        return runs.stream().filter(r -> r.variant().label().equals(label)).findFirst().orElse(null);
    }

    /** The section of {@code report.md}; empty for no runs. */
    public static String markdown(List<HotKeyRun> runs) {
        if (runs.isEmpty()) {
            return "";
        }
        LoadTestConfig c = runs.get(0).report().config();
        int replicas = runs.get(0).hot().replicas();
        StringBuilder sb = new StringBuilder("## Scenario " + HotKeyScenario.LABEL + "\n\n");
        sb.append(String.format(Locale.ROOT, "Agents: %s. User %d sends %d (share %.2f) of %d requests, users 1..%d "
                        + "the rest, in the seeded order (seed %d), %d concurrent, after %d warm-up requests with the "
                        + "same share (not counted); %s. The %d runs ran at the same time, each with its own agents and "
                        + "proxies (the figures are counts; latency is not compared here).%n%n",
                Scenario.UNIFORM.description(), Workload.HOT_USER, Workload.hotRequests(c.requests(), c.hotShare()),
                c.hotShare(), c.requests(), c.users(), c.seed(), c.concurrency(), c.warmup(),
                replicas == 1 ? "one proxy per balancer"
                        : replicas + " proxy replicas per balancer over the same agents, requests alternating across them",
                runs.size()));
        sb.append(table(runs)).append('\n');
        String comparison = sharedComparison(runs);
        if (!comparison.isEmpty()) {
            sb.append(comparison).append('\n');
        }
        List<String> met = runs.stream().filter(HotKeyRun::meetsTargets).map(r -> "`" + r.variant().label() + "`")
                .toList();
        sb.append(String.format(Locale.ROOT, "Targets: max/mean <= %.2f, stickiness of the other users >= "
                        + "%.2f and the hot user on one agent; met by %s. ", HotKeyScenario.TARGET_MAX_OVER_MEAN,
                HotKeyScenario.TARGET_STICKINESS, met.isEmpty() ? "none" : String.join(", ", met)));
        sb.append("max/mean of the requests per agent; stickiness (others) = share of users 1.." + c.users()
                + " whose answers all came from one agent, whichever replica each request passed");
        sb.append(replicas > 1 ? "; within each replica = share that each replica kept on one agent (possibly "
                + "different ones), so the difference is the users the replicas disagree on" : "");
        sb.append("; hot user on = the agents that answered user 0, with its requests on each. Bounded variants: "
                + "`setBalanceFactor(c)`, the library's bounded loads (docs/bounded-load.md).\n\n");
        for (HotKeyRun r : runs) {
            if (r.report().avn() != null) {
                AvnSummary avn = r.report().avn();
                sb.append(String.format(Locale.ROOT, "`%s` virtual nodes at the end%s: %s; %d reallocations.%n%n",
                        r.variant().label(), replicas > 1 ? " (replica 1)" : "",
                        avn.virtualNodes().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                                .collect(Collectors.joining(", ")), avn.reallocations()));
            }
        }
        sb.append("![requests per agent, hot user and others](").append(HotKeyChart.PNG_FILE).append(")\n");
        return sb.toString();
    }

    /** {@code 1 (A2 400)} or {@code 2 (A1 250, A2 150)}: how many agents answered the hot user, and how much each. */
    public static String hotUserOn(HotKeyStatistics hot) {
        if (hot.hotUserAgents().isEmpty()) {
            return "0";
        }
        return hot.hotUserAgentCount() + " (" + hot.hotUserAgents().entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")) + ")";
    }

    private static String format(String pattern, double value) {
        return String.format(Locale.ROOT, pattern, value);
    }
}
