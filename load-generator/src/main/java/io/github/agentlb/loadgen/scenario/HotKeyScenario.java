package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.KeySettings;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.run.WarmUp;
import io.github.agentlb.loadgen.stats.AvnSummary;
import io.github.agentlb.loadgen.stats.HotKeyStatistics;
import io.github.agentlb.loadgen.stats.RunReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.zookeeper.ZooKeeperSharedAllocation;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.curator.test.TestingServer;

/**
 * The hot-key scenario: the uniform scenario's three identical agents, a workload in
 * which user {@value Workload#HOT_USER} sends a share of all requests ({@link #DEFAULT_HOT_SHARE}
 * by default) and the other users the rest, run through each keyed strategy plain and with
 * bounded loads at balance factor {@value #BALANCE_FACTOR} ({@link Variant}). Optionally over
 * several balancer replicas (proxies over the same agents, requests alternating across them).
 *
 * <p>The variants run <em>at the same time</em>, each with its own agents and proxies on free
 * loopback ports: the figures compared are counts (requests per agent, users per agent), and the
 * main job must stay under 6 minutes. Latency is not compared across variants here. Not
 * thread-safe; one {@link #run} at a time.
 */
public final class HotKeyScenario {

    /** The scenario's name on the command line and in file names. */
    public static final String LABEL = "hotkey";
    /** The hot user's share of all requests unless {@code --hot-share} says otherwise: 0.2. */
    public static final double DEFAULT_HOT_SHARE = 0.2;
    /** The balance factor c of the bounded variants: 1.25, the library's and HAProxy's default. */
    public static final double BALANCE_FACTOR = 1.25;
    /** Target: max/mean of the requests per agent at most this. */
    public static final double TARGET_MAX_OVER_MEAN = 1.10;
    /** Target: stickiness of the other users at least this. */
    public static final double TARGET_STICKINESS = 0.95;

    /** The shared allocation's target: a shared {@code avn}'s max/mean at most this above one instance's. */
    public static final double TARGET_SHARED_MAX_OVER_MEAN_DELTA = 0.02;
    /** The shared allocation's target: a shared {@code avn}'s stickiness of the others at most this below one instance's. */
    public static final double TARGET_SHARED_STICKINESS_DELTA = 0.01;

    /**
     * A balancer of the scenario.
     *
     * @param label         the row's and the files' name, e.g. {@code ch-bounded}
     * @param strategy      the strategy, a keyed one of {@code Strategies.names()}
     * @param balanceFactor the bounded-load balance factor c, or 0 for none
     * @param replicas      proxies of this variant, or 0 for the scenario's {@code --replicas}
     * @param shared        whether the replicas share one {@code avn} allocation through the
     *                      scenario's in-process ZooKeeper (camel-lb-zookeeper)
     */
    public record Variant(String label, String strategy, double balanceFactor, int replicas, boolean shared) {

        /** A variant over the scenario's replicas, each learning alone. */
        public Variant(String label, String strategy, double balanceFactor) {
            this(label, strategy, balanceFactor, 0, false);
        }

        /**
         * A new balancer of this variant: the strategy's defaults and, if bounded, the balance
         * factor; if shared, an {@code avn} sharing its allocation at {@code zookeeper}.
         */
        AgentLoadBalancerSupport balancer(String zookeeper) {
            AgentLoadBalancerSupport balancer = shared
                    ? new AdaptiveVirtualNodeLB(ZooKeeperSharedAllocation.of(zookeeper, LABEL + "-" + label))
                    : Strategies.create(strategy);
            if (balanceFactor > 0) {
                ((KeySettings) balancer).setBalanceFactor(balanceFactor);
            }
            return balancer;
        }
    }

    private final ScenarioLoad load;
    private final int replicas;

