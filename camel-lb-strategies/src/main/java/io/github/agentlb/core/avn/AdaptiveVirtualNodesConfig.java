package io.github.agentlb.core.avn;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import java.time.Duration;
import java.util.Objects;

/**
 * Immutable configuration of {@link AdaptiveVirtualNodes}: the coefficients of the paper's
 * equations (1) and (3), the total number of virtual nodes of eq. (2), the threshold on the
 * imbalance index S of eqs. (4)-(5), and how often and how far the ring is adjusted.
 *
 * <p>Built by {@link #custom()} (validating each setter at once, throwing
 * {@link IllegalArgumentException} that names the field and the value) or {@link #ofDefaults()}.
 * Paper: Liu Peijin et al., "a distributed storage strategy for distributed electromechanical
 * systems based on consistent hashing with weighted virtual nodes" (seed
 * {@code 002_74e065d4197e894c}). Thread-safe (immutable).
 */
public final class AdaptiveVirtualNodesConfig {

    /** {@code a_c} of eq. (1): weight of start-up CPU utilization in {@code P_i}; the paper's 0.5. */
    public static final double DEFAULT_CAPACITY_CPU_WEIGHT = 0.5;
    /** {@code a_m} of eq. (1): weight of start-up memory utilization in {@code P_i}; the paper's 0.5. */
    public static final double DEFAULT_CAPACITY_MEMORY_WEIGHT = 0.5;
    /** {@code b_c} of eq. (3): weight of CPU utilization in {@code L_i}; the paper's 0.4. */
    public static final double DEFAULT_LOAD_CPU_WEIGHT = 0.4;
    /** {@code b_m} of eq. (3): weight of memory utilization in {@code L_i}; the paper's 0.4. */
    public static final double DEFAULT_LOAD_MEMORY_WEIGHT = 0.4;
    /** {@code b_t} of eq. (3): weight of the request share in {@code L_i}; the paper's 0.2. */
    public static final double DEFAULT_LOAD_REQUEST_WEIGHT = 0.2;
    /**
     * {@code N} of eq. (2): virtual nodes on the whole ring, 150 (50 per host for three hosts).
     * The paper settles on 15 for a storage system, where a move is a one-off data migration. For
     * sticky sessions every move re-homes the users on the moved arcs, about {@code 1/N} of them
     * each: with 15, the 200-user test lost too many users' stickiness (23 of 100 seeded runs met
     * CV <= 0.10 with stickiness >= 0.95; with 150, 83 of 100; docs/avn-experiment.md, experiment c).
     */
    public static final int DEFAULT_TOTAL_VIRTUAL_NODES = 150;
    /** The paper's threshold on S (a fraction): when S exceeds it, virtual nodes start to move. */
    public static final double DEFAULT_IMBALANCE_THRESHOLD = 0.1;
    /**
     * Hysteresis: unless set, the settle threshold is 0.7 times the threshold (0.07 by default).
     * Once S has exceeded the threshold, moves go on, evaluation after evaluation, until S is at
     * most the settle threshold; then the ring stays until S exceeds the threshold again.
     * Stopping at the threshold itself left the ring on the edge, where the next fluctuation
     * started moves again; 0.07 is above the S a balanced fleet shows (at most 0.057 on three
     * equal live agents with the defaults), so an active phase ends, and a real imbalance is
     * corrected with a margin (docs/avn-experiment.md, section d).
     */
    public static final double DEFAULT_SETTLE_FACTOR = 0.7;
    /**
     * Evaluations after one that moved virtual nodes during which no node moves, 1: the reports
     * of the window just closed describe the old ring, so the next window is left to show what
     * the move did before another move is judged.
     */
    public static final int DEFAULT_COOLDOWN_WINDOWS = 1;
    /**
     * Weight of the newest window's mean report in the smoothed CPU and memory utilization used
     * by eq. (3) (an exponentially weighted moving average over windows), 0.5. Reports are
     * instantaneous; one window's mean still carried enough noise to push S over the threshold.
     * The average restarts after a move, as earlier reports describe another ring.
     */
    public static final double DEFAULT_UTILIZATION_SMOOTHING = 0.5;
    /**
     * Virtual nodes moved at most per evaluation, 16. The paper moves one and re-evaluates "while
     * S exceeds the threshold"; within one evaluation we re-evaluate by replay
     * ({@link Reallocation}), so one evaluation may take several of the paper's one-node steps,
     * each checked before it is made, and stops as soon as the predicted S is at most the settle
     * threshold. A host at half capacity needs about 20 of 150 nodes moved; 16 per evaluation let
     * the live heterogeneous fleet converge in one or two evaluations, mostly before its users
     * were seen, where a move costs no stickiness (8 per evaluation: stickiness 0.885-0.93).
     */
    public static final int DEFAULT_MAX_MOVES_PER_EVALUATION = 16;
    /**
     * Requests per evaluation window, 100: {@link AdaptiveVirtualNodes#record} asks for an
     * evaluation after this many. Long enough for a window's mean CPU and memory report to be
     * steady (docs/avn-experiment.md, section d), short enough that the first evaluation falls
     * early in a run, where moves are cheap in stickiness.
     */
    public static final int DEFAULT_EVALUATION_WINDOW = 100;
    /**
     * Keyed requests whose ring positions are kept and replayed by each evaluation, 2,000 (the
     * assignment's test length); 500 measured worse (more moves fitted to noise).
     */
    public static final int DEFAULT_HISTORY_SIZE = 2000;
    /**
     * Age after which an agent's CPU and memory report no longer counts, 10 s (as pid's
     * {@code PidWeightsConfig.DEFAULT_REPORT_EXPIRY}): an agent that stopped reporting (its reports
     * stripped by a proxy, or only failures since) is not judged by an old figure forever. An
     * expired report is no report: eq. (3) falls back to the request share, as for an agent that
     * never reported.
     */
    public static final Duration DEFAULT_REPORT_EXPIRY = Duration.ofSeconds(10);
    /**
     * The smallest {@code P_i} used in eq. (1), a fraction: a host reporting 0% utilization is
     * taken as 1% busy, so its weight {@code 1 / P_i} stays finite (at most 100 times that of a
     * fully busy host).
     */
    public static final double UTILIZATION_FLOOR = 0.01;
    /**
     * FNV-1 as in the paper, 64-bit, followed by MurmurHash3's fmix64: bare FNV places labels that
     * differ only in their last character ({@code host:1}, {@code host:2}) close together on the
     * ring (splits of 197/54/49 of 300 requests were measured here), and the finalizer spreads
     * them. Plain {@link HashAlgorithm#FNV1_64} or {@link HashAlgorithm#FNV1_32} stay selectable.
     */
    public static final HashAlgorithm DEFAULT_HASH_ALGORITHM = HashAlgorithm.FNV1_64_MIXED;

