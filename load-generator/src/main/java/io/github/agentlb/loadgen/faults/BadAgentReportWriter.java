package io.github.agentlb.loadgen.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.demo.Strategies;
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
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Writes busy and gray runs: {@code report-<busy|gray>-<strategy>.json} ({@link #toJson}) and
 * {@code timeline_<busy|gray>_<strategy>.png} per strategy, the {@code report.md} section and the
 * console table. Times in s from the first request, reaction times in ms; a figure not observed
 * is JSON {@code null} and "n/a" in markdown. Stateless and thread-safe.
 */
public final class BadAgentReportWriter {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    /** A rest or ejection this soon after the switch shares its marker's label, ms. */
    private static final double NEAR_MS = 400;

    private BadAgentReportWriter() {
    }

    /** {@code report-<busy|gray>-<strategy>.json}. */
    public static String jsonFileName(BadAnswer answer, String strategy) {
        return "report-" + answer.label() + "-" + strategy + ".json";
    }

    /** {@code timeline_<busy|gray>_<strategy>.png}. */
    public static String chartFileName(BadAnswer answer, String strategy) {
        return "timeline_" + answer.label() + "_" + strategy + ".png";
    }

    /**
     * Writes the run's JSON report and timeline chart into {@code dir} (created if missing).
     *
     * @return the names of the files written
     * @throws IOException if a file cannot be written
     */
    public static List<String> write(BadAgentReport report, Path dir) throws IOException {
        Files.createDirectories(dir);
        BadAnswer answer = report.answer();
        JSON.writeValue(dir.resolve(jsonFileName(answer, report.strategy())).toFile(), toJson(report));
        List<TimelineChart.Marker> markers = new ArrayList<>();
        String onLabel = BadAgentReport.BAD_AGENT + " " + answer.status()
                + reaction(report.restMs(), "rested", report.onSeconds(), markers)
                + reaction(report.ejectionMs(), "ejected", report.onSeconds(), markers);
        markers.add(new TimelineChart.Marker(report.onSeconds(), onLabel));
        markers.add(new TimelineChart.Marker(report.offSeconds(), BadAgentReport.BAD_AGENT + " normal"));
        TimelineChart.write(TimelineChart.build(String.format(Locale.ROOT, "Requests per agent per second - %s, "
                        + "%s answers %s from %.1f s to %.1f s", report.strategy(), BadAgentReport.BAD_AGENT,
                answer.description(), report.onSeconds(), report.offSeconds()), report.timeline(), markers),
                dir.resolve(chartFileName(answer, report.strategy())));
        return List.of(jsonFileName(answer, report.strategy()), chartFileName(answer, report.strategy()));
    }

    /**
     * A marker at {@code ms} after the switch, or, when that is closer than {@link #NEAR_MS} and
     * two labels would overlap, the text to add to the switch's label; nothing when {@code ms} is NaN.
     */
    private static String reaction(double ms, String label, double onSeconds, List<TimelineChart.Marker> markers) {
        if (Double.isNaN(ms)) {
            return "";
        }
        if (ms < NEAR_MS) {
            return ", " + label;
        }
        markers.add(new TimelineChart.Marker(onSeconds + ms / 1e3, label));
        return "";
    }

    /** The JSON document of a busy or gray run. */
    public static ObjectNode toJson(BadAgentReport r) {
        ObjectNode root = JSON.createObjectNode();
        root.put("strategy", r.strategy());
        root.put("scenario", r.answer().label());
        root.put("bad_agent", BadAgentReport.BAD_AGENT);
        root.put("bad_answer_status", r.answer().status());
        if (r.answer().retryAfter() == null) {
            root.putNull("bad_answer_retry_after");
        } else {
            root.put("bad_answer_retry_after", r.answer().retryAfter());
        }
        root.put("requests", r.requests());
        ReportJson.putLoad(root, r.config());
        root.put("balancer", balancerSettings());
        root.put("bad_answer_from_s", r.onSeconds());
        root.put("bad_answer_until_s", r.offSeconds());
        root.put("client_errors", r.clientErrors());
        root.put("bad_answers_seen_by_clients", r.badAnswersSeen());
        root.put("bad_answers_allowed", r.allowedBadAnswers());
        root.put("excess_client_errors", r.excessClientErrors());
        ReportJson.putNumber(root, "rest_after_ms", r.restMs());
        ReportJson.putNumber(root, "ejection_after_ms", r.ejectionMs());
        root.put("ejections", r.ejections());
        root.put("readmissions_while_bad", r.readmissions());
        if (r.mostPerRest().isPresent()) {
            root.put("most_bad_agent_requests_per_retry_after", r.mostPerRest().getAsInt());
        }
        root.put("within_bounds", r.withinBounds());
        ReportJson.putPhases(root, r, BadAgentPhase::label, (p, phase, s) -> {
            p.put("requests", s.requests());
            p.put("client_errors", r.clientErrors(phase));
            p.put("bad_answers_seen_by_clients", r.badAnswersSeen(phase));
            p.put("bad_agent_requests", r.badAgentRequests(phase));
            p.put("duration_ms", s.durationMs());
            p.put("p99_ms", s.latency().p99Ms());
            ReportJson.putAgentCounts(p, "answered_per_agent", s);
        });
        ObjectNode timeline = ReportJson.putTimeline(root, r.timeline());
        ReportJson.putCounts(timeline.putArray("failed"), r.timeline().failed());
        return root;
    }

    /** One line per strategy: client errors and A1's requests per phase, its rest or ejection, the bounds. */
    public static String table(List<BadAgentReport> runs) {
        if (runs.isEmpty()) {
            return "No run.\n";
        }
        BadAnswer answer = runs.get(0).answer();
        boolean busy = !answer.rest().isZero();
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "| strategy | client errors before/during/after "
                + "| of them %d (allowed) | %s requests before/during/after | %s rested after ms | %s ejected after ms "
                + "| ejections / re-admissions while bad |%s within bounds |%n|---|---:|---:|---:|---:|---:|---:|%s---|%n",
                answer.status(), BadAgentReport.BAD_AGENT, BadAgentReport.BAD_AGENT, BadAgentReport.BAD_AGENT,
                busy ? " most " + BadAgentReport.BAD_AGENT + " requests per " + answer.rest().toSeconds() + " s |" : "",
                busy ? "---:|" : ""));
        for (BadAgentReport r : runs) {
            sb.append(String.format(Locale.ROOT, "| %s | %s | %d (%d) | %s | %s | %s | %d / %d |", r.strategy(),
                    perPhase(r::clientErrors), r.badAnswersSeen(), r.allowedBadAnswers(),
                    perPhase(r::badAgentRequests), ms(r.restMs()), ms(r.ejectionMs()), r.ejections(),
                    r.readmissions()));
            if (busy) {
                sb.append(' ').append(r.mostPerRest().isPresent() ? String.valueOf(r.mostPerRest().getAsInt()) : "n/a")
                        .append(" |");
            }
            sb.append(r.withinBounds() ? " yes |\n" : " NO |\n");
        }
        return sb.toString();
    }

    /** The {@code report.md} section of the runs of one scenario. */
    public static String markdown(BadAnswer answer, List<BadAgentReport> runs) {
        StringBuilder sb = new StringBuilder("## Scenario ").append(answer.label()).append("\n\n");
        if (runs.isEmpty()) {
            return sb.append("No run.\n").toString();
        }
        LoadTestConfig c = runs.get(0).config();
        sb.append(String.format(Locale.ROOT, "Agents A1-A3 as in the uniform scenario; %d requests over %d users, %d "
                        + "concurrent, seed %d, after %d warm-up requests (not counted). Just before request n/3+1 is "
                        + "sent %s starts answering every request with %s (`StubAgent.answerWith`), before 2n/3+1 it "
                        + "answers normally again. Balancer: %s.%n%n", c.requests(), c.users(), c.concurrency(),
                c.seed(), c.warmup(), BadAgentReport.BAD_AGENT, answer.description(), balancerSettings()));
        sb.append(table(runs)).append('\n');
        sb.append(String.format(Locale.ROOT, "A request belongs to the phase in which it was sent. Client errors = "
                        + "errors + timeouts; \"of them %d\" = clients that got %s's answer, \"allowed\" = %s of the "
                        + "requests sent during the fault. %s requests = attempts the balancer made on %s (its attempt "
                        + "listener): what %s received, including the answers the client never saw because the "
                        + "request went elsewhere. Rested = from the switch to %s's first busy answer (the balancer "
                        + "rests it for its Retry-After); ejected = from the switch to its first ejection; ejections from "
                        + "the switch on, and re-admissions while %s answered badly: each by the success of a request "
                        + "sent to it before the switch, after which it takes %d more error answers to be ejected "
                        + "again.%s Within bounds: no client error beyond the "
                        + "allowance%s.%n%n", answer.status(), BadAgentReport.BAD_AGENT,
                answer.allowance(), BadAgentReport.BAD_AGENT, BadAgentReport.BAD_AGENT,
                BadAgentReport.BAD_AGENT, BadAgentReport.BAD_AGENT, BadAgentReport.BAD_AGENT,
                BadAgentScenario.balancer(Strategies.ROUND_ROBIN).getOutlierEjection().consecutiveErrorAnswers(),
                answer.rest().isZero() ? "" : " Most requests per " + answer.rest().toSeconds() + " s = the most "
                        + "attempts on " + BadAgentReport.BAD_AGENT + " sent within any " + answer.rest().toSeconds()
                        + " s while it answered " + answer.status() + ".",
                answer.rest().isZero() ? "" : " and at most " + BadAnswer.MAX_PER_REST + " requests to "
                        + BadAgentReport.BAD_AGENT + " per Retry-After"));
        for (BadAgentReport r : runs) {
            sb.append("![requests per agent over time, ").append(r.strategy()).append(", ").append(answer.label())
                    .append("](").append(chartFileName(answer, r.strategy())).append(")\n");
        }
        return sb.append('\n').toString();
    }

    /** Progress lines of a finished run: one per phase. */
    public static String summary(BadAgentReport r) {
        StringBuilder sb = new StringBuilder();
        r.phases().forEach((phase, s) -> sb.append(String.format(Locale.ROOT, "%s (%s) %s: %d requests, %d client "
                        + "errors (%d of them %d); %s received %d; answered %s%n", r.strategy(), r.answer().label(),
                phase.label(), s.requests(), r.clientErrors(phase), r.badAnswersSeen(phase), r.answer().status(),
                BadAgentReport.BAD_AGENT, r.badAgentRequests(phase), RunConsole.answeredPerAgent(s))));
        return sb.toString();
    }

    /** The scenario's failure settings, read from a balancer so they cannot drift. */
    static String balancerSettings() {
        var balancer = BadAgentScenario.balancer(Strategies.ROUND_ROBIN);
        OutlierEjection e = balancer.getOutlierEjection();
        var rules = balancer.getAnswerRules();
        return String.format(Locale.ROOT, "429 and 503 with Retry-After rest the agent (at most %d s, %d s without "
                        + "one) and go to another agent; %s are error answers, %d in a row eject the agent for %d ms, "
                        + "doubling up to %d ms (the failure scenario's)", rules.maxRest().toSeconds(),
                rules.defaultRest().toSeconds(), rules.errorStatuses().stream().sorted().map(String::valueOf)
                        .collect(Collectors.joining(", ")), e.consecutiveErrorAnswers(), e.baseEjectionTime().toMillis(),
                e.maxEjectionTime().toMillis());
    }

    private static String perPhase(ToLongFunction<BadAgentPhase> figure) {
        return Stream.of(BadAgentPhase.values()).map(p -> String.valueOf(figure.applyAsLong(p)))
                .collect(Collectors.joining("/"));
    }

    private static String ms(double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.0f", value);
    }
}
