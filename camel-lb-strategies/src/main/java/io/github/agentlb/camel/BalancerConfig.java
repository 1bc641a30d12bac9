package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.AgentUtilization;
import io.github.agentlb.core.avn.Hysteresis;
import io.github.agentlb.core.bounded.BoundedLoad;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.hash.HashFunction;
import io.github.agentlb.core.health.ActiveHealthCheck;
import io.github.agentlb.core.hedge.HedgePolicy;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.orca.Saturation;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.core.retry.RetryBackoff;
import io.github.agentlb.core.retry.RetryBudget;
import io.github.agentlb.core.session.LearnedSessions;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.camel.Expression;
import org.apache.camel.support.builder.ExpressionBuilder;

/**
 * Everything a balancer is configured with, as one immutable record tree: each part a validated
 * record of its own. The balancer's one writer owns it
 * and publishes it in each {@link BalancerState}, so a request reads its configuration with the
 * rest of the state, in one volatile read.
 *
 * <p>Knobs ({@link Configurable}) change it one field at a time: see there for when a change takes
 * effect; {@link #with} makes a changed copy. Parts a strategy does not use (for example {@link #ring()} on {@code rr}) are kept and
 * ignored. Immutable and thread-safe.
 *
 * @param ejection     outlier ejection ({@link OutlierEjection#ofDefaults()})
 * @param failover     when an exchange goes to another agent ({@link FailoverPolicy#DEFAULT})
 * @param answers      what is a busy and what an error answer ({@link AnswerRules#DEFAULT})
 * @param saturation   the saturation gate over ORCA load reports ({@link Saturation#ofDefaults()})
 * @param reportFormat the ORCA load report format asked of agents, {@code TEXT} or {@code JSON}; null not to ask
 * @param sessions     sessions learned from answers ({@link LearnedSessions#disabled()})
 * @param slowStart    the ramp of an agent added or re-admitted ({@link SlowStart#DISABLED})
 * @param key          what keyed strategies ({@code ch}, {@code avn}) route by (header {@value Key#DEFAULT_HEADER})
 * @param boundedLoad  the load bound of keyed strategies ({@link BoundedLoad#disabled()})
 * @param ring         {@code ch}'s ring: virtual nodes per agent and hash function
 * @param leastRequest {@code lr}'s draws: seed and active request bias
 * @param pid          {@code pid}'s controllers ({@link PidWeightsConfig#ofDefaults()})
 * @param avn          {@code avn}'s algorithm and the agents' start-up utilization
 * @param healthCheck  active health checks of the agents ({@link ActiveHealthCheck#DISABLED})
 * @param retryBudget  the share of requests in flight that may be retries ({@link RetryBudget#DEFAULT})
 * @param flowControl  the per-agent concurrency limit and the queue when agents are full ({@link FlowControl#DISABLED})
 * @param retryBackoff the wait with full jitter before a failover attempt ({@link RetryBackoff#DISABLED})
 * @param hedging      hedged requests: a second agent for an idempotent request slow to answer ({@link HedgePolicy#DISABLED})
 */
