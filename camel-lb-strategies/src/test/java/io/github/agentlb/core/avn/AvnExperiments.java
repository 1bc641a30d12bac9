package io.github.agentlb.core.avn;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.stats.LoadStatistics;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The paper's experiments (section 3) and the assignment's 200-user test as deterministic
 * simulations. Everything is seeded; the same call gives the same numbers on every machine.
 * {@link AvnExperimentTest} asserts them and prints the tables of docs/avn-experiment.md.
 */
final class AvnExperiments {

    /** Three agents named by IP address, as in the paper, with true capacities 2:2:1. */
    static final List<String> PAPER_AGENTS = List.of("10.0.0.1", "10.0.0.2", "10.0.0.3");
    /** Start-up utilization that eq. (1) turns into weights 2:2:1: P = 0.2, 0.2, 0.4. */
    static final Map<String, AgentUtilization> PAPER_STARTUP = Map.of(
            "10.0.0.1", new AgentUtilization(0.2, 0.2),
            "10.0.0.2", new AgentUtilization(0.2, 0.2),
            "10.0.0.3", new AgentUtilization(0.4, 0.4));
    /** Utilization of every agent at its fair share of the load, experiment a. */
    static final double FAIR_UTILIZATION = 0.5;
    /** Idle utilization of every agent, experiment b. */
    static final double IDLE_UTILIZATION = 0.1;
    /** The assignment's agents. */
    static final List<String> SEED_AGENTS = List.of("http://localhost:8081", "http://localhost:8082",
            "http://localhost:8083");
    /** The load generator's agents (its embedded agents are named, so the ring is the same every run). */
    static final List<String> LIVE_AGENTS = List.of("A1", "A2", "A3");

    private AvnExperiments() {
    }

    // ---------------------------------------------------------------- experiment a

    /** One row of experiment a: total N, counts, each agent's share of tasks and S. */
    record InitRow(int total, SortedMap<String, Integer> virtualNodes, SortedMap<String, Double> shares,
            double imbalanceIndex, double imbalanceIndexPlainFnv) {
    }

