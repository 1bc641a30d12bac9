package io.github.agentlb.loadgen.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.report.ReportJson;
import io.github.agentlb.loadgen.report.RunConsole;
import io.github.agentlb.loadgen.report.TimelineChart;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Writes fleet runs: {@code report-fleet-<strategy>.json} ({@link #toJson}) and
 * {@code timeline_fleet_<strategy>.png} per strategy, the {@code report.md} section and the
 * console table. Times in s from the first request, the drain in ms; a figure not observed is
 * JSON {@code null} and "n/a" in markdown. Stateless and thread-safe.
 */
public final class FleetReportWriter {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final List<String> AGENTS = List.of("A1", "A2", "A3", FleetPhase.JOINING);

    private FleetReportWriter() {
    }

    /** {@code report-fleet-<strategy>.json}. */
    public static String jsonFileName(String strategy) {
        return "report-" + FleetScenario.LABEL + "-" + strategy + ".json";
    }

    /** {@code timeline_fleet_<strategy>.png}. */
    public static String chartFileName(String strategy) {
        return "timeline_" + FleetScenario.LABEL + "_" + strategy + ".png";
    }

    /**
     * Writes the run's JSON report and timeline chart into {@code dir} (created if missing).
     *
     * @return the names of the files written
     * @throws IOException if a file cannot be written
     */
    public static List<String> write(FleetReport report, Path dir) throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve(jsonFileName(report.strategy())).toFile(), toJson(report));
        List<TimelineChart.Marker> markers = new ArrayList<>();
        report.changeSeconds().forEach((phase, s) -> markers.add(new TimelineChart.Marker(s, phase.opening())));
        TimelineChart.write(TimelineChart.build(String.format(Locale.ROOT, "Requests per agent per second - %s, "
                        + "%s joins, %s drained and back", report.strategy(), FleetPhase.JOINING, FleetPhase.LEAVING),
                report.timeline(), markers), dir.resolve(chartFileName(report.strategy())));
        return List.of(jsonFileName(report.strategy()), chartFileName(report.strategy()));
    }

    /** The JSON document of a fleet run. */
    public static ObjectNode toJson(FleetReport r) {
        ObjectNode root = JSON.createObjectNode();
        root.put("strategy", r.strategy());
        root.put("scenario", FleetScenario.LABEL);
        root.put("requests", r.requests());
        root.put("client_errors", r.clientErrors());
        ReportJson.putLoad(root, r.config());
        root.put("slow_start", slowStart(r));
        ObjectNode changes = root.putObject("changes_s");
        r.changeSeconds().forEach((phase, s) -> changes.put(phase.opening(), s));
        ReportJson.putNumber(root, "drain_ms", r.drainMs());
        root.put("in_flight_at_drain", r.inFlightAtDrain());
        root.put("chosen_while_drained", r.drainedAnswers());
        root.put("answered_before_join", r.earlyJoinAnswers());
        root.put("other_keys_moved", r.otherKeysMoved());
        ReportJson.putPhases(root, r, FleetPhase::label, (p, phase, s) -> {
            p.put("opened_by", phase.opening());
            p.put("requests", s.requests());
            p.put("client_errors", r.clientErrors(phase));
            p.put("duration_ms", s.durationMs());
            p.put("p99_ms", s.latency().p99Ms());
            ReportJson.putAgentCounts(p, "requests_per_agent", s);
            KeyMoves m = r.moves().get(phase);
            if (m != null) {
                ObjectNode moves = p.putObject("keys_moved_from_previous_phase");
                moves.put("users_compared", m.compared());
                moves.put("moved", m.moved());
                moves.put("other_moved", m.otherMoved());
            }
        });
        ReportJson.putTimeline(root, r.timeline());
        return root;
    }

    /** One line per strategy: errors, per-phase counts per agent, keys moved, the drain. */
    public static String table(List<FleetReport> runs) {
        StringBuilder sb = new StringBuilder("| strategy | client errors |");
        for (FleetPhase p : FleetPhase.values()) {
            sb.append(' ').append(p.label()).append(" A1/A2/A3/A4 |");
        }
        sb.append(" keys moved (join, drain, return) | other keys moved | A2 in flight at drain | A2 drain ms |"
                + " A2 chosen while drained | A4 before join |\n|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|\n");
        for (FleetReport r : runs) {
            sb.append("| ").append(r.strategy()).append(" | ").append(r.clientErrors()).append(" |");
            for (FleetPhase p : FleetPhase.values()) {
                sb.append(' ').append(AGENTS.stream().map(a -> String.valueOf(r.answered(p, a)))
                        .collect(Collectors.joining("/"))).append(" |");
            }
            sb.append(' ').append(r.moves().values().stream().map(m -> m.moved() + "/" + m.compared())
                    .collect(Collectors.joining(", ")));
            sb.append(String.format(Locale.ROOT, " | %d | %d | %s | %d | %d |%n", r.otherKeysMoved(),
                    r.inFlightAtDrain(), Double.isNaN(r.drainMs()) ? "n/a" : String.format(Locale.ROOT, "%.0f",
                            r.drainMs()), r.drainedAnswers(), r.earlyJoinAnswers()));
        }
        return sb.toString();
    }

    /** The {@code report.md} section of the fleet runs. */
    public static String markdown(List<FleetReport> runs) {
        StringBuilder sb = new StringBuilder("## Scenario ").append(FleetScenario.LABEL).append("\n\n");
        if (runs.isEmpty()) {
            return sb.append("No run.\n").toString();
        }
        FleetReport first = runs.get(0);
        LoadTestConfig c = first.config();
        sb.append(String.format(Locale.ROOT, "Agents A1-A3 as in the uniform scenario and a fourth, %s; %d requests "
                        + "over %d users, %d concurrent, seed %d, after %d warm-up requests (not counted). Through the "
                        + "balancer's membership API, just before request n/4+1 is sent %s joins (%s), before n/2+1 %s "
                        + "is drained (drainAgent: no new requests, those in flight finish, then it leaves), before "
                        + "3n/4+1 %s is added again (same slow start).%n%n", FleetPhase.JOINING, c.requests(),
                c.users(), c.concurrency(), c.seed(), c.warmup(), FleetPhase.JOINING, slowStart(first),
                FleetPhase.LEAVING, FleetPhase.LEAVING));
        sb.append(table(runs)).append('\n');
        sb.append("| strategy | phase | opened by | requests | client errors | p99 ms |");
        AGENTS.forEach(a -> sb.append(' ').append(a).append(" |"));
        sb.append(" keys moved from the phase before | of them other keys |\n|---|---|---|---:|---:|---:|");
        AGENTS.forEach(a -> sb.append("---:|"));
        sb.append("---:|---:|\n");
        for (FleetReport r : runs) {
            r.phases().forEach((phase, s) -> {
                sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d | %.1f |", r.strategy(), phase.label(),
                        phase.opening(), s.requests(), r.clientErrors(phase), s.latency().p99Ms()));
                AGENTS.forEach(a -> sb.append(' ').append(r.answered(phase, a)).append(" |"));
                KeyMoves m = r.moves().get(phase);
                sb.append(m == null ? " | |" : " " + m.moved() + "/" + m.compared() + " | " + m.otherMoved() + " |");
                sb.append('\n');
            });
        }
        sb.append("\nA request belongs to the phase in which it was sent. Client errors = errors + timeouts (goal 0). "
                + "A1-A4: requests each agent answered. Keys moved: users answered in both phases whose agent (the "
                + "one that answered their last request of the phase) changed; \"other keys\" = moved between two "
                + "agents that never joined or left (A1, A3): consistent hashing promises 0 (`ch`); `rr` and `pid` do "
                + "not keep users on an agent, so most of their keys move. \"A2 in flight at drain\" = its answers to "
                + "requests sent before the drain and answered after it began; \"A2 drain ms\" = from the drain to "
                + "A2 leaving the balancer; \"A2 chosen while drained\" = its answers to requests sent after the "
                + "drain and answered before its return (goal 0); \"A4 before join\" = its answers before it joined "
                + "(goal 0).\n\n");
        for (FleetReport r : runs) {
            sb.append("![requests per agent over time, ").append(r.strategy()).append(", fleet](")
                    .append(chartFileName(r.strategy())).append(")\n");
        }
        return sb.append('\n').toString();
    }

    /** Progress lines of a finished run: one per phase. */
    public static String summary(FleetReport r) {
        StringBuilder sb = new StringBuilder();
        r.phases().forEach((phase, s) -> sb.append(String.format(Locale.ROOT, "%s (fleet) %s: %d requests, %d client "
                        + "errors; %s%n", r.strategy(), phase.label(), s.requests(), r.clientErrors(phase),
                RunConsole.answeredPerAgent(s))));
        return sb.toString();
    }

    private static String slowStart(FleetReport r) {
        return String.format(Locale.ROOT, "slow start %d ms, aggression %.1f, minimum share %.2f",
                r.slowStart().window().toMillis(), r.slowStart().aggression(), r.slowStart().minWeightShare());
    }
}