    private static final double SUM_TOLERANCE = 1e-9;

    private final double capacityCpuWeight;
    private final double capacityMemoryWeight;
    private final double loadCpuWeight;
    private final double loadMemoryWeight;
    private final double loadRequestWeight;
    private final int totalVirtualNodes;
    private final double imbalanceThreshold;
    private final double settleThreshold;
    private final int cooldownWindows;
    private final double utilizationSmoothing;
    private final int maxMovesPerEvaluation;
    private final int evaluationWindow;
    private final int historySize;
    private final Duration reportExpiry;
    private final HashFunction hashFunction;

    private AdaptiveVirtualNodesConfig(Builder b) {
        this.capacityCpuWeight = b.capacityCpuWeight;
        this.capacityMemoryWeight = b.capacityMemoryWeight;
        this.loadCpuWeight = b.loadCpuWeight;
        this.loadMemoryWeight = b.loadMemoryWeight;
        this.loadRequestWeight = b.loadRequestWeight;
        this.totalVirtualNodes = b.totalVirtualNodes;
        this.imbalanceThreshold = b.imbalanceThreshold;
        this.settleThreshold = b.resolvedSettleThreshold();
        this.cooldownWindows = b.cooldownWindows;
        this.utilizationSmoothing = b.utilizationSmoothing;
        this.maxMovesPerEvaluation = b.maxMovesPerEvaluation;
        this.evaluationWindow = b.evaluationWindow;
        this.historySize = b.historySize;
        this.reportExpiry = b.reportExpiry;
        this.hashFunction = b.hashFunction;
    }

