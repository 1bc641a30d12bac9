package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.KeySettings;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.AgentSet;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.Parallel;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.Stickiness.HotKeyStatistics;
import io.github.agentlb.zookeeper.ZooKeeperSharedAllocation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;

/**
 * The {@code hotkey} scenario: the uniform agents, user {@value Workload#HOT_USER} sending a share of
 * all requests, through each keyed strategy ({@code ch}, {@code avn}) plain and bounded; with
 * {@code --replicas N > 1} over N proxies each, and {@code avn} also as one instance ({@code avn-one})
 * and as replicas sharing one allocation through an in-process ZooKeeper ({@code avn-shared}). The
 * variants run at once, each over its own agents (the figures are counts, not latencies). Checks: the
 * targets (max/mean, the others' stickiness, the hot user on one agent), the shared allocation.
 */
public final class HotKeyScenario implements Scenario {

    /** The hot user's share unless {@code --hot-share} says otherwise; the bounded variants' c (HAProxy's default). */
    public static final double DEFAULT_HOT_SHARE = 0.2, BALANCE_FACTOR = 1.25;
    /** Targets: max/mean of the requests per agent at most, the other users' stickiness at least. */
    public static final double TARGET_MAX_OVER_MEAN = 1.10, TARGET_STICKINESS = 0.95;
    /** The shared allocation's targets: max/mean at most this above one instance's, stickiness at most this below. */
    public static final double TARGET_SHARED_MAX_OVER_MEAN_DELTA = 0.02, TARGET_SHARED_STICKINESS_DELTA = 0.01;

    private volatile String zookeeper;

    @Override
    public String name() {
        return "hotkey";
    }

    @Override
    public LoadTestConfig workload(Setup setup) {
        return setup.hotLoad();
    }

    @Override
    public List<Variant> variants(Setup setup) {
        List<Variant> variants = new ArrayList<>(setup.strategies().stream()
                .filter(s -> s.equals(Strategies.CONSISTENT_HASH) || s.equals(Strategies.ADAPTIVE_VIRTUAL_NODES))
                .flatMap(s -> Stream.of(Variant.of(s, s, b -> { }, setup.replicas()), Variant.of(s + "-bounded", s,
                        b -> ((KeySettings) b).setBalanceFactor(BALANCE_FACTOR), setup.replicas()))).toList());
        if (setup.replicas() > 1 && setup.strategies().contains(Strategies.ADAPTIVE_VIRTUAL_NODES)) {
            String avn = Strategies.ADAPTIVE_VIRTUAL_NODES;
            variants.add(Variant.of(avn + "-one", avn, b -> { }, 1));
            variants.add(new Variant(avn + "-shared", avn, () -> new AdaptiveVirtualNodeLB(
                    ZooKeeperSharedAllocation.of(zookeeper, name() + "-" + avn + "-shared")),
                    setup.replicas()));
        }
        return variants;
    }

    @Override
    public List<Result> runAll(List<Variant> variants, Setup setup) throws Exception {
        boolean shared = variants.stream().anyMatch(v -> v.label().endsWith("-shared"));
        try (TestingServer zk = shared ? new TestingServer(true) : null) {
            if (zk != null) {
                zookeeper = zk.getConnectString();
                setup.stdout().println("== in-process ZooKeeper for the shared allocation at " + zookeeper);
            }
            List<Result> results = new ArrayList<>(Parallel.each(variants, true, "loadgen-variant",
                    v -> setup.print(run(v, setup))));
            sharedCheck(results).ifPresent(check -> {
                Result r = Result.find(results, "avn-shared");
                results.set(results.indexOf(r), r.withChecks(List.of(check)));
                setup.stdout().println(check.detail());
            });
            return results;
        }
    }

    @Override
    public Result run(Variant variant, Setup setup) throws Exception {
        LoadTestConfig c = workload(setup);
        String injects = Section.format("user %d sends %d of %d requests", Workload.HOT_USER,
                Workload.hotRequests(c.requests(), c.hotShare()), c.requests());
        return ClusterRun.run(this, variant, setup, AgentSet.UNIFORM.agents(setup.template(), setup.seed()), injects,
                ProxyConfig.builder(), List.of("run"), cluster -> List.of(),
                (m, cluster) -> result(m, balancerFigures(cluster)));
    }

    /** The adaptive virtual node balancer's state (of the first replica), by figure name; empty for another strategy. */
    static Map<String, Object> balancerFigures(EmbeddedCluster cluster) {
        return cluster.balancer() instanceof AdaptiveVirtualNodeLB lb ? Result.map(
                "virtual_nodes", cluster.byAgentId(lb.getVirtualNodesByAgent()),
                "imbalance_index", lb.getImbalanceIndex(), "reallocations", lb.getReallocations()) : Map.of();
    }