public record BalancerConfig(OutlierEjection ejection, FailoverPolicy failover, AnswerRules answers,
                             Saturation saturation, String reportFormat, LearnedSessions sessions, SlowStart slowStart,
                             Key key, BoundedLoad boundedLoad, Ring ring, LeastRequest leastRequest,
                             PidWeightsConfig pid, Avn avn, ActiveHealthCheck healthCheck,
                             RetryBudget retryBudget, FlowControl flowControl, RetryBackoff retryBackoff,
                             HedgePolicy hedging) {

    /** Every part at its default. */
    public static final BalancerConfig DEFAULT = new BalancerConfig(OutlierEjection.ofDefaults(), FailoverPolicy.DEFAULT,
            AnswerRules.DEFAULT, Saturation.ofDefaults(), null, LearnedSessions.disabled(), SlowStart.DISABLED,
            Key.DEFAULT, BoundedLoad.disabled(), Ring.DEFAULT, LeastRequest.DEFAULT, PidWeightsConfig.ofDefaults(),
            Avn.DEFAULT, ActiveHealthCheck.DISABLED, RetryBudget.DEFAULT, FlowControl.DISABLED,
            RetryBackoff.DISABLED, HedgePolicy.DISABLED);

    /**
     * @throws NullPointerException     naming the part that is null
     * @throws IllegalArgumentException if {@code reportFormat} is neither null, {@code TEXT} nor {@code JSON},
     *     or the flow control's queue is on without its per-agent limit, or the retry backoff's
     *     {@code maxInterval} is below its {@code baseInterval}
     */
    public BalancerConfig {
        Objects.requireNonNull(ejection, "outlierEjection");
        Objects.requireNonNull(failover, "failoverPolicy");
        Objects.requireNonNull(answers, "answerRules");
        Objects.requireNonNull(saturation, "saturation");
        Objects.requireNonNull(sessions, "learnedSessions");
        Objects.requireNonNull(slowStart, "slowStart");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(boundedLoad, "boundedLoad");
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(leastRequest, "leastRequest");
        Objects.requireNonNull(pid, "pid");
        Objects.requireNonNull(avn, "avn");
        Objects.requireNonNull(healthCheck, "healthCheck");
        Objects.requireNonNull(retryBudget, "retryBudget");
        Objects.requireNonNull(flowControl, "flowControl").checkRelation();
        Objects.requireNonNull(retryBackoff, "retryBackoff").checkRelation();
        Objects.requireNonNull(hedging, "hedging");
        reportFormat = reportFormat(reportFormat);
    }

    /**
     * A load report format as the configuration holds it: {@code TEXT} or {@code JSON} (any case), or
     * null for {@code NONE} or null.
     *
     * @throws IllegalArgumentException for any other value, naming it
     */
    static String reportFormat(String format) {
        return format == null ? null : knobReportFormat(format);
    }

    /**
     * The {@code loadReportFormat} knob: {@code TEXT}, {@code JSON} or {@code NONE}, any case, nothing
     * else (not empty, blank or null).
     *
     * @return {@code TEXT}, {@code JSON}, or null for {@code NONE}
     * @throws IllegalArgumentException for any other value, naming the knob and the value
     */
    static String knobReportFormat(String format) {
        if (format == null) {
            throw new IllegalArgumentException("loadReportFormat must be TEXT, JSON or NONE, was null");
        }
        String f = format.toUpperCase(Locale.ROOT);
        return switch (f) {
            case "NONE" -> null;
            case "TEXT", "JSON" -> f;
            default -> throw new IllegalArgumentException("loadReportFormat must be TEXT, JSON or NONE, was '" + format + "'");
        };
    }

    /**
     * A copy with the changes {@code change} makes to a draft of this configuration, e.g.
     * {@code BalancerConfig.DEFAULT.with(d -> d.failover(FailoverPolicy.DEFAULT.withMaximumFailoverAttempts(0)))}.
     *
     * @throws IllegalArgumentException naming the field and the value when a part is out of range
     *     or a relation between fields does not hold
     */
    public BalancerConfig with(Consumer<ConfigDraft> change) {
        ConfigDraft draft = new ConfigDraft(this);
        change.accept(draft);
        return draft.build();
    }

    /**
     * What a keyed strategy routes by: a Camel expression evaluated as a String, and its name in logs.
     *
     * @param expression evaluates an exchange's key; a missing or blank key is spread round-robin
     * @param name       labels the key in logs and is what {@code getKeys()} shows, e.g. {@code user_id}
     */
    public record Key(Expression expression, String name) {
        /** The header read as the key by default. */
        public static final String DEFAULT_HEADER = "user_id";
        /** Header {@value #DEFAULT_HEADER}. */
        public static final Key DEFAULT = header(DEFAULT_HEADER);

        /** @throws NullPointerException if {@code expression} is null */
        public Key {
            Objects.requireNonNull(expression, "key");
            name = name == null || name.isBlank() ? "key" : name;
        }

        /**
         * Keys exchanges by {@code header}.
         *
         * @throws IllegalArgumentException if the header is blank
         */
        public static Key header(String header) {
            return new Key(ExpressionBuilder.headerExpression(Check.headerNameTemplate("keyHeader", header)), header);
        }
    }

    /**
     * {@code ch}'s ring.
     *
     * @param virtualNodes virtual nodes per agent, >= 1 (150 as ketama)
     * @param hashFunction places virtual nodes and keys (MD5 as ketama)
     */
    public record Ring(int virtualNodes, HashFunction hashFunction) {
        /** Virtual nodes per agent by default: 150, as in ketama and the original assignment. */
        public static final int DEFAULT_VIRTUAL_NODES = 150;
        /**
         * The most virtual nodes per agent: 10,000 (a ring of 1,000,000 points for 100 agents; the
         * ring is rebuilt on every membership change, O(agents x virtualNodes)).
         */
        public static final int MAX_VIRTUAL_NODES = 10_000;
        /**
         * The most points one agent has on the ring, {@code round(virtualNodes x weight)}: 1,000,000,
         * the most virtual nodes at weight 100, or the default 150 at any weight up to 1000 with room to
         * spare. Each point holds 16 bytes of the ring (16 MB for a million) and costs about 100 bytes
         * of short-lived garbage and one hash each time the ring is built (every change of state), so
         * a knob that would give an agent more is refused rather than blocking the balancer's writer.
         */
        public static final int MAX_POINTS_PER_AGENT = 1_000_000;
        /**
         * The most points a ring has in all: past it (many agents of large weights, an SRV fleet's),
         * each agent's points are scaled down alike to fit, as Envoy's {@code maximum_ring_size}
         * does, rather than build a ring of tens of MB on every change (about 0.8 s for a million).
         */
        public static final long MAX_RING_POINTS = 1_000_000;
        /** 150 virtual nodes per agent, MD5. */
        public static final Ring DEFAULT = new Ring(DEFAULT_VIRTUAL_NODES, HashAlgorithm.MD5);

        /** @throws IllegalArgumentException if {@code virtualNodes} is not in 1..{@value #MAX_VIRTUAL_NODES} */
        public Ring {
            Check.atMost("virtualNodes", Check.atLeast("virtualNodes", virtualNodes, 1), MAX_VIRTUAL_NODES);
            Objects.requireNonNull(hashFunction, "hashFunction");
        }

        /**
         * The points of an agent of {@code weight} on the ring: {@code max(1, round(virtualNodes x weight))}.
         *
         * @param agent  the agent's id, for the message
         * @param weight the agent's static weight, in (0, 1000]
         * @return the agent's points, 1..{@value #MAX_POINTS_PER_AGENT}
         * @throws IllegalArgumentException if more than {@value #MAX_POINTS_PER_AGENT}, naming the agent,
         *     {@code virtualNodes} and its weight
         */
        public int pointsOf(String agent, double weight) {
            long points = Math.max(1, Math.round(virtualNodes * weight));
            if (points > MAX_POINTS_PER_AGENT) {
                throw new IllegalArgumentException("virtualNodes x weight of agent " + agent + " must be <= "
                        + MAX_POINTS_PER_AGENT + " ring points, was " + virtualNodes + " x " + weight);
            }
            return (int) points;
        }
    }

    /**
     * {@code lr}'s draws.
     *
     * @param seed              seeds the draws, so one caller's sequence of decisions repeats
     * @param activeRequestBias Envoy's {@code active_request_bias}, finite and >= 0 (1.0)
     */
    public record LeastRequest(long seed, double activeRequestBias) {
        /** The seed of the draws by default. */
        public static final long DEFAULT_SEED = 0x5DEECE66DL;
        /** Envoy's default active request bias: 1.0. */
        public static final double DEFAULT_ACTIVE_REQUEST_BIAS = 1.0;
        /** The default seed and bias. */
        public static final LeastRequest DEFAULT = new LeastRequest(DEFAULT_SEED, DEFAULT_ACTIVE_REQUEST_BIAS);

        /** @throws IllegalArgumentException if the bias is negative or not finite */
        public LeastRequest {
            Check.finiteNonNegative("activeRequestBias", activeRequestBias);
        }
    }

    /**
     * {@code avn}'s algorithm and the agents' start-up utilization (eq. (1)).
     *
     * @param config             the algorithm's configuration
     * @param startupUtilization agent id to its CPU and memory utilization at start-up; agents
     *                           without one count as the average of those given, all alike when none is
     * @param settleFactor       the settle threshold's ratio to the threshold while it follows the
     *                           threshold (0.7 by default, 1 under the paper's rule); NaN once the
     *                           settle threshold was set itself
     */
    public record Avn(AdaptiveVirtualNodesConfig config, Map<String, AgentUtilization> startupUtilization,
                      double settleFactor) {
        /** {@link AdaptiveVirtualNodesConfig#ofDefaults()}, no start-up utilization. */
        public static final Avn DEFAULT = new Avn(AdaptiveVirtualNodesConfig.ofDefaults(), Map.of(),
                Hysteresis.DEFAULT_SETTLE_FACTOR);

        public Avn {
            Objects.requireNonNull(config, "config");
            startupUtilization = Map.copyOf(startupUtilization);
        }

        /** {@code config} with no start-up utilization, the settle threshold as {@code config} has it. */
        public static Avn of(AdaptiveVirtualNodesConfig config) {
            return new Avn(config, Map.of(), Double.NaN);
        }
    }
}
