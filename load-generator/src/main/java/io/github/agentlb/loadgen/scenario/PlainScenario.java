package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.core.pid.PidWeights;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.loadgen.config.AgentSet;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.run.PeriodicSampler;
import io.github.agentlb.loadgen.stats.IntervalSeries;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.PidTrace;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.Stickiness.HotKeyStatistics;
import io.github.agentlb.loadgen.stats.UtilizationSeries;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The {@code uniform} and {@code heterogeneous} scenarios ({@link AgentSet}): the seeded workload
 * through each strategy over three agents, nothing injected; measured: the spread over the agents,
 * their own utilization (sampled every {@link EmbeddedCluster#UTILIZATION_PERIOD}), latency and
 * throughput, the {@code avn} balancer's final state and the {@code pid} balancer's weights over time.
 * Paced as the command line says (closed loop, {@code --rate}, {@code --duration}); also against a
 * running balancer ({@code --url}).
 *
 * <p>Over 300 lines: two scenarios in three pacings and two targets share this one file, with the
 * pid and avn figures and charts only they report.
 */
public record PlainScenario(AgentSet agentSet) implements Scenario {

    /** How often the pid balancer's weights are sampled: twice per control period, so no step is missed. */
    static final Duration PID_SAMPLE_PERIOD = PidWeightsConfig.DEFAULT_CONTROL_PERIOD.dividedBy(2);
    /** The least warm-up of an open-loop run against a running balancer, s at its rate: its JIT's time. */
    static final int URL_OPEN_LOOP_WARMUP_SECONDS = 30;
    /** The legend entry of the agents' mean utilization in {@link #pidChart}. */
    public static final String SETPOINT_SERIES = "mean (setpoint)";

    @Override
    public String name() {
        return agentSet.label();
    }

    List<AgentConfig> agents(Setup setup) {
        return agentSet.agents(setup.template(), setup.seed());
    }

    @Override
    public List<Variant> variants(Setup setup) {
        int replicas = setup.pacing().isDefault() ? setup.replicas() : 1;
        return setup.strategies().stream().map(s -> Variant.of(s, s, b -> { }, replicas)).toList();
    }

    @Override
    public Result run(Variant variant, Setup setup) throws Exception {
        LoadTestConfig load = workload(setup);
        Pacing pacing = setup.pacing();
        try (EmbeddedCluster cluster = ClusterRun.start(agents(setup), variant)) {
            AgentConfig t = setup.template();
            setup.stdout().println(Section.format("== %s, %s scenario: agents %s (%d-%d ms; %s) behind the demo proxy "
                            + "at %s%s", variant.label(), name(), String.join(", ", cluster.agentIds()), t.delayMinMs(),
                    t.delayMaxMs(), agentSet.description(), String.join(", ", cluster.baseUrls()),
                    pacing.isDefault() ? "" : "; " + pacing.describe(load)));
            PidTrace trace = cluster.balancer() instanceof PidWeightedLB ? new PidTrace(name()) : null;
            long startNanos = System.nanoTime();
            LoadRunner.Result run;
            Map<String, UtilizationSeries> utilization = new TreeMap<>();
            try (PeriodicSampler pid = trace == null ? null : PeriodicSampler.start("pid", PID_SAMPLE_PERIOD, () -> {
                PidWeights w = ((PidWeightedLB) cluster.balancer()).pidWeights();
                trace.record((System.nanoTime() - startNanos) / 1e9, cluster.byAgentId(w.weights()),
                        cluster.byAgentId(w.utilizations()));
            })) {
                LoadRunner.warmUp(setup.stdout(), variant.label(), cluster.baseUrls(), load, pacing);
                if (trace != null) {
                    trace.markWarmupEnd((System.nanoTime() - startNanos) / 1e9);
                }
                try (PeriodicSampler sampler = cluster.sampleUtilization(utilization)) {
                    run = new LoadRunner(load, pacing, setup.stdout()).run(cluster.baseUrls(), variant.label(),
                            cluster.agentIds(), started -> { }, true);
                }
            }
            UtilizationSeries.Summary u = UtilizationSeries.summary(utilization);
            Map<String, Object> figures = Result.map("utilization", u.byAgent(), "utilization_max_over_mean",
                    u.maxOverMean(), "utilization_samples", u.samples());
            figures.putAll(HotKeyScenario.balancerFigures(cluster));
            // The trace is complete once its sampler closed (a last sample at the run's end).
            List<Chart> charts = trace == null ? List.of() : List.of(pidChart(trace, chartName("pid_convergence", "")));
            return result(variant, String.join(", ", cluster.baseUrls()), true, load, run, figures, charts, List.of());
        }
    }

    @Override
    public Result runAgainst(String baseUrl, String label, Setup setup) throws Exception {
        Pacing pacing = setup.pacing();
        LoadTestConfig load = urlLoad(workload(setup), pacing);
        setup.stdout().printf("== %s: balancer at %s%s%n", label, baseUrl, pacing.isDefault() ? ""
                : "; " + pacing.describe(load));
        LoadRunner.warmUp(setup.stdout(), label, List.of(baseUrl), load, pacing); // urlLoad lengthened it
        LoadRunner.Result run = new LoadRunner(load, pacing, setup.stdout()).run(List.of(baseUrl), label, List.of(),
                started -> { }, false);
        RunStatistics s = run.statistics();
        Map<String, Object> figures = s.successes() == 0 ? Map.of() : urlFigures(load, run.outcomes());
        List<String> lines = s.successes() == 0 ? List.of(nothingSucceeded(s, baseUrl)) : figures.isEmpty() ? List.of()
                : List.of(Section.format("%s: max/mean %.3f, other users' stickiness %.3f, hot user %d on %s agent(s)",
                        label, s.maxOverMean(), (double) figures.get("others_stickiness"), Workload.HOT_USER,
                        HotKeyScenario.hotUserOn(Result.figure(figures, "hot_user_agents"))));
        return result(new Variant(label, label, () -> null, 1), baseUrl, false, load, run, figures, List.of(), lines);
    }

    /** A {@code --url} run's figures: its hot key's ({@link HotKeyScenario}'s names) when it has a hot share. */
    static Map<String, Object> urlFigures(LoadTestConfig load, List<RequestOutcome> outcomes) {
        return load.hotShare() == 0 || outcomes.isEmpty() ? Map.of()
                : HotKeyScenario.hotKeyFigures(load, HotKeyStatistics.of(outcomes, 1, o -> 0));
    }

    @Override
    public boolean againstUrl() {
        return true;
    }

    /** {@code load} of a {@code --url} run, its warm-up lengthened as {@link #warmupOf} does for an open loop. */
    static LoadTestConfig urlLoad(LoadTestConfig load, Pacing pacing) {
        int warm = load.warmupConfig().map(w -> warmupOf(w, pacing.ratePerSecond(), URL_OPEN_LOOP_WARMUP_SECONDS)
                .requests()).orElse(0);
        return warm == load.warmup() ? load : new LoadTestConfig(load.requests(), load.users(), load.concurrency(),
                load.seed(), load.timeoutMs(), load.progressEvery(), warm, load.hotShare());
    }

    /** {@code warm}, lengthened to at least {@code leastSeconds} at {@code ratePerSecond} (0: a closed loop, kept as it is). */
    static LoadTestConfig warmupOf(LoadTestConfig warm, double ratePerSecond, int leastSeconds) {
        if (ratePerSecond <= 0 || leastSeconds <= 0) {
            return warm;
        }
        int requests = (int) Math.min(Integer.MAX_VALUE, Math.max(warm.requests(),
                Math.ceil(ratePerSecond * leastSeconds)));
        return requests == warm.requests() ? warm : new LoadTestConfig(requests, warm.users(), warm.concurrency(),
                warm.seed(), warm.timeoutMs(), requests, 0, warm.hotShare());
    }

    /**
     * What to tell the user when no request of a {@code --url} run succeeded: that nothing
     * answered, or which HTTP answers came instead ("Every request failed: 2000 x HTTP 404; ...").
     */
    public static String nothingSucceeded(RunStatistics stats, String target) {
        Map<Integer, Long> answered = new TreeMap<>(stats.errorStatuses());
        Long unanswered = answered.remove(0);
        if (answered.isEmpty() && unanswered == null && stats.timeouts() > 0) {
            return "No request was answered in time: " + stats.timeouts() + " timed out; is the balancer at " + target
                    + " overloaded, or --timeout-ms too short?";
        }
        if (answered.isEmpty()) {
            return "No request was answered: is a balancer running at " + target + "?";
        }
        String parts = Stream.concat(answered.entrySet().stream().map(e -> e.getValue() + " x HTTP " + e.getKey()
                        + (e.getKey() >= 200 && e.getKey() < 300 ? " without an agent's JSON" : "")),
                Stream.of(unanswered == null ? null : unanswered + " without an answer",
                        stats.timeouts() == 0 ? null : stats.timeouts() + " timed out"))
                .filter(Objects::nonNull).collect(Collectors.joining(", "));
        return "Every request failed: " + parts + "; is " + target
                + " a balancer of this project (GET /process/{req_id}?user_id=N answered by an agent's JSON)?";
    }

    /** The run's result: {@code charts}, its distribution and soak charts; its console lines after {@code before}. */
    Result result(Variant variant, String target, boolean embedded, LoadTestConfig load, LoadRunner.Result run,
                  Map<String, Object> figures, List<Chart> charts, List<String> before) {
        Result r = new Result(name(), variant.label(), variant.strategy(), target, embedded, load, variant.replicas(),
                run.statistics(), List.of(), figures, List.of(), run.statistics().clientErrors(), null, run.pace(),
                List.of(), List.of());
        List<Chart> all = new ArrayList<>(charts);
        all.add(distributionChart(r));
        if (run.pace().verdict() != null) {
            all.add(soakChart(r));
        }
        return r.withOutput(all, Stream.concat(before.stream(), lines(r).stream()).toList());
    }

    /** What the console shows of a run: its figures, utilization, balancer state, pacing, self-check and verdict. */
    static List<String> lines(Result r) {
        RunStatistics s = r.totals();
        List<String> lines = new ArrayList<>(List.of(r.line("%d requests, %d errors, %d timeouts; %s; spread %d, CV %.3f, "
                        + "stickiness %.3f; p95 %.1f ms; %.1f req/s", s.requests(), s.errors(), s.timeouts(),
                ClusterRun.answered(s, "="), s.spread(), s.coefficientOfVariation(), s.stickiness(), s.latency().p95Ms(),
                s.throughputRps())));
        if (r.figures().get("utilization") instanceof Map<?, ?> u) {
            lines.add(r.line("utilization %s; max/mean %.3f", u.entrySet().stream().map(e -> Section.format("%s=%.3f",
                    e.getKey(), (Double) e.getValue())).collect(Collectors.joining(" ")), r.number("utilization_max_over_mean")));
        }
        if (r.figures().containsKey("virtual_nodes")) {
            lines.add(r.line("virtual nodes %s, S %.3f, %.0f reallocations", r.figures().get("virtual_nodes"),
                    r.number("imbalance_index"), r.number("reallocations")));
        }
        PaceReport pace = r.pace();
        if (!pace.pacing().isDefault()) {
            lines.add(r.line("%s; p50 %.1f ms, p99 %.1f ms%s", pace.pacing().describe(r.load()), s.latency().p50Ms(),
                    s.latency().p99Ms(), pace.pacing().openLoop() ? " (from intended send times)" : ""));
        }
        pace.selfCheckLines(s.successes()).forEach(line -> lines.add(r.line("%s", line)));
        if (s.successes() > 0 && pace.selfCheck().fellBehindSchedule()) {
            lines.add(r.line("%s", behindHint(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    pace.selfCheck().cores())));
        }
        if (pace.verdict() != null) {
            lines.add(r.line("%s", pace.verdict().line()));
        }
        return lines;
    }

    /** What to do when the open loop fell behind, with the load average (whether others took the CPU). */
    public static String behindHint(double loadAverage, int cores) {
        String load = loadAverage < 0 ? "" : Section.format("the machine's load average is %.1f on %d "
                + "cores; ", loadAverage, cores);
        return "To keep pace: " + load + "run when the machine is quieter, run the generator on another machine, "
                + "or lower --rate; a --url run already restarts its JVM with -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "
                + "unless JVM options were given.";
    }

    /** {@code <kind>_<variant>.png} in the uniform scenario, {@code <kind>_<scenario>_<variant>.png} in another. */
    private String chartName(String kind, String variant) {
        return kind + (agentSet == AgentSet.UNIFORM ? "" : "_" + name()) + (variant.isEmpty() ? "" : "_" + variant)
                + ".png";
    }

    /** The requests per agent, one bar each labelled with its count, and the mean per agent as a line. */
    private Chart distributionChart(Result r) {
        RunStatistics s = r.totals();
        List<String> agents = new ArrayList<>(s.agents().keySet());
        List<Double> counts = s.agents().values().stream().map(a -> (double) a.count()).toList();
        if (agents.isEmpty()) { // XChart needs at least one category; an empty run still gets a readable picture
            agents = List.of("(no answers)");
            counts = List.of(0.0);
        }
        return new Chart.Bars(chartName("distribution", r.variant()), "requests per agent, " + r.variant() + ", "
                + name(), Section.format("Requests per agent - %s, %s (%d requests, spread %d, CV %.3f)",
                r.variant(), name(), s.requests(), s.spread(), s.coefficientOfVariation()), "Agent", "Requests",
                new int[] {800, 500}, agents, Map.of("requests", counts), false, List.of(new Chart.Level(s.meanPerAgent(),
                Section.format("mean = %.1f", s.meanPerAgent()))));
    }

    /**
     * A time-bound run's intervals, one panel under the other: throughput and failures per second;
     * p50 and p99 latency; and, when the JVM was sampled (embedded runs), heap after GC and live threads.
     */
    private Chart soakChart(Result r) {
        List<IntervalSeries.Interval> all = r.pace().intervals();
        List<IntervalSeries.Interval> sampled = all.stream().filter(i -> !Double.isNaN(i.heapAfterGcMb())).toList();
        List<Chart.Panel> panels = new ArrayList<>();
        panels.add(panel(r.variant() + " (" + name() + "): throughput and failures", "requests per second", all,
                Map.of("answered req/s", IntervalSeries.Interval::throughputRps, "errors + timeouts per s",
                        i -> i.lengthSeconds() <= 0 ? 0 : i.failures() / i.lengthSeconds())));
        panels.add(panel("latency of answered requests", "ms", all, Map.of("p50", IntervalSeries.Interval::p50Ms,
                "p99", IntervalSeries.Interval::p99Ms)));
        if (!sampled.isEmpty()) {
            panels.add(panel("JVM of the proxy (agents and generator included)", "MB / threads", sampled,
                    Map.of("heap after GC, MB", IntervalSeries.Interval::heapAfterGcMb,
                            "live threads", i -> i.liveThreads())));
        }
        return new Chart.Lines(chartName("soak", r.variant()), "soak " + r.variant(), 900, panels, null);
    }

    private static Chart.Panel panel(String title, String yTitle, List<IntervalSeries.Interval> intervals,
                                     Map<String, ToDoubleFunction<IntervalSeries.Interval>> series) {
        Map<String, double[]> ys = new TreeMap<>();
        series.forEach((name, f) -> ys.put(name, intervals.stream().mapToDouble(f).toArray()));
        return new Chart.Panel(title, "seconds since start", yTitle, 300,
                intervals.stream().mapToDouble(i -> i.startSeconds() + i.lengthSeconds() / 2).toArray(), ys, List.of());
    }

    /**
     * A {@link PidTrace} as two panels over the same time axis (s): above, each agent's weight;
     * below, the utilization its controller used at the last control step, with the fleet's mean of
     * those (the controllers' setpoint); a vertical line where the warm-up ended; the samples as CSV.
     */
    static Chart pidChart(PidTrace trace, String file) {
        double[] x = trace.seconds().stream().mapToDouble(Double::doubleValue).toArray();
        Map<String, double[]> weights = new LinkedHashMap<>();
        Map<String, double[]> utilizations = new LinkedHashMap<>();
        Map<String, List<Double>> u = trace.utilizations();
        trace.weights().forEach((agent, w) -> {
            weights.put(agent, w.stream().mapToDouble(Double::doubleValue).toArray());
            if (u.containsKey(agent) && u.get(agent).stream().anyMatch(Double::isFinite)) {
                utilizations.put(agent, u.get(agent).stream().mapToDouble(Double::doubleValue).toArray());
            }
        });
        double[] setpoint = setpoint(u.values(), x.length);
        if (Arrays.stream(setpoint).anyMatch(Double::isFinite)) {
            utilizations.put(SETPOINT_SERIES, setpoint);
        }
        if (x.length == 0) { // XChart needs at least one point; an empty trace still gets a readable picture
            x = new double[] {0};
            weights.put("(no samples)", new double[] {0});
            utilizations.put("(no samples)", new double[] {0});
        }
        double warm = trace.warmupEndSeconds();
        List<Chart.Marker> markers = Double.isNaN(warm) ? List.of() : List.of(new Chart.Marker(warm, null));
        return new Chart.Lines(file, "PID weights and utilization over time", 1000, List.of(
                new Chart.Panel("PID weight per agent - " + trace.scenario() + " scenario" + (Double.isNaN(warm) ? ""
                        : Section.format(", warm-up until %.1f s", warm)), "Time (s)",
                        "Weight (relative, mean 1.0)", 420, x, weights, markers),
                new Chart.Panel("Utilization per agent at the last control step", "Time (s)",
                        "(in service + queued) / capacity", 420, x, utilizations, markers)), trace.toCsv());
    }

    /** The mean of the agents' finite utilizations at each sample; NaN where none is finite. */
    static double[] setpoint(Collection<List<Double>> utilizations, int samples) {
        return IntStream.range(0, samples).mapToDouble(i -> utilizations.stream().mapToDouble(u -> u.get(i))
                .filter(Double::isFinite).average().orElse(Double.NaN)).toArray();
    }

    @Override
    public Section section(List<Result> results) {
        Result first = results.get(0);
        LoadTestConfig c = first.load();
        List<Object> blocks = new ArrayList<>();
        Pacing pacing = first.pace().pacing();
        String sent = !pacing.timed() ? c.requests() + " requests" : "Requests sent for " + Pacing.formatDuration(
                pacing.duration()) + (pacing.openLoop() ? " at " + Pacing.number(pacing.ratePerSecond()) + " per second" : "");
        blocks.add(Section.format("%s over %d users%s, %d concurrent, seed %d, timeout %d ms, "
                        + "after %d warm-up requests (not counted); %s.", sent, c.users(), c.hotShare() == 0 ? ""
                        : Section.format(" and hot user %d sending a share %.2f of them", Workload.HOT_USER,
                        c.hotShare()), c.concurrency(), c.seed(), c.timeoutMs(), c.warmup(),
                !first.embedded() ? "balancer at " + first.target() : first.replicas() == 1
                        ? "agents and balancer embedded, started per run" : "agents and " + first.replicas()
                        + " balancer replicas embedded, started per run, requests alternating across the replicas"));
        if (first.embedded()) {
            blocks.add("Agents: " + agentSet.description() + ".");
        }
        blocks.add(comparisonTable(results));
        for (Result r : results) {
            if (r.figures().get("virtual_nodes") instanceof Map<?, ?> nodes) {
                blocks.add(Section.format("`%s` virtual nodes at the end: %s (of %d); S = %.3f; %.0f "
                                + "reallocations (warm-up included).", r.variant(), Section.entries((Map<String, ?>) nodes),
                        nodes.values().stream().mapToInt(n -> (Integer) n).sum(), r.number("imbalance_index"),
                        r.number("reallocations")));
            }
        }
        blocks.add("Counts are successful requests per agent; spread = max - min; CV = standard deviation / mean of the "
                + "counts; max/mean of the counts. " + (results.stream().anyMatch(r -> r.figures().containsKey("utilization"))
                ? "Utilization (`util`) is each agent's own (in service + queued) / capacity, sampled every "
                + EmbeddedCluster.UTILIZATION_PERIOD.toMillis() + " ms during the measured run and averaged over time (above 1 "
                + "= requests queued); util max/mean is the largest over the mean, the figure Robinhood reports. " : "")
                + "Stickiness = share of answered users whose answers all came from one agent; p95 over successful "
                + "requests, client-side; req/s = successful answers per second from the first moment every worker had "
                + "a request in flight to the last send (neither the workers' start nor the drain of the last answers).");
        return new Section(name(), blocks, Stream.of("pid_", "distribution_").flatMap(kind -> results.stream()
                .flatMap(r -> r.charts().stream()).filter(ch -> ch.file().startsWith(kind))).toList());
    }

    /** One row per run; an agent missing from a run: 0 requests, utilization {@code -}; none measured: no util columns. */
    static Section.Table comparisonTable(List<Result> results) {
        List<String> agents = Result.agents(results);
        List<String> measured = results.stream().flatMap(r -> utilization(r).keySet().stream()).distinct().sorted()
                .toList();
        Section.TableBuilder table = Section.table().left("strategy").right("requests", "errors", "timeouts")
                .right(agents.toArray(String[]::new)).right("spread", "CV", "max/mean")
                .right(measured.stream().map(a -> a + " util").toArray(String[]::new));
        if (!measured.isEmpty()) {
            table.right("util max/mean");
        }
        table.right("stickiness", "p95 ms", "req/s");
        for (Result r : results) {
            RunStatistics s = r.totals();
            Map<String, ?> u = utilization(r);
            table.row(List.of(r.variant(), s.requests(), s.errors(), s.timeouts(),
                    agents.stream().map(s::answered).toList(), s.spread(), s.coefficientOfVariation(), s.maxOverMean(),
                    measured.stream().map(a -> u.containsKey(a) ? u.get(a) : "-").toList(),
                    measured.isEmpty() ? List.of() : List.of(u.isEmpty() ? "-" : r.number("utilization_max_over_mean")),
                    s.stickiness(), Section.num("%.1f", s.latency().p95Ms()), Section.num("%.1f", s.throughputRps())));
        }
        return table.build();
    }

    /** The agents' utilization of a run by agent (their mean over time); empty when not measured. */
    private static Map<String, ?> utilization(Result r) {
        return Objects.requireNonNullElse(Result.figure(r.figures(), "utilization"), Map.of());
    }
}