    /** The result of a run, from its outcomes (no I/O, no clock) and the balancer's final state. */
    Result result(ClusterRun.Measured m, Map<String, Object> balancer) {
        RunStatistics s = m.run().statistics();
        LoadTestConfig c = m.load();
        int replicas = m.variant().replicas(); // request i went to replica i mod n, its id r<i + 1>
        HotKeyStatistics hot = HotKeyStatistics.of(m.run().outcomes(), replicas,
                o -> Workload.replicaOf(Long.parseLong(o.requestId().substring(1)) - 1, replicas));
        double factor = m.variant().label().endsWith("-bounded") ? BALANCE_FACTOR : 0;
        boolean met = s.maxOverMean() <= TARGET_MAX_OVER_MEAN && hot.othersStickiness() >= TARGET_STICKINESS
                && hot.hotUserAgentCount() == 1;
        Map<String, Object> figures = Result.map("balance_factor", factor,
                "shared", m.variant().label().endsWith("-shared"));
        figures.putAll(hotKeyFigures(c, hot));
        figures.put("others_stickiness_per_replica", hot.othersStickinessPerReplica());
        figures.putAll(balancer);
        Result.Check targets = new Result.Check("targets", met, Section.format("max/mean %.3f (goal <= %.2f), "
                        + "stickiness of users 1..%d %.3f (goal >= %.2f), hot user on %d agent(s) (goal 1)",
                s.maxOverMean(), TARGET_MAX_OVER_MEAN, c.users(), hot.othersStickiness(), TARGET_STICKINESS,
                hot.hotUserAgentCount()));
        return m.result(List.of(), figures, List.of(targets), s.clientErrors(), null).withLine("%d requests, %d errors, "
                        + "%d timeouts; %s; max/mean %.3f; stickiness of users 1..%d %.3f%s; hot user on %s; targets %s",
                s.requests(), s.errors(), s.timeouts(), ClusterRun.answered(s, "="), s.maxOverMean(), c.users(),
                hot.othersStickiness(), m.variant().replicas() > 1 ? Section.format(" (%.3f within each replica)",
                        hot.othersStickinessPerReplica()) : "", hotUserOn(hot.hotUserAgents()), met ? "met" : "missed");
    }

    /** What a run of {@code c} measured of its hot user ({@link Workload#HOT_USER}) and the other users, by name. */
    static Map<String, Object> hotKeyFigures(LoadTestConfig c, HotKeyStatistics hot) {
        return Result.map("hot_share", c.hotShare(), "hot_user", Workload.HOT_USER, "hot_user_requests",
                hot.hotUserRequests(), "hot_user_agents", hot.hotUserAgents(), "other_users", hot.otherUsers(),
                "others_sticky_users", hot.stickyOthers(), "others_stickiness", hot.othersStickiness());
    }

    /** {@code 1 (A2 400)} or {@code 2 (A1 250, A2 150)}: how many agents answered the hot user, and how much each. */
    public static String hotUserOn(Map<String, Long> hotUserAgents) {
        return hotUserAgents.isEmpty() ? "0" : hotUserAgents.size() + " (" + Section.entries(hotUserAgents) + ")";
    }

    /** {@code avn-shared} against {@code avn-one} (and {@code avn} beside); empty without a shared variant. */
    static Optional<Result.Check> sharedCheck(List<Result> results) {
        Result one = Result.find(results, "avn-one");
        Result shared = Result.find(results, "avn-shared");
        if (one == null || shared == null) {
            return Optional.empty();
        }
        double mm = shared.totals().maxOverMean() - one.totals().maxOverMean();
        double st = shared.number("others_stickiness") - one.number("others_stickiness");
        double tolerance = 1e-9; // stickiness moves in steps of one user: compare as printed, not in binary
        boolean met = mm <= TARGET_SHARED_MAX_OVER_MEAN_DELTA + tolerance && st >= -TARGET_SHARED_STICKINESS_DELTA - tolerance;
        String detail = Section.format("Shared allocation: avn-shared (%d replicas, one allocation through ZooKeeper) "
                        + "max/mean %.3f, stickiness %.3f against one instance (avn-one) %.3f, %.3f: %+.3f and %+.3f; "
                        + "targets (max/mean at most +%.2f, stickiness at most -%.2f) %s", shared.replicas(),
                shared.totals().maxOverMean(), shared.number("others_stickiness"), one.totals().maxOverMean(),
                one.number("others_stickiness"), mm, st, TARGET_SHARED_MAX_OVER_MEAN_DELTA,
                TARGET_SHARED_STICKINESS_DELTA, met ? "met" : "missed");
        Result alone = Result.find(results, "avn");
        if (alone != null) {
            detail += Section.format("; replicas each learning alone (avn): %.3f, %.3f (%+.3f, %+.3f)",
                    alone.totals().maxOverMean(), alone.number("others_stickiness"),
                    alone.totals().maxOverMean() - one.totals().maxOverMean(),
                    alone.number("others_stickiness") - one.number("others_stickiness"));
        }
        return Optional.of(new Result.Check("shared allocation", met, detail + "."));
    }

