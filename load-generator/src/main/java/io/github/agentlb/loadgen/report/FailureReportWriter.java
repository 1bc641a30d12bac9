package io.github.agentlb.loadgen.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.scenario.FailureReport;
import io.github.agentlb.loadgen.scenario.Fault;
import io.github.agentlb.loadgen.stats.FailoverStickiness;
import io.github.agentlb.loadgen.stats.FailurePhases.Phase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes fault runs: {@code report-<fault>-<strategy>.json} (see {@link #toJson}) and the
 * {@link TimelineChart} of each, and the {@code report.md} section of each fault. Latencies in ms,
 * times in s from the first request (kill, restart) or ms (ejection and re-admission delays),
 * shares as fractions 0..1; a figure that was not observed is JSON {@code null} and "n/a" in
 * markdown. Stateless and thread-safe.
 */
public final class FailureReportWriter {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private FailureReportWriter() {
    }

    /** {@code report-<fault>-<strategy>.json}. */
    public static String jsonFileName(Fault fault, String strategy) {
        return "report-" + fault.label() + "-" + strategy + ".json";
    }

    /**
     * Writes the run's JSON report and timeline chart into {@code dir} (created if missing).
     *
     * @throws IOException if a file cannot be written
     */
    public static void write(FailureReport report, Path dir) throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve(jsonFileName(report.fault(), report.strategy())).toFile(), toJson(report));
        TimelineChart.write(report, dir);
    }

    /** The JSON document of a fault run. */
    public static ObjectNode toJson(FailureReport r) {
        ObjectNode root = JSON.createObjectNode();
        root.put("strategy", r.strategy());
        root.put("scenario", r.fault().label());
        root.put("dead_agent", r.deadAgent());
        root.put("fault", r.fault().description());
        root.put("requests", r.requests());
        root.put("client_errors", r.clientErrors());
        root.put("users", r.config().users());
        root.put("concurrency", r.config().concurrency());
        root.put("seed", r.config().seed());
        root.put("client_timeout_ms", r.config().timeoutMs());
        root.put("warmup_requests", r.config().warmup());
        root.put("proxy_request_timeout_ms", r.proxyRequestTimeoutMs());
        root.put("balancer_settings", r.balancerSettings());
        root.put("kill_s", r.killSeconds());
        root.put("restart_s", r.restartSeconds());
        ReportJson.putPhases(root, r, Phase::label, (p, phase, s) -> {
            p.put("requests", s.requests());
            p.put("client_errors", r.clientErrors(phase));
            p.put("errors", s.errors());
            p.put("timeouts", s.timeouts());
            ObjectNode statuses = p.putObject("error_statuses");
            s.errorStatuses().forEach((status, n) -> statuses.put(String.valueOf(status), n));
            p.put("requests_over_proxy_timeout", r.overProxyTimeout().get(phase));
            p.put("duration_ms", s.durationMs());
            ReportJson.putAgentCounts(p, "requests_per_agent", s);
            p.put("p50_ms", s.latency().p50Ms());
            p.put("p99_ms", s.latency().p99Ms());
            p.put("max_ms", s.latency().maxMs());
        });
        ReportJson.putNumber(root, "down_p99_over_before", r.downP99OverBefore());
        FailoverStickiness st = r.stickiness();
        ObjectNode sticky = root.putObject("stickiness");
        sticky.put("dead_agent_users", st.deadAgentUsers());
        sticky.put("other_users", st.otherUsers());
        sticky.put("others_in_down", st.othersInDown());
        sticky.put("others_stayed_down", st.othersStayedDown());
        ReportJson.putNumber(sticky, "others_stayed_down_share", st.othersStayedDownShare());
        sticky.put("others_in_after", st.othersInAfter());
        sticky.put("others_stayed_after", st.othersStayedAfter());
        ReportJson.putNumber(sticky, "others_stayed_after_share", st.othersStayedAfterShare());
        sticky.put("dead_users_in_return", st.deadUsersInReturn());
        sticky.put("dead_users_returned", st.deadUsersReturned());
        ReportJson.putNumber(sticky, "dead_users_returned_share", st.deadUsersReturnedShare());
        FailureReport.HealthTimes h = r.health();
        ObjectNode health = root.putObject("health");
        ReportJson.putNumber(health, "kill_to_ejection_ms", h.killToEjectionMs());
        ReportJson.putNumber(health, "restart_to_readmission_ms", h.restartToReadmissionMs());
        health.put("dead_agent_ejections", h.deadAgentEjections());
        health.put("other_ejections", h.otherEjections());
        ObjectNode timeline = ReportJson.putTimeline(root, r.timeline());
        ReportJson.putCounts(timeline.putArray("failed"), r.timeline().failed());
        return root;
    }

    /** Progress lines of a finished run: one per phase, then ejection and stickiness figures. */
    public static String summary(FailureReport r) {
        StringBuilder sb = new StringBuilder();
        r.phases().forEach((phase, s) -> sb.append(String.format(Locale.ROOT,
                "%s (%s) %s: %d requests, %d client errors, p99 %.1f ms; %s%n", r.strategy(), r.fault().label(),
                phase.label(), s.requests(), r.clientErrors(phase), s.latency().p99Ms(),
                RunConsole.answeredPerAgent(s))));
        FailureReport.HealthTimes h = r.health();
        FailoverStickiness st = r.stickiness();
        sb.append(String.format(Locale.ROOT, "%s (%s): kill to ejection %s ms, restart to re-admission %s ms; others "
                        + "stayed %s (down), %s's users back %s%n", r.strategy(), r.fault().label(),
                number(h.killToEjectionMs(), "%.0f"), number(h.restartToReadmissionMs(), "%.0f"),
                stickiness(r, st.othersStayedDown(), st.othersInDown()), r.deadAgent(),
                stickiness(r, st.deadUsersReturned(), st.deadUsersInReturn())));
        return sb.toString();
    }

    /** The {@code report.md} sections of {@code reports}, one per fault in order of appearance; empty for none. */
    public static String markdown(List<FailureReport> reports) {
        Map<Fault, List<FailureReport>> byFault = new LinkedHashMap<>();
        reports.forEach(r -> byFault.computeIfAbsent(r.fault(), f -> new ArrayList<>()).add(r));
        StringBuilder sb = new StringBuilder();
        byFault.forEach((fault, runs) -> section(sb, fault, runs));
        return sb.toString();
    }

    private static void section(StringBuilder sb, Fault fault, List<FailureReport> runs) {
        FailureReport first = runs.get(0);
        LoadTestConfig c = first.config();
        sb.append("## Scenario ").append(fault.label()).append("\n\n");
        sb.append(String.format(Locale.ROOT, "Agents: %s. Agent %s is down from when 1/3 of the requests have been "
                        + "sent until 2/3 have: %s; then it is restarted on the same port. %d requests over %d users, "
                        + "%d concurrent, seed %d, after %d warm-up requests (not counted); proxy answer timeout %d ms "
                        + "per attempt, client timeout %d ms. Balancer: %s.%n%n", Scenario.UNIFORM.description(),
                first.deadAgent(), fault.description(), c.requests(), c.users(), c.concurrency(), c.seed(), c.warmup(),
                first.proxyRequestTimeoutMs(), c.timeoutMs(), first.balancerSettings()));
        List<String> agents = new ArrayList<>(first.phases().get(Phase.BEFORE).agents().keySet());
        sb.append("| strategy | phase | requests | client errors | p99 ms | p99 / before | waited a timeout |");
        agents.forEach(a -> sb.append(' ').append(a).append(" |"));
        sb.append("\n|---|---|---:|---:|---:|---:|---:|");
        agents.forEach(a -> sb.append("---:|"));
        sb.append('\n');
        for (FailureReport r : runs) {
            double before = r.phases().get(Phase.BEFORE).latency().p99Ms();
            r.phases().forEach((phase, s) -> {
                sb.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.1f | %s | %d |", r.strategy(),
                        phase.label(), s.requests(), r.clientErrors(phase), s.latency().p99Ms(),
                        before == 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", s.latency().p99Ms() / before),
                        r.overProxyTimeout().get(phase)));
                agents.forEach(a -> sb.append(' ').append(s.agents().containsKey(a) ? s.agents().get(a).count() : 0)
                        .append(" |"));
                sb.append('\n');
            });
        }
        sb.append("\n| strategy | kill to ejection ms | restart to re-admission ms | ejections of ")
                .append(first.deadAgent()).append(" | ejections of others | others stayed (down) | others stayed "
                        + "(after) | ").append(first.deadAgent()).append("'s users back |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (FailureReport r : runs) {
            FailureReport.HealthTimes h = r.health();
            FailoverStickiness st = r.stickiness();
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d | %s | %s | %s |%n", r.strategy(),
                    number(h.killToEjectionMs(), "%.0f"), number(h.restartToReadmissionMs(), "%.0f"),
                    h.deadAgentEjections(), h.otherEjections(),
                    stickiness(r, st.othersStayedDown(), st.othersInDown()),
                    stickiness(r, st.othersStayedAfter(), st.othersInAfter()),
                    stickiness(r, st.deadUsersReturned(), st.deadUsersInReturn())));
        }
        sb.append("\nA request belongs to the phase in which it was sent. Client errors = errors + timeouts seen by the "
                + "client (goal 0); p99 over answered requests, client-side (goal: down within 1.5x before); \"waited a "
                + "timeout\" = requests that took at least the proxy's answer timeout, i.e. waited out an agent that "
                + "did not answer (goal: a few, not every third). Columns "
                + "A1..A3: requests answered by each agent. Stickiness (meaningful for `ch` and `avn`): a user's home "
                + "is the one agent that answered all its requests before the kill; \"others stayed\" = users at home "
                + "on a live agent whose answers in the phase all came from it; \"users back\" = the dead agent's users "
                + "whose answers to requests sent after its re-admission (after its restart when none was seen) all came "
                + "from it. Ejection times come from the balancer's health listener; n/a = not observed.\n\n");
        for (FailureReport r : runs) {
            sb.append("![requests per agent over time, ").append(r.strategy()).append(", ").append(fault.label())
                    .append("](").append(TimelineChart.fileName(fault, r.strategy())).append(")\n");
        }
        sb.append('\n');
    }

    private static String number(double value, String format) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, format, value);
    }

    /** A stickiness share for the keyed strategies; "n/a" for rr and pid, which do not keep users. */
    private static String stickiness(FailureReport r, int part, int whole) {
        return r.strategy().equals("ch") || r.strategy().equals("avn") ? share(part, whole) : "n/a";
    }

    private static String share(int part, int whole) {
        return whole == 0 ? "n/a" : String.format(Locale.ROOT, "%.3f (%d/%d)", (double) part / whole, part, whole);
    }
}