    /** The defaults ({@code DEFAULT_*}). */
    public static AdaptiveVirtualNodesConfig ofDefaults() {
        return custom().build();
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** A builder starting from {@code config}. */
    public static Builder from(AdaptiveVirtualNodesConfig config) {
        Builder b = new Builder();
        b.capacityCpuWeight = config.capacityCpuWeight;
        b.capacityMemoryWeight = config.capacityMemoryWeight;
        b.loadCpuWeight = config.loadCpuWeight;
        b.loadMemoryWeight = config.loadMemoryWeight;
        b.loadRequestWeight = config.loadRequestWeight;
        b.totalVirtualNodes = config.totalVirtualNodes;
        b.imbalanceThreshold = config.imbalanceThreshold;
        b.settleThreshold = config.settleThreshold;
        b.settleFactor = 1;
        b.cooldownWindows = config.cooldownWindows;
        b.utilizationSmoothing = config.utilizationSmoothing;
        b.maxMovesPerEvaluation = config.maxMovesPerEvaluation;
        b.evaluationWindow = config.evaluationWindow;
        b.historySize = config.historySize;
        b.reportExpiry = config.reportExpiry;
        b.hashFunction = config.hashFunction;
        return b;
    }

    /** {@code a_c} of eq. (1), fraction 0..1. */
    public double capacityCpuWeight() {
        return capacityCpuWeight;
    }

    /** {@code a_m} of eq. (1), fraction 0..1; {@code a_c + a_m = 1}. */
    public double capacityMemoryWeight() {
        return capacityMemoryWeight;
    }

    /** {@code b_c} of eq. (3), fraction 0..1. */
    public double loadCpuWeight() {
        return loadCpuWeight;
    }

    /** {@code b_m} of eq. (3), fraction 0..1. */
    public double loadMemoryWeight() {
        return loadMemoryWeight;
    }

    /** {@code b_t} of eq. (3), fraction 0..1; {@code b_c + b_m + b_t = 1}. */
    public double loadRequestWeight() {
        return loadRequestWeight;
    }

    /**
     * {@code N} of eq. (2): virtual nodes on the ring in total when hosts are set (or start over);
     * constant under reallocation. A later membership change shrinks it by a departed host's
     * nodes and grows it by a newcomer's ({@link MembershipChange}).
     */
    public int totalVirtualNodes() {
        return totalVirtualNodes;
    }

    /** The threshold on S (fraction, in (0, 1)): moves start when S exceeds it ({@link MoveGuard}). */
    public double imbalanceThreshold() {
        return imbalanceThreshold;
    }

    /**
     * The level (fraction, in (0, {@link #imbalanceThreshold()}]) S must come down to for moves,
     * once started, to stop ({@link MoveGuard}, {@link Reallocation}).
     */
    public double settleThreshold() {
        return settleThreshold;
    }

    /** Evaluations (>= 0) without moves after an evaluation that moved virtual nodes ({@link MoveGuard}). */
    public int cooldownWindows() {
        return cooldownWindows;
    }

    /**
     * Weight (fraction, in (0, 1]) of the newest window's mean CPU and memory report in the
     * smoothed utilization of eq. (3); 1 uses the window's mean alone.
     */
    public double utilizationSmoothing() {
        return utilizationSmoothing;
    }

    /** Virtual nodes moved at most per evaluation (>= 1). */
    public int maxMovesPerEvaluation() {
        return maxMovesPerEvaluation;
    }

    /** Requests per evaluation window (>= 1). */
    public int evaluationWindow() {
        return evaluationWindow;
    }

    /** Keyed requests (>= 1) whose ring positions each evaluation replays: the last ones recorded. */
    public int historySize() {
        return historySize;
    }

    /**
     * Age (> 0) after which an agent's latest load report is dropped: at an evaluation, an agent
     * whose latest report is older has no CPU and memory in eq. (3).
     */
    public Duration reportExpiry() {
        return reportExpiry;
    }

    /** The hash function placing virtual nodes and keys. */
    public HashFunction hashFunction() {
        return hashFunction;
    }

    @Override
    public String toString() {
        return "AdaptiveVirtualNodesConfig[a_c=" + capacityCpuWeight + ", a_m=" + capacityMemoryWeight
                + ", b_c=" + loadCpuWeight + ", b_m=" + loadMemoryWeight + ", b_t=" + loadRequestWeight
                + ", N=" + totalVirtualNodes + ", threshold=" + imbalanceThreshold
                + ", settleThreshold=" + settleThreshold + ", cooldownWindows=" + cooldownWindows
                + ", utilizationSmoothing=" + utilizationSmoothing
                + ", maxMovesPerEvaluation=" + maxMovesPerEvaluation + ", evaluationWindow=" + evaluationWindow
                + ", historySize=" + historySize + ", reportExpiry=" + reportExpiry + ", hash=" + hashFunction + "]";
    }

    /** Builds an {@link AdaptiveVirtualNodesConfig}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private double capacityCpuWeight = DEFAULT_CAPACITY_CPU_WEIGHT;
        private double capacityMemoryWeight = DEFAULT_CAPACITY_MEMORY_WEIGHT;
        private double loadCpuWeight = DEFAULT_LOAD_CPU_WEIGHT;
        private double loadMemoryWeight = DEFAULT_LOAD_MEMORY_WEIGHT;
        private double loadRequestWeight = DEFAULT_LOAD_REQUEST_WEIGHT;
        private int totalVirtualNodes = DEFAULT_TOTAL_VIRTUAL_NODES;
        private double imbalanceThreshold = DEFAULT_IMBALANCE_THRESHOLD;
        private double settleThreshold = Double.NaN;
        private double settleFactor = DEFAULT_SETTLE_FACTOR;
        private int cooldownWindows = DEFAULT_COOLDOWN_WINDOWS;
        private double utilizationSmoothing = DEFAULT_UTILIZATION_SMOOTHING;
        private int maxMovesPerEvaluation = DEFAULT_MAX_MOVES_PER_EVALUATION;
        private int evaluationWindow = DEFAULT_EVALUATION_WINDOW;
        private int historySize = DEFAULT_HISTORY_SIZE;
        private Duration reportExpiry = DEFAULT_REPORT_EXPIRY;
        private HashFunction hashFunction = DEFAULT_HASH_ALGORITHM;

        private Builder() {
        }

        /**
         * {@code a_c} and {@code a_m} of eq. (1), each in [0, 1], summing to 1.
         *
         * @throws IllegalArgumentException if a weight is outside [0, 1] or they do not sum to 1
         */
        public Builder capacityWeights(double cpu, double memory) {
            requireWeight("capacityCpuWeight", cpu);
            requireWeight("capacityMemoryWeight", memory);
            if (Math.abs(cpu + memory - 1) > SUM_TOLERANCE) {
                throw new IllegalArgumentException("capacityCpuWeight + capacityMemoryWeight must be 1, was "
                        + cpu + " + " + memory);
            }
            this.capacityCpuWeight = cpu;
            this.capacityMemoryWeight = memory;
            return this;
        }

        /**
         * {@code b_c}, {@code b_m} and {@code b_t} of eq. (3), each in [0, 1], summing to 1.
         *
         * @throws IllegalArgumentException if a weight is outside [0, 1] or they do not sum to 1
         */
        public Builder loadWeights(double cpu, double memory, double requests) {
            requireWeight("loadCpuWeight", cpu);
            requireWeight("loadMemoryWeight", memory);
            requireWeight("loadRequestWeight", requests);
            if (Math.abs(cpu + memory + requests - 1) > SUM_TOLERANCE) {
                throw new IllegalArgumentException("loadCpuWeight + loadMemoryWeight + loadRequestWeight must be 1, was "
                        + cpu + " + " + memory + " + " + requests);
            }
            this.loadCpuWeight = cpu;
            this.loadMemoryWeight = memory;
            this.loadRequestWeight = requests;
            return this;
        }

        /**
         * {@code N} of eq. (2), >= 1; it must also be at least the number of hosts, checked when
         * hosts are set.
         *
         * @throws IllegalArgumentException if {@code totalVirtualNodes < 1}
         */
        public Builder totalVirtualNodes(int totalVirtualNodes) {
            if (totalVirtualNodes < 1) {
                throw new IllegalArgumentException("totalVirtualNodes must be >= 1, was " + totalVirtualNodes);
            }
            this.totalVirtualNodes = totalVirtualNodes;
            return this;
        }

        /**
         * The threshold on S, a fraction in the open interval (0, 1).
         *
         * @throws IllegalArgumentException if it is not in (0, 1)
         */
        public Builder imbalanceThreshold(double threshold) {
            if (!(threshold > 0 && threshold < 1)) {
                throw new IllegalArgumentException("imbalanceThreshold must be in (0, 1), was " + threshold);
            }
            this.imbalanceThreshold = threshold;
            return this;
        }

        /**
         * The level S must come down to for moves, once started, to stop: a fraction in (0, 1),
         * checked against {@link #imbalanceThreshold} by {@link #build()}. Equal to the threshold,
         * there is no hysteresis (the paper's rule). Unset, {@link #DEFAULT_SETTLE_FACTOR} times
         * the threshold.
         *
         * @throws IllegalArgumentException if it is not in (0, 1)
         */
        public Builder settleThreshold(double threshold) {
            if (!(threshold > 0 && threshold < 1)) {
                throw new IllegalArgumentException("settleThreshold must be in (0, 1), was " + threshold);
            }
            this.settleThreshold = threshold;
            return this;
        }

        /**
         * Evaluations without moves after one that moved, >= 0 (0: none, the paper's rule).
         *
         * @throws IllegalArgumentException if {@code windows < 0}
         */
        public Builder cooldownWindows(int windows) {
            if (windows < 0) {
                throw new IllegalArgumentException("cooldownWindows must be >= 0, was " + windows);
            }
            this.cooldownWindows = windows;
            return this;
        }

        /**
         * Weight of the newest window's mean report in the smoothed utilization, in (0, 1]
         * (1: no smoothing).
         *
         * @throws IllegalArgumentException if it is not in (0, 1]
         */
        public Builder utilizationSmoothing(double weight) {
            if (!(weight > 0 && weight <= 1)) {
                throw new IllegalArgumentException("utilizationSmoothing must be in (0, 1], was " + weight);
            }
            this.utilizationSmoothing = weight;
            return this;
        }

        /**
         * The paper's rule without our guards: moves whenever S exceeds the threshold
         * ({@code settleThreshold = imbalanceThreshold}), no cooldown, no smoothing, one move
         * per evaluation. For reproducing the paper's experiments.
         */
        public Builder paperRule() {
            this.settleThreshold = Double.NaN;
            this.settleFactor = 1;
            this.cooldownWindows = 0;
            this.utilizationSmoothing = 1;
            this.maxMovesPerEvaluation = 1;
            return this;
        }

        /**
         * Virtual nodes moved at most per evaluation, >= 1.
         *
         * @throws IllegalArgumentException if {@code moves < 1}
         */
        public Builder maxMovesPerEvaluation(int moves) {
            if (moves < 1) {
                throw new IllegalArgumentException("maxMovesPerEvaluation must be >= 1, was " + moves);
            }
            this.maxMovesPerEvaluation = moves;
            return this;
        }

        /**
         * Requests per evaluation window, >= 1.
         *
         * @throws IllegalArgumentException if {@code requests < 1}
         */
        public Builder evaluationWindow(int requests) {
            if (requests < 1) {
                throw new IllegalArgumentException("evaluationWindow must be >= 1, was " + requests);
            }
            this.evaluationWindow = requests;
            return this;
        }

        /**
         * Keyed requests whose positions each evaluation replays, >= 1.
         *
         * @throws IllegalArgumentException if {@code requests < 1}
         */
        public Builder historySize(int requests) {
            if (requests < 1) {
                throw new IllegalArgumentException("historySize must be >= 1, was " + requests);
            }
            this.historySize = requests;
            return this;
        }

        /**
         * Age after which an agent's latest load report is dropped, > 0.
         *
         * @throws IllegalArgumentException if null, zero or negative
         */
        public Builder reportExpiry(Duration reportExpiry) {
            if (reportExpiry == null || reportExpiry.isZero() || reportExpiry.isNegative()) {
                throw new IllegalArgumentException("reportExpiry must be > 0, was " + reportExpiry);
            }
            this.reportExpiry = reportExpiry;
            return this;
        }

        /** The hash function placing virtual nodes and keys. */
        public Builder hashFunction(HashFunction hashFunction) {
            this.hashFunction = Objects.requireNonNull(hashFunction, "hashFunction");
            return this;
        }

        /** The hash function by name ({@link HashAlgorithm#fromName}). */
        public Builder hashFunction(String name) {
            return hashFunction(HashAlgorithm.fromName(name));
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException if {@code settleThreshold > imbalanceThreshold}
         */
        public AdaptiveVirtualNodesConfig build() {
            double settle = resolvedSettleThreshold();
            if (settle > imbalanceThreshold) {
                throw new IllegalArgumentException("settleThreshold must be <= imbalanceThreshold (" + imbalanceThreshold
                        + "), was " + settle);
            }
            return new AdaptiveVirtualNodesConfig(this);
        }

        private double resolvedSettleThreshold() {
            return Double.isNaN(settleThreshold) ? settleFactor * imbalanceThreshold : settleThreshold;
        }

        private static void requireWeight(String field, double value) {
            if (!(value >= 0 && value <= 1)) {
                throw new IllegalArgumentException(field + " must be in [0, 1], was " + value);
            }
        }
    }
}
