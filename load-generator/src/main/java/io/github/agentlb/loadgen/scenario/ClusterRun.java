package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.run.BalancerLog;
import io.github.agentlb.loadgen.run.Changes;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.stats.Phases;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import io.github.agentlb.loadgen.stats.Timeline;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The run the scenarios over stub agents share: start the agents and the demo proxy (or replicas)
 * with the variant's balancer, listened to by a {@link BalancerLog}; warm up; send the measured
 * closed-loop load while making the scenario's {@link Changes}; split the outcomes into the phases
 * the changes open. The scenario turns the {@link Measured} run into its {@link Result} while the
 * agents and proxies still run. Also the pieces of a result the scenarios share.
 */
final class ClusterRun {

    /** The timeline's bucket of the busy, gray, brownout and fleet scenarios. */
    static final Duration TIMELINE_BUCKET = Duration.ofMillis(500);

    private ClusterRun() {
    }

    /**
     * What a run measured, for its scenario to turn into a {@link Result}.
     *
     * @param agents            the agents' ids, in start order
     * @param target            the proxies' base URLs, joined by {@code ", "}
     * @param changes           the changes made, in order
     * @param made              when each was made
     * @param phaseNames        the phases' names, one more than the changes
     * @param measuredFromNanos when the measured load began (after the warm-up)
     */
    record Measured(String scenario, Variant variant, LoadTestConfig load, List<String> agents, String target,
                    LoadRunner.Result run, List<Changes.Change> changes, List<Changes.Made> made,
                    List<String> phaseNames, BalancerLog log, long measuredFromNanos) {

        Phases phases() {
            return new Phases(phaseNames, made.stream().map(Changes.Made::startNanos).toList());
        }

        List<TimedOutcome> outcomes() {
            return run.timedOutcomes();
        }

        /** The first request's send time (the first change's time without any). */
        long startNanos() {
            return outcomes().stream().mapToLong(TimedOutcome::sentAtNanos).min()
                    .orElse(made.isEmpty() ? measuredFromNanos : made.get(0).startNanos());
        }

        /** The last outcome's time (the last change's time without any). */
        long endNanos() {
            return outcomes().stream().mapToLong(TimedOutcome::completedAtNanos).max()
                    .orElse(made.isEmpty() ? measuredFromNanos : made.get(made.size() - 1).startNanos());
        }

        /** {@code nanos} as s from the first request sent. */
        double seconds(long nanos) {
            return (nanos - startNanos()) / 1e9;
        }

        /**
         * The phases with the figures of the requests sent in each (its duration its wall time) and
         * what {@code figures} adds per phase (index, its outcomes).
         */
        List<Result.Phase> phaseResults(BiFunction<Integer, List<TimedOutcome>, Map<String, Object>> figures) {
            Phases phases = phases();
            List<List<TimedOutcome>> split = phases.split(outcomes());
            long[] durations = phases.durations(startNanos(), endNanos());
            return IntStream.range(0, split.size()).mapToObj(i -> new Result.Phase(phases.names().get(i),
                    i == 0 ? "start" : changes.get(i - 1).label(), i == 0 ? 0 : seconds(made.get(i - 1).startNanos()),
                    RunStatistics.of(split.get(i).stream().map(TimedOutcome::outcome).toList(), agents, durations[i]),
                    figures.apply(i, split.get(i)))).toList();
        }

        /** Answers per agent and failures per {@code bucket} from the first request sent. */
        Timeline timeline(Duration bucket) {
            return Timeline.of(outcomes(), startNanos(), bucket, agents);
        }

        Result result(List<Result.Phase> phases, Map<String, Object> figures, List<Result.Check> checks,
                      long failures, Timeline timeline) {
            return new Result(scenario, variant.label(), variant.strategy(), target, true, load, variant.replicas(),
                    run.statistics(), phases, figures, checks, failures, timeline, run.pace(), List.of(), List.of());
        }
    }

