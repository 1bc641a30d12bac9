package io.github.agentlb.loadgen.report;

import io.github.agentlb.loadgen.stats.AgentSummary;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.UtilizationSummary;
import java.util.List;
import java.util.Locale;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The markdown table comparing strategies, one row per run: strategy | requests | errors |
 * timeouts | one column per agent (requests answered) | spread | CV | max/mean (of the counts) |
 * one column per agent (time-averaged utilization) | util max/mean | stickiness | p95 ms | req/s.
 * Agents missing from a run show 0 requests; utilization not measured in a run shows {@code -}, and
 * the utilization columns are left out when no run measured it (an external balancer). Stateless.
 */
public final class ComparisonTable {

    private ComparisonTable() {
    }

    /** The table for {@code reports}, in the given order; lines end with {@code \n}. */
    public static String render(List<RunReport> reports) {
        SortedSet<String> agents = new TreeSet<>();
        reports.forEach(r -> agents.addAll(r.statistics().agents().keySet()));
        SortedSet<String> measured = new TreeSet<>();
        reports.stream().filter(r -> r.utilization() != null).forEach(r -> measured.addAll(r.utilization().byAgent().keySet()));
        StringBuilder sb = new StringBuilder();
        sb.append("| strategy | requests | errors | timeouts |");
        agents.forEach(a -> sb.append(' ').append(a).append(" |"));
        sb.append(" spread | CV | max/mean |");
        measured.forEach(a -> sb.append(' ').append(a).append(" util |"));
        sb.append(measured.isEmpty() ? "" : " util max/mean |").append(" stickiness | p95 ms | req/s |\n");
        sb.append("|---|---:|---:|---:|");
        agents.forEach(a -> sb.append("---:|"));
        sb.append("---:|---:|---:|");
        measured.forEach(a -> sb.append("---:|"));
        sb.append(measured.isEmpty() ? "" : "---:|").append("---:|---:|---:|\n");
        for (RunReport r : reports) {
            RunStatistics s = r.statistics();
            sb.append("| ").append(r.strategy()).append(" | ").append(s.requests()).append(" | ")
                    .append(s.errors()).append(" | ").append(s.timeouts()).append(" |");
            agents.forEach(a -> {
                AgentSummary agent = s.agents().get(a);
                sb.append(' ').append(agent == null ? 0 : agent.count()).append(" |");
            });
            sb.append(' ').append(s.spread())
                    .append(" | ").append(format("%.3f", s.coefficientOfVariation()))
                    .append(" | ").append(format("%.3f", s.maxOverMean())).append(" |");
            UtilizationSummary u = r.utilization();
            measured.forEach(a -> {
                Double value = u == null ? null : u.byAgent().get(a);
                sb.append(' ').append(value == null ? "-" : format("%.3f", value)).append(" |");
            });
            if (!measured.isEmpty()) {
                sb.append(' ').append(u == null ? "-" : format("%.3f", u.maxOverMean())).append(" |");
            }
            sb.append(' ').append(format("%.3f", s.stickiness()))
                    .append(" | ").append(format("%.1f", s.latency().p95Ms()))
                    .append(" | ").append(format("%.1f", s.throughputRps()))
                    .append(" |\n");
        }
        return sb.toString();
    }

    private static String format(String pattern, double value) {
        return String.format(Locale.ROOT, pattern, value);
    }
}
