package io.github.agentlb.bench;

import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.Evaluation;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.pid.PidController;
import io.github.agentlb.core.pid.PidWeights;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The pure core, no Camel: what each strategy computes per request (ring lookup, smooth weighted
 * round-robin pick, recording a request for adaptive virtual nodes) and per period (a PID step,
 * an adaptive virtual node evaluation). Agent ids look like endpoint URIs, keys like user ids.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CoreBenchmark {

    private static final int KEYS = 1024;

    @Param({"3", "30", "300"})
    public int agents;

    private final String[] keys = new String[KEYS];
    private final long[] positions = new long[KEYS];
    private int next;

    private HashRing md5Ring;
    private HashRing fnvRing;
    private SmoothWeightedRoundRobin swrr;
    private PidController controller;
    private double processVariable;
    private PidWeights pidWeights;
    private long clockNanos;
    private List<String> ids;
    private AdaptiveVirtualNodes avn;
    private AdaptiveVirtualNodes avnForEvaluation;

    @Setup(Level.Trial)
    public void setUp() {
        ids = new ArrayList<>();
        for (int i = 1; i <= agents; i++) {
            ids.add("http://agent-" + i + ":8080");
        }
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < KEYS; i++) {
            keys[i] = Integer.toString(100_000 + i * 7919);
            positions[i] = random.nextLong();
        }
        // 150 virtual nodes per agent, MD5: ConsistentHashLB's defaults.
        md5Ring = HashRing.uniform(ids, 150, HashAlgorithm.MD5);
        // 50 per agent, FNV-1 64 mixed: AdaptiveVirtualNodeLB's defaults at 3 agents.
        fnvRing = HashRing.uniform(ids, 50, HashAlgorithm.FNV1_64_MIXED);

        Map<String, Double> weights = new TreeMap<>();
        for (int i = 0; i < agents; i++) {
            weights.put(ids.get(i), 0.5 + random.nextDouble());
        }
        swrr = new SmoothWeightedRoundRobin();
        swrr.setWeights(weights);

        controller = new PidController(PidWeightsConfig.ofDefaults().controllerConfig());
        pidWeights = new PidWeights(PidWeightsConfig.ofDefaults(), () -> clockNanos);
        pidWeights.setAgents(ids);

        AdaptiveVirtualNodesConfig avnConfig = AdaptiveVirtualNodesConfig.custom()
                .totalVirtualNodes(50 * agents).build();
        avn = new AdaptiveVirtualNodes(avnConfig);
        avn.setAgents(ids);
        avnForEvaluation = new AdaptiveVirtualNodes(avnConfig);
        avnForEvaluation.setAgents(ids);
        for (int i = 0; i < avnConfig.historySize(); i++) {
            avnForEvaluation.record(positions[i & (KEYS - 1)]);
        }
    }

    private String nextKey() {
        return keys[next++ & (KEYS - 1)];
    }

    /** ConsistentHashLB's lookup: MD5 of the key, binary search over agents x 150 points. */
    @Benchmark
    public String ringLookupMd5() {
        return md5Ring.agentFor(nextKey());
    }

    /** The same with FNV-1 64 and MurmurHash3's finalizer (AdaptiveVirtualNodeLB's hash). */
    @Benchmark
    public String ringLookupFnv() {
        return fnvRing.agentFor(nextKey());
    }

    /** The binary search alone, on an already hashed position. */
    @Benchmark
    public String ringSearch() {
        return md5Ring.agentAt(positions[next++ & (KEYS - 1)]);
    }

    /** The failover order's first agent, as the Camel adapter takes it. */
    @Benchmark
    public String ringClockwiseFirst() {
        Iterator<String> candidates = md5Ring.agentsClockwise(md5Ring.hash(nextKey()));
        return candidates.next();
    }

    /** PidWeightedLB's per-request pick. */
    @Benchmark
    public String swrrSelect() {
        return swrr.select();
    }

    /** The pick with its failover order, as the Camel adapter takes them. */
    @Benchmark
    public List<String> swrrSelectWithFailoverOrder(Blackhole blackhole) {
        blackhole.consume(swrr.select());
        return swrr.schedule().failoverOrder();
    }

    /** One controller update (one agent, one control period). */
    @Benchmark
    public double pidControllerUpdate() {
        processVariable = processVariable > 0.9 ? 0.1 : processVariable + 0.01;
        return controller.update(0.5, processVariable, 1.0);
    }

    /** One control step of the whole fleet: every agent reports, then weights and schedule are rebuilt. Once a second. */
    @Benchmark
    public Map<String, Double> pidWeightsControlStep() {
        for (int i = 0; i < ids.size(); i++) {
            pidWeights.report(ids.get(i), 0.2 + 0.6 * ((i + next) % 7) / 7.0);
        }
        next++;
        clockNanos += 1_000_000_000L;
        pidWeights.controlStep();
        return pidWeights.weights();
    }

    /** AdaptiveVirtualNodeLB's per-request work: hash, lookup, and recording the position. */
    @Benchmark
    public String avnRequest() {
        HashRing ring = avn.ring();
        long position = ring.hash(nextKey());
        avn.record(position);
        return ring.agentAt(position);
    }

    /** One evaluation over the full history (2000 requests by default); runs once per 100 requests. */
    @Benchmark
    public Optional<Evaluation> avnEvaluate() {
        return avnForEvaluation.evaluate();
    }
}