    /**
     * @param load     the agents, their seed, the measured load (with its hot share) and where
     *                 progress goes
     * @param replicas proxies per variant, >= 1
     * @throws IllegalArgumentException if {@code replicas < 1}
     */
    public HotKeyScenario(ScenarioLoad load, int replicas) {
        this.load = Objects.requireNonNull(load, "load");
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1, was " + replicas);
        }
        this.replicas = replicas;
    }

    /**
     * The variants for {@code strategies}: each keyed strategy ({@code ch}, {@code avn}) among
     * them, in their order, plain and then bounded; the others have no key to make hot.
     */
    public static List<Variant> variants(List<String> strategies) {
        List<Variant> variants = new ArrayList<>();
        for (String strategy : strategies) {
            if (strategy.equals(Strategies.CONSISTENT_HASH) || strategy.equals(Strategies.ADAPTIVE_VIRTUAL_NODES)) {
                variants.add(new Variant(strategy, strategy, 0));
                variants.add(new Variant(strategy + "-bounded", strategy, BALANCE_FACTOR));
            }
        }
        return variants;
    }

    /**
     * As {@link #variants(List)}; with {@code replicas > 1} and {@code avn} among them, also
     * {@code avn-one} (one instance, the reference) and {@code avn-shared} (the replicas sharing
     * one allocation through an in-process ZooKeeper), so that one run compares the three.
     */
    public static List<Variant> variants(List<String> strategies, int replicas) {
        List<Variant> variants = variants(strategies);
        if (replicas > 1 && strategies.contains(Strategies.ADAPTIVE_VIRTUAL_NODES)) {
            String avn = Strategies.ADAPTIVE_VIRTUAL_NODES;
            variants.add(new Variant(avn + "-one", avn, 0, 1, false));
            variants.add(new Variant(avn + "-shared", avn, 0, 0, true));
        }
        return variants;
    }

    /**
     * Runs every variant at once and returns their runs in the order of {@code variants}.
     *
     * @throws Exception what the first failing variant threw (a cluster that cannot start, a stuck run)
     */
    public List<HotKeyRun> run(List<Variant> variants) throws Exception {
        return run(variants, done -> { });
    }

    /**
     * As {@link #run(List)}, handing each variant's run to {@code onRun} as soon as it is done
     * (on the variant's thread, so possibly at the same time as another variant's).
     *
     * @throws Exception what the first failing variant threw (a cluster that cannot start, a stuck run)
     */
    public List<HotKeyRun> run(List<Variant> variants, Consumer<HotKeyRun> onRun) throws Exception {
        if (variants.isEmpty()) {
            return List.of();
        }
        TestingServer zookeeper = variants.stream().anyMatch(Variant::shared) ? new TestingServer(true) : null;
        if (zookeeper != null) {
            load.stdout().println("== in-process ZooKeeper for the shared allocation at "
                    + zookeeper.getConnectString());
        }
        String connect = zookeeper == null ? null : zookeeper.getConnectString();
        ExecutorService pool = Executors.newFixedThreadPool(variants.size(), r -> {
            Thread t = new Thread(r, "loadgen-hotkey");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<HotKeyRun>> futures = new ArrayList<>();
            for (Variant v : variants) {
                futures.add(pool.submit((Callable<HotKeyRun>) () -> {
                    HotKeyRun done = run(v, connect);
                    onRun.accept(done);
                    return done;
                }));
            }
            List<HotKeyRun> runs = new ArrayList<>();
            for (Future<HotKeyRun> f : futures) {
                try {
                    runs.add(f.get());
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
            return runs;
        } finally {
            pool.shutdownNow();
            if (zookeeper != null) {
                zookeeper.close();
            }
        }
    }

    /** Starts the variant's agents and proxies, warms up through every replica, sends the measured load. */
    HotKeyRun run(Variant variant) throws Exception {
        return run(variant, null);
    }

    private HotKeyRun run(Variant variant, String zookeeper) throws Exception {
        ProxyConfig.Builder proxy = ProxyConfig.builder().strategy(variant.strategy());
        int replicas = variant.replicas() > 0 ? variant.replicas() : this.replicas;
        LoadTestConfig config = load.config();
        PrintStream stdout = load.stdout();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(Scenario.UNIFORM, load.template(), load.seed(), proxy,
                () -> variant.balancer(zookeeper), replicas)) {
            stdout.printf(Locale.ROOT, "== %s, %s scenario: agents %s behind %d proxy replica(s) at %s; user %d sends "
                            + "%d of %d requests%n", variant.label(), LABEL, String.join(", ", cluster.agentIds()),
                    replicas, String.join(", ", cluster.baseUrls()), Workload.HOT_USER,
                    Workload.hotRequests(config.requests(), config.hotShare()), config.requests());
            if (config.warmupConfig().isPresent()) {
                WarmUp.send(stdout, variant.label(), cluster.baseUrls(), config.warmupConfig().get());
            }
            LoadRunner.RunResult result = new LoadRunner(config, stdout).run(cluster.baseUrls(), variant.label(),
                    started -> { });
            RunStatistics stats = result.statistics(cluster.agentIds());
            HotKeyStatistics hot = HotKeyStatistics.of(result.outcomes(), config.workload(), replicas);
            AvnSummary avn = cluster.avnSummary();
            RunReport report = new RunReport(variant.label(), Scenario.UNIFORM, String.join(", ", cluster.baseUrls()),
                    true, config, stats, null, avn, null);
            return new HotKeyRun(variant, report, hot);
        }
    }

    /**
     * One variant's run.
     *
     * @param variant the balancer
     * @param report  the run's ordinary figures (scenario: the uniform agents)
     * @param hot     what it did to the hot user and the others
     */
    public record HotKeyRun(Variant variant, RunReport report, HotKeyStatistics hot) {

        /** Whether the three targets hold: max/mean, stickiness of the others, hot user on one agent. */
        public boolean meetsTargets() {
            return report.statistics().maxOverMean() <= TARGET_MAX_OVER_MEAN
                    && hot.othersStickiness() >= TARGET_STICKINESS && hot.hotUserAgentCount() == 1;
        }
    }
}