    /** {@code count} task keys: 16-hex-digit strings from {@code Random(seed)}. */
    static List<String> taskKeys(int count, long seed) {
        Random random = new Random(seed);
        List<String> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(String.format(Locale.ROOT, "%016x", random.nextLong()));
        }
        return keys;
    }

    /**
     * Experiment a: weights 2:2:1 (from start-up utilization via eq. 1), totals {@code N}, 10,000
     * task keys. S by eq. (3)-(5) where each agent's CPU and memory are
     * {@code FAIR_UTILIZATION * s_i / e_i}: its load relative to its capacity.
     */
    static InitRow initialization(int total, List<String> agents, Map<String, AgentUtilization> startup, List<String> keys) {
        AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(total).build();
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(config);
        avn.setAgents(startup);
        SortedMap<String, Double> shares = taskShares(avn.ring(), keys);
        double s = imbalanceOfShares(shares, avn.capacityShares(), config);
        HashRing plain = HashRing.of(avn.virtualNodes(), HashAlgorithm.FNV1_64);
        double sPlain = imbalanceOfShares(taskShares(plain, keys), avn.capacityShares(), config);
        return new InitRow(total, avn.virtualNodes(), shares, s, sPlain);
    }

    static InitRow initialization(int total) {
        return initialization(total, PAPER_AGENTS, PAPER_STARTUP, taskKeys(10_000, 42));
    }

    /** How often S < 0.1 over {@code labelSets} agent-name sets "10.0.k.1..3", k = 0.., for one total. */
    static double fractionBalanced(int total, int labelSets, HashFunction hash) {
        List<String> keys = taskKeys(10_000, 42);
        int balanced = 0;
        for (int k = 0; k < labelSets; k++) {
            Map<String, AgentUtilization> startup = new HashMap<>();
            String prefix = "10.0." + k + ".";
            startup.put(prefix + 1, new AgentUtilization(0.2, 0.2));
            startup.put(prefix + 2, new AgentUtilization(0.2, 0.2));
            startup.put(prefix + 3, new AgentUtilization(0.4, 0.4));
            AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(total)
                    .hashFunction(hash).build();
            AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(config);
            avn.setAgents(startup);
            if (imbalanceOfShares(taskShares(avn.ring(), keys), avn.capacityShares(), config) < 0.1) {
                balanced++;
            }
        }
        return (double) balanced / labelSets;
    }

    static SortedMap<String, Double> taskShares(HashRing ring, List<String> keys) {
        SortedMap<String, Double> shares = new TreeMap<>();
        ring.agents().forEach(agent -> shares.put(agent, 0.0));
        for (String key : keys) {
            shares.merge(ring.agentFor(key), 1.0 / keys.size(), Double::sum);
        }
        return shares;
    }

    private static double imbalanceOfShares(SortedMap<String, Double> shares, Map<String, Double> capacity,
            AdaptiveVirtualNodesConfig config) {
        Map<String, Long> requests = new TreeMap<>();
        Map<String, AgentUtilization> utilization = new HashMap<>();
        shares.forEach((agent, share) -> {
            requests.put(agent, Math.round(share * 1_000_000));
            double u = Math.min(1, FAIR_UTILIZATION * share / capacity.get(agent));
            utilization.put(agent, new AgentUtilization(u, u));
        });
        return LoadIndex.imbalanceIndex(LoadIndex.loadIndices(requests, capacity, utilization, config));
    }

    // ---------------------------------------------------------------- experiment b

    /** One evaluation ("trial") of experiment b. */
    record Trial(int trial, int round, double offeredLoad, SortedMap<String, Integer> virtualNodes,
            SortedMap<String, Double> shares, double imbalanceIndex, String action) {
    }

    /** The trials of one start and the moves it needed. */
    record Growth(String start, List<Trial> trials, int reallocations) {
    }

    /**
     * Experiment b: three agents of true capacity 2:2:1; each round stores 2,000 new task keys and
     * raises the offered load by 0.1 (round r: {@code rho = 0.1 r}). An agent's CPU and memory are
     * {@code IDLE_UTILIZATION + rho * s_i / c_i} (capped at 1), {@code s_i} its share of all keys
     * stored so far, {@code c_i} its true capacity share. After each round the system is evaluated;
     * while S > 0.1 one virtual node moves per evaluation and the agents report again.
     *
     * @param weighted true: start from start-up utilization (6, 6, 3); false: uniform (5, 5, 5)
     *                 with equal capacity assumed, as plain consistent hashing
     */
    static Growth growingLoad(boolean weighted, int rounds) {
        return growingLoad(weighted, rounds, "10.0.0.");
    }

    /** Experiment b with agents {@code prefix + 1 .. 3} (capacities 2:2:1). */
    static Growth growingLoad(boolean weighted, int rounds, String prefix) {
        AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.custom()
                .totalVirtualNodes(15).historySize(2000 * rounds).paperRule().build();
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(config);
        if (weighted) {
            avn.setAgents(Map.of(prefix + 1, new AgentUtilization(0.2, 0.2), prefix + 2, new AgentUtilization(0.2, 0.2),
                    prefix + 3, new AgentUtilization(0.4, 0.4)));
        } else {
            avn.setAgents(List.of(prefix + 1, prefix + 2, prefix + 3));
        }
        Map<String, Double> trueCapacity = Map.of(prefix + 1, 0.4, prefix + 2, 0.4, prefix + 3, 0.2);
        List<String> stored = new ArrayList<>();
        List<String> allKeys = taskKeys(2000 * rounds, 7);
        List<Trial> trials = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            double rho = 0.1 * round;
            for (String key : allKeys.subList(2000 * (round - 1), 2000 * round)) {
                stored.add(key);
                avn.record(avn.ring().hash(key));
            }
            boolean again = true;
            while (again) {
                SortedMap<String, Integer> before = avn.virtualNodes();
                SortedMap<String, Double> shares = taskShares(avn.ring(), stored);
                shares.forEach((agent, share) -> {
                    double u = Math.min(1, IDLE_UTILIZATION + rho * share / trueCapacity.get(agent));
                    avn.report(agent, u, u);
                });
                Evaluation evaluation = avn.evaluate().orElseThrow();
                again = !evaluation.moves().isEmpty();
                String action = again
                        ? "move " + evaluation.moves().get(0).from() + " -> " + evaluation.moves().get(0).to()
                        : evaluation.imbalanceIndex() > config.imbalanceThreshold() ? "no move helps" : "-";
                trials.add(new Trial(trials.size() + 1, round, rho, before, shares, evaluation.imbalanceIndex(), action));
            }
        }
        return new Growth(weighted ? "weighted (6, 6, 3)" : "uniform (5, 5, 5)", trials, (int) avn.reallocations());
    }

    /** Experiment b over many agent-name sets: moves needed and how often S ended below 0.1. */
    record GrowthSweep(String start, int runs, int totalMoves, int endedBalanced, int fewerMovesThanOther,
            int sameMovesAsOther) {
    }

    /** Runs experiment b for agents "10.0.k.1..3", k = 0..{@code labelSets - 1}, both starts. */
    static List<GrowthSweep> growthSweep(int labelSets, int rounds) {
        int[] moves = new int[2];
        int[] balanced = new int[2];
        int[] fewer = new int[2];
        int same = 0;
        for (int k = 0; k < labelSets; k++) {
            Growth weighted = growingLoad(true, rounds, "10.0." + k + ".");
            Growth uniform = growingLoad(false, rounds, "10.0." + k + ".");
            moves[0] += weighted.reallocations();
            moves[1] += uniform.reallocations();
            balanced[0] += endsBalanced(weighted) ? 1 : 0;
            balanced[1] += endsBalanced(uniform) ? 1 : 0;
            fewer[0] += weighted.reallocations() < uniform.reallocations() ? 1 : 0;
            fewer[1] += uniform.reallocations() < weighted.reallocations() ? 1 : 0;
            same += weighted.reallocations() == uniform.reallocations() ? 1 : 0;
        }
        return List.of(new GrowthSweep("weighted (6, 6, 3)", labelSets, moves[0], balanced[0], fewer[0], same),
                new GrowthSweep("uniform (5, 5, 5)", labelSets, moves[1], balanced[1], fewer[1], same));
    }

    private static boolean endsBalanced(Growth g) {
        return g.trials().get(g.trials().size() - 1).imbalanceIndex() < 0.1;
    }

    static String growthSweepTable(List<GrowthSweep> sweeps) {
        StringBuilder sb = new StringBuilder("| start | agent-name sets | moves in total | mean moves | S < 0.1 at the end "
                + "| fewer moves than the other start | as many |\n|---|---|---|---|---|---|---|\n");
        for (GrowthSweep g : sweeps) {
            sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %.2f | %d | %d | %d |%n", g.start(), g.runs(),
                    g.totalMoves(), (double) g.totalMoves() / g.runs(), g.endedBalanced(), g.fewerMovesThanOther(),
                    g.sameMovesAsOther()));
        }
        return sb.toString();
    }

    /** Mean S over agent-name sets "10.0.k.1..3" for one total, experiment a. */
    static double meanImbalance(int total, int labelSets, HashFunction hash) {
        List<String> keys = taskKeys(10_000, 42);
        double sum = 0;
        for (int k = 0; k < labelSets; k++) {
            String prefix = "10.0." + k + ".";
            AdaptiveVirtualNodesConfig config = AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(total)
                    .hashFunction(hash).build();
            AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(config);
            avn.setAgents(Map.of(prefix + 1, new AgentUtilization(0.2, 0.2), prefix + 2, new AgentUtilization(0.2, 0.2),
                    prefix + 3, new AgentUtilization(0.4, 0.4)));
            sum += imbalanceOfShares(taskShares(avn.ring(), keys), avn.capacityShares(), config);
        }
        return sum / labelSets;
    }

    // ---------------------------------------------------------------- experiment c

    /** Outcome of the 200-user test for one strategy. */
    record UserTest(String strategy, SortedMap<String, Long> requests, double spread, double cv, double stickiness,
            long reallocations, SortedMap<String, Integer> finalVirtualNodes) {
    }

    /** User ids 1..200, each 10 times, in the order of {@code Collections.shuffle(..., new Random(seed))}. */
    static List<String> userRequests(long seed) {
        List<String> requests = new ArrayList<>(2000);
        for (int user = 1; user <= 200; user++) {
            for (int i = 0; i < 10; i++) {
                requests.add(String.valueOf(user));
            }
        }
        Collections.shuffle(requests, new Random(seed));
        return requests;
    }

    /** Plain consistent hashing: 150 virtual nodes per agent, MD5 ({@code ConsistentHashLB}'s defaults). */
    static UserTest consistentHashing(List<String> agents, List<String> requests) {
        HashRing ring = HashRing.uniform(agents, 150, HashAlgorithm.MD5);
        SortedMap<String, Long> counts = new TreeMap<>();
        agents.forEach(a -> counts.put(a, 0L));
        for (String user : requests) {
            counts.merge(ring.agentFor(user), 1L, Long::sum);
        }
        LoadStatistics stats = LoadStatistics.of(counts.values());
        return new UserTest("ch (150 vnodes/agent, MD5)", counts, stats.spread(), stats.coefficientOfVariation(),
                1.0, 0, ring.virtualNodes());
    }

    /**
     * The load generator's order: {@code requests} requests over users {@code 1..users}, user
     * {@code i % users + 1} at position i, then {@code Collections.shuffle(list, new Random(seed))}
     * (as its {@code Workload}).
     */
    static List<String> loadGeneratorRequests(int requests, int users, long seed) {
        List<String> list = new ArrayList<>(requests);
        for (int i = 0; i < requests; i++) {
            list.add(String.valueOf(i % users + 1));
        }
        Collections.shuffle(list, new Random(seed));
        return list;
    }

    /** AVN as the Camel adapter drives it: record each request, evaluate when a window completes. */
    static UserTest adaptive(String name, AdaptiveVirtualNodesConfig config, List<String> agents, List<String> requests) {
        return adaptive(name, config, agents, List.of(), requests);
    }

    /**
     * As {@link #adaptive(String, AdaptiveVirtualNodesConfig, List, List)}, after {@code warmup}
     * requests that drive the balancer but are not counted (the load generator's warm-up).
     */
    static UserTest adaptive(String name, AdaptiveVirtualNodesConfig config, List<String> agents, List<String> warmup,
            List<String> requests) {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(config);
        avn.setAgents(agents);
        for (String user : warmup) {
            if (avn.record(avn.ring().hash(user))) {
                avn.evaluate();
            }
        }
        SortedMap<String, Long> counts = new TreeMap<>();
        agents.forEach(a -> counts.put(a, 0L));
        Map<String, Set<String>> agentsOfUser = new HashMap<>();
        for (String user : requests) {
            HashRing ring = avn.ring();
            long position = ring.hash(user);
            String agent = ring.agentAt(position);
            counts.merge(agent, 1L, Long::sum);
            agentsOfUser.computeIfAbsent(user, u -> new HashSet<>()).add(agent);
            if (avn.record(position)) {
                avn.evaluate();
            }
        }
        LoadStatistics stats = LoadStatistics.of(counts.values());
        double sticky = agentsOfUser.values().stream().filter(h -> h.size() == 1).count() / (double) agentsOfUser.size();
        return new UserTest(name, counts, stats.spread(), stats.coefficientOfVariation(), sticky,
                avn.reallocations(), avn.virtualNodes());
    }

    /** Aggregate of the 200-user test over many agent-name sets and shuffles. */
    record Sweep(String strategy, int runs, double meanCv, double maxCv, double meanStickiness, double minStickiness,
            int meetingBoth) {
    }

    /**
     * Runs the 200-user test for {@code labelSets} agent sets ("http://localhost:" 8081+3k ..
     * 8083+3k) times shuffle seeds 1..{@code seeds}; a {@code null} config means plain consistent hashing.
     */
    static Sweep sweep(String name, AdaptiveVirtualNodesConfig config, int labelSets, int seeds) {
        double cvSum = 0;
        double cvMax = 0;
        double stickySum = 0;
        double stickyMin = 1;
        int both = 0;
        int runs = 0;
        for (int k = 0; k < labelSets; k++) {
            List<String> agents = List.of("http://localhost:" + (8081 + 3 * k), "http://localhost:" + (8082 + 3 * k),
                    "http://localhost:" + (8083 + 3 * k));
            for (long seed = 1; seed <= seeds; seed++) {
                List<String> requests = userRequests(seed);
                UserTest t = config == null ? consistentHashing(agents, requests) : adaptive(name, config, agents, requests);
                cvSum += t.cv();
                cvMax = Math.max(cvMax, t.cv());
                stickySum += t.stickiness();
                stickyMin = Math.min(stickyMin, t.stickiness());
                if (t.cv() <= 0.10 && t.stickiness() >= 0.95) {
                    both++;
                }
                runs++;
            }
        }
        return new Sweep(name, runs, cvSum / runs, cvMax, stickySum / runs, stickyMin, both);
    }

    // ---------------------------------------------------------------- tables

    static String initTable(List<InitRow> rows) {
        StringBuilder sb = new StringBuilder(
                "| N | virtual nodes | task share 10.0.0.1 / .2 / .3 | S (FNV-1 64 + fmix) | S (plain FNV-1 64) |\n"
                        + "|---|---|---|---|---|\n");
        for (InitRow r : rows) {
            sb.append(String.format(Locale.ROOT, "| %d | %s | %s | %.3f | %.3f |%n", r.total(),
                    joined(r.virtualNodes()), percentages(r.shares()), r.imbalanceIndex(), r.imbalanceIndexPlainFnv()));
        }
        return sb.toString();
    }

    static String growthTable(Growth g) {
        StringBuilder sb = new StringBuilder("Start: " + g.start() + ", reallocations: " + g.reallocations() + "\n\n"
                + "| trial | round | offered load | virtual nodes | task share | S | action |\n"
                + "|---|---|---|---|---|---|---|\n");
        for (Trial t : g.trials()) {
            sb.append(String.format(Locale.ROOT, "| %d | %d | %.1f | %s | %s | %.3f | %s |%n", t.trial(), t.round(),
                    t.offeredLoad(), joined(t.virtualNodes()), percentages(t.shares()), t.imbalanceIndex(), t.action()));
        }
        return sb.toString();
    }

    static String userTestTable(List<UserTest> tests) {
        StringBuilder sb = new StringBuilder("| strategy | requests per agent | spread | CV | stickiness | moves | final vnodes |\n"
                + "|---|---|---|---|---|---|---|\n");
        for (UserTest t : tests) {
            sb.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.3f | %.3f | %d | %s |%n", t.strategy(),
                    joined(t.requests()), t.spread(), t.cv(), t.stickiness(), t.reallocations(),
                    joined(t.finalVirtualNodes())));
        }
        return sb.toString();
    }

    static String sweepTable(List<Sweep> sweeps) {
        StringBuilder sb = new StringBuilder("| strategy | runs | mean CV | max CV | mean stickiness | min stickiness "
                + "| runs with CV <= 0.10 and stickiness >= 0.95 |\n|---|---|---|---|---|---|---|\n");
        for (Sweep s : sweeps) {
            sb.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f | %.3f | %.3f | %d |%n", s.strategy(), s.runs(),
                    s.meanCv(), s.maxCv(), s.meanStickiness(), s.minStickiness(), s.meetingBoth()));
        }
        return sb.toString();
    }

    private static String joined(Map<String, ? extends Number> values) {
        List<String> parts = new ArrayList<>();
        values.values().forEach(v -> parts.add(String.valueOf(v)));
        return String.join(", ", parts);
    }

    private static String percentages(Map<String, Double> shares) {
        Map<String, String> out = new LinkedHashMap<>();
        shares.forEach((k, v) -> out.put(k, String.format(Locale.ROOT, "%.1f%%", 100 * v)));
        return String.join(" / ", out.values());
    }
}