    @Override
    public Section section(List<Result> results) {
        LoadTestConfig c = results.get(0).load();
        int replicas = results.get(0).replicas();
        boolean replicated = results.stream().anyMatch(r -> r.replicas() > 1);
        List<String> agents = Result.agents(results);
        Section.TableBuilder table = Section.table().left("balancer").right("balance factor", "requests", "errors",
                "timeouts").right(agents.toArray(String[]::new)).right("max/mean", "stickiness (others)");
        if (replicated) {
            table.right("within each replica").left("replicas");
        }
        table.left("hot user on", "targets");
        for (Result r : results) {
            RunStatistics s = r.totals();
            double factor = r.number("balance_factor");
            String shared = Boolean.TRUE.equals(r.figures().get("shared")) ? " shared"
                    : r.replicas() > 1 ? " alone" : "";
            table.row(List.of(r.variant(), factor > 0 ? Section.format("%.2f", factor) : "-", s.requests(), s.errors(),
                    s.timeouts(), agents.stream().map(s::answered).toList(), s.maxOverMean(),
                    r.number("others_stickiness"),
                    replicated ? List.of(r.number("others_stickiness_per_replica"), r.replicas() + shared) : List.of(),
                    hotUserOn(Result.figure(r.figures(), "hot_user_agents")),
                    r.check("targets").passed() ? "met" : "missed"));
        }
        List<Object> blocks = new ArrayList<>();
        blocks.add(Section.format("Agents: %s. User %d sends %d (share %.2f) of %d requests, users 1..%d the rest, in "
                        + "the seeded order (seed %d), %d concurrent, after %d warm-up requests with the same share (not "
                        + "counted); %s. The %d runs ran at the same time, each with its own agents and proxies (the "
                        + "figures are counts; latency is not compared here).", AgentSet.UNIFORM.description(),
                Workload.HOT_USER, Workload.hotRequests(c.requests(), c.hotShare()), c.hotShare(), c.requests(), c.users(),
                c.seed(), c.concurrency(), c.warmup(), replicas == 1 ? "one proxy per balancer" : replicas
                        + " proxy replicas per balancer over the same agents, requests alternating across them",
                results.size()));
        blocks.add(table.build());
        sharedCheck(results).ifPresent(check -> blocks.add(check.detail()));
        List<String> met = results.stream().filter(r -> r.check("targets").passed()).map(r -> "`" + r.variant() + "`")
                .toList();
        blocks.add(Section.format("Targets: max/mean <= %.2f, stickiness of the other users >= %.2f and the hot user "
                        + "on one agent; met by %s. max/mean of the requests per agent; stickiness (others) = share of "
                        + "users 1..%d whose answers all came from one agent, whichever replica each request passed%s; "
                        + "hot user on = the agents that answered user 0, with its requests on each. Bounded variants: "
                        + "`setBalanceFactor(c)`, the library's bounded loads (docs/bounded-load.md).",
                TARGET_MAX_OVER_MEAN, TARGET_STICKINESS, met.isEmpty() ? "none" : String.join(", ", met), c.users(),
                replicas > 1 ? "; within each replica = share that each replica kept on one agent (possibly different "
                        + "ones), so the difference is the users the replicas disagree on" : ""));
        for (Result r : results) {
            if (r.figures().get("virtual_nodes") instanceof Map<?, ?> nodes) {
                blocks.add(Section.format("`%s` virtual nodes at the end%s: %s; %.0f reallocations.", r.variant(),
                        replicas > 1 ? " (replica 1)" : "", Section.entries((Map<String, ?>) nodes), r.number("reallocations")));
            }
        }
        return new Section(name(), blocks, List.of(chart(results)));
    }

    /** One stacked bar per variant and agent (the hot user's requests below), lines at the mean and the target. */
    static Chart chart(List<Result> results) {
        List<String> bars = new ArrayList<>();
        List<Double> hot = new ArrayList<>();
        List<Double> others = new ArrayList<>();
        for (Result r : results) {
            Map<String, Long> ofHot = Result.figure(r.figures(), "hot_user_agents");
            r.totals().agents().forEach((agent, a) -> {
                bars.add(r.variant() + " " + agent);
                hot.add((double) ofHot.getOrDefault(agent, 0L));
                others.add((double) a.count() - ofHot.getOrDefault(agent, 0L));
            });
        }
        LoadTestConfig c = results.get(0).load();
        double mean = results.get(0).totals().meanPerAgent();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("user " + Workload.HOT_USER + " (hot)", hot);
        series.put("users 1.." + c.users(), others);
        return new Chart.Bars("hotkey.png", "requests per agent, hot user and others", Section.format("Requests per "
                + "agent, hot user %d at share %.2f of %d requests (%d replica(s))", Workload.HOT_USER, c.hotShare(),
                c.requests(), results.get(0).replicas()), "Balancer and agent", "Requests", new int[] {1000, 500}, bars,
                series, true, List.of(new Chart.Level(mean, Section.format("mean %.0f", mean)), new Chart.Level(
                TARGET_MAX_OVER_MEAN * mean, Section.format("target %.2f x mean = %.0f", TARGET_MAX_OVER_MEAN,
                TARGET_MAX_OVER_MEAN * mean))));
    }
}
