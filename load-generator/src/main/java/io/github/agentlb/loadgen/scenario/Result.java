package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.Timeline;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What one run of a scenario measured and checked, the one value the reports are written from. Figures
 * are in the units their names say ({@code _ms}, {@code _s}, shares as fractions 0..1); a figure not
 * observed is NaN (JSON {@code null}, "n/a" in tables). Immutable.
 *
 * @param scenario the scenario's name, e.g. {@code failure}
 * @param variant  the variant's label, e.g. {@code ch-bounded}
 * @param strategy the strategy it ran (for a {@code --url} run, the label given)
 * @param target   the balancer's base URL, or the replicas' joined by {@code ", "}
 * @param embedded whether the agents and balancer ran in this JVM
 * @param load     the measured load's shape
 * @param replicas balancer replicas the requests alternated across
 * @param totals   every request's figures: per-agent counts and latencies, errors, spread, stickiness
 * @param phases   the run's phases, each with the figures of the requests sent in it; empty for a run of one phase
 * @param figures  what this scenario measures beyond {@code totals}, by name, in report order
 * @param checks   what the scenario checks on the run, each passed or not
 * @param failures requests that count against the exit code (goal 0): client errors less those allowed
 * @param timeline answers per agent and failures per time bucket, or {@code null}
 * @param pace     how the run was paced and the generator's self-check, or {@code null}
 * @param charts   the charts of this run alone
 * @param lines    what the console shows when the run ends
 */
public record Result(String scenario, String variant, String strategy, String target, boolean embedded,
                     LoadTestConfig load, int replicas, RunStatistics totals, List<Phase> phases,
                     Map<String, Object> figures, List<Check> checks, long failures, Timeline timeline,
                     PaceReport pace, List<Chart> charts, List<String> lines) {

    /**
     * One phase of a run: the requests sent between two changes.
     *
     * @param name     e.g. {@code down}
     * @param openedBy the change that opened it, e.g. {@code kill A1}; {@code start} for the first
     * @param fromS    when it began, s from the first request sent (0 for the first)
     * @param stats    the figures of its requests, its duration the phase's wall time
     * @param figures  what the scenario measures per phase beyond {@code stats}
     */
    public record Phase(String name, String openedBy, double fromS, RunStatistics stats, Map<String, Object> figures) {
        public Phase {
            figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        }
    }

    /** A check of a run: its name (e.g. {@code targets}), whether it holds, the figures and goals in one line. */
    public record Check(String name, boolean passed, String detail) {

        /** A check whose detail, {@code format} with {@code args}, ends {@code : ok} when it holds, else {@code : MISSED}. */
        public static Check of(String name, boolean passed, String format, Object... args) {
            return new Check(name, passed, Section.format(format, args) + (passed ? ": ok" : ": MISSED"));
        }
    }

    public Result {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(variant, "variant");
        Objects.requireNonNull(totals, "totals");
        phases = List.copyOf(phases);
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        checks = List.copyOf(checks);
        charts = List.copyOf(charts);
        lines = List.copyOf(lines);
    }

    /** {@code report-<scenario>-<variant>.json}, a space in the variant written as {@code -}. */
    public String fileName() {
        return "report-" + scenario + "-" + variant.replace(' ', '-') + ".json";
    }

    /** Whether every check passed (true without checks). */
    public boolean passed() {
        return checks.stream().allMatch(Check::passed);
    }

    public long clientErrors() {
        return totals.clientErrors();
    }

    /** Every agent of {@code results}' totals, sorted. */
    static List<String> agents(List<Result> results) {
        return results.stream().flatMap(r -> r.totals().agents().keySet().stream()).distinct().sorted().toList();
    }

    public Check check(String name) {
        return checks.stream().filter(k -> k.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no check " + name + " in " + checks));
    }

    /** The result of the variant labelled {@code variant} among {@code results}; {@code null} when none is. */
    public static Result find(List<Result> results, String variant) {
        return results.stream().filter(r -> r.variant().equals(variant)).findFirst().orElse(null);
    }

    /** The number {@code name} of {@link #figures()}; NaN when absent. */
    public double number(String name) {
        return figures.get(name) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    /** The number {@code name} of {@link #figures()} with {@code format}; {@code n/a} when NaN or absent. */
    public String num(String format, String name) {
        return Section.num(format, number(name));
    }

    public static Map<String, Object> map(Object... nameValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            map.put((String) nameValues[i], nameValues[i + 1]);
        }
        return map;
    }

    /** The figure {@code name} of {@code figures} (a result's or a phase's), as the type its scenario put there. */
    @SuppressWarnings("unchecked")
    public static <T> T figure(Map<String, Object> figures, String name) {
        return (T) figures.get(name);
    }

    /** A console line of this run: {@code <variant> (<scenario>): } and {@code format} with {@code args}. */
    public String line(String format, Object... args) {
        return variant + " (" + scenario + "): " + Section.format(format, args);
    }

    /** This result with no chart and one console line, {@link #line}, then its self-check's when it has a pace. */
    public Result withLine(String format, Object... args) {
        return withOutput(List.of(), List.of(line(format, args))).withPace(pace);
    }

    public Result withOutput(List<Chart> charts, List<String> lines) {
        return new Result(scenario, variant, strategy, target, embedded, load, replicas, totals, phases, figures, checks,
                failures, timeline, pace, charts, lines);
    }

    /**
     * This result with {@code pace}, its self-check's lines after the console's ({@link PaceReport#selfCheckLines});
     * this result itself when {@code pace} is null.
     */
    public Result withPace(PaceReport pace) {
        return pace == null ? this : new Result(scenario, variant, strategy, target, embedded, load, replicas, totals,
                phases, figures, checks, failures, timeline, pace, charts, Stream.concat(lines.stream(),
                pace.selfCheckLines(totals.successes()).stream().map(l -> line("%s", l))).toList());
    }

    /** This result with {@code more} checks appended (a check over several runs, made once all ended). */
    public Result withChecks(List<Check> more) {
        return new Result(scenario, variant, strategy, target, embedded, load, replicas, totals, phases, figures,
                Stream.concat(checks.stream(), more.stream()).toList(), failures, timeline, pace, charts, lines);
    }
}