    /**
     * Runs {@code variant} of {@code scenario} over {@code agents}, injecting what {@code injects} says:
     * {@code proxy} the proxy's settings beyond strategy, host, port and agents; {@code phases} their names,
     * one more than the {@code changes} made from the running cluster.
     *
     * @throws Exception if the cluster cannot start, a change fails or the load run is stuck
     */
    static Result run(Scenario scenario, Variant variant, Setup setup, List<AgentConfig> agents, String injects,
                      ProxyConfig.Builder proxy, List<String> phases,
                      Function<EmbeddedCluster, List<Changes.Change>> changes,
                      BiFunction<Measured, EmbeddedCluster, Result> measure) throws Exception {
        BalancerLog log = new BalancerLog(System::nanoTime);
        LoadTestConfig load = scenario.workload(setup);
        String label = variant.label() + " " + scenario.name();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(agents, proxy.strategy(variant.strategy()),
                () -> log.attachTo(variant.balancer().get()), variant.replicas())) {
            List<Changes.Change> list = changes.apply(cluster); // before the warm-up: it may take an agent out
            setup.stdout().println(header(scenario.name(), variant, injects, cluster));
            LoadRunner.warmUp(setup.stdout(), label, cluster.baseUrls(), load, Pacing.CLOSED_COUNTED);
            try (Changes made = new Changes(list, System::nanoTime)) {
                long from = System.nanoTime();
                LoadRunner.Result run = new LoadRunner(load, Pacing.CLOSED_COUNTED, setup.stdout()).run(
                        cluster.baseUrls(), label, cluster.agentIds(), made, false);
                List<Changes.Made> done = made.await();
                return measure.apply(new Measured(scenario.name(), variant, load, cluster.agentIds(),
                        String.join(", ", cluster.baseUrls()), run, list, done, phases, log, from), cluster);
            }
        }
    }

    /** Starts {@code agents} behind {@code variant}'s proxies, the demo proxy's settings but its strategy. */
    static EmbeddedCluster start(List<AgentConfig> agents, Variant variant) throws Exception {
        return EmbeddedCluster.start(agents, ProxyConfig.builder().strategy(variant.strategy()), variant.balancer(),
                variant.replicas());
    }

    /** "== ch, failure scenario: agents A1, A2, A3 behind the demo proxy at URL; A1 is killed ...". */
    static String header(String scenario, Variant variant, String inject, EmbeddedCluster cluster) {
        return Section.format("== %s, %s scenario: agents %s behind %s at %s%s", variant.label(), scenario,
                String.join(", ", cluster.agentIds()), variant.replicas() == 1 ? "the demo proxy"
                        : variant.replicas() + " proxy replicas", String.join(", ", cluster.baseUrls()),
                inject.isEmpty() ? "" : "; " + inject);
    }

    /**
     * {@code r} with {@code chart} and its console lines: per phase its requests, client errors, p99 and
     * answers per agent; then {@code more}, less the nulls; then its self-check.
     */
    static Result withPhaseLines(Result r, Chart chart, String... more) {
        Stream<String> phases = r.phases().stream().map(p -> Section.format("%s (%s) %s: %d requests, %d client "
                        + "errors, p99 %.1f ms; %s", r.variant(), r.scenario(), p.name(), p.stats().requests(),
                p.stats().clientErrors(), p.stats().latency().p99Ms(), answered(p.stats(), "=")));
        return r.withOutput(List.of(chart), Stream.concat(phases, Stream.of(more).filter(Objects::nonNull)).toList())
                .withPace(r.pace());
    }

    /** "600 requests over 100 users, 10 concurrent, seed 42, after 100 warm-up requests (not counted)". */
    static String loadText(LoadTestConfig c) {
        return Section.format("%d requests over %d users, %d concurrent, seed %d, after %d warm-up requests (not "
                + "counted)", c.requests(), c.users(), c.concurrency(), c.seed(), c.warmup());
    }

    /** {@code A1=12 A2=10 A3=0} (separator {@code =}): the successful requests of each agent; {@code n/a} when none is known. */
    static String answered(RunStatistics s, String separator) {
        return s.agents().isEmpty() ? "n/a"
                : s.agents().values().stream().map(a -> a.agentId() + separator + a.count()).collect(Collectors.joining(" "));
    }

    /**
     * The timeline chart of a run, {@code timeline_<scenario>_<variant>.png}, titled "Requests per agent per
     * second - <variant>, {@code what}": per agent its answers per second, and the failed requests when any
     * failed, each bucket at its middle, with a labelled vertical line at each marker (each change when
     * {@code markers} is null).
     */
    static Chart timelineChart(Result r, String what, List<Chart.Marker> markers) {
        Timeline t = r.timeline();
        double[] x = Arrays.stream(t.bucketStartsSeconds()).map(s -> s + t.bucketSeconds() / 2).toArray();
        Map<String, double[]> series = new LinkedHashMap<>();
        t.answeredPerAgent().forEach((agent, counts) -> series.put(agent, Timeline.perSecond(counts, t.bucketSeconds())));
        if (Arrays.stream(t.failed()).anyMatch(n -> n > 0)) {
            series.put("failed", Timeline.perSecond(t.failed(), t.bucketSeconds()));
        }
        return new Chart.Lines("timeline_" + r.scenario() + "_" + r.variant() + ".png", "requests per agent over time, "
                + r.variant() + ", " + r.scenario(), 900, List.of(new Chart.Panel("Requests per agent per second - "
                + r.variant() + ", " + what, "Time since the first request (s), by answer; each bucket drawn at its "
                + "middle", "Requests per second", 500, x, series, markers != null ? markers : r.phases().stream()
                .skip(1).map(p -> new Chart.Marker(p.fromS(), p.openedBy())).toList())), null);
    }

    /** {@code nanos} in ms; NaN when absent (not observed). */
    static double millis(OptionalLong nanos) {
        return nanos.isPresent() ? nanos.getAsLong() / 1e6 : Double.NaN;
    }

    static List<Chart> charts(List<Result> results) {
        return results.stream().flatMap(r -> r.charts().stream()).toList();
    }
}
