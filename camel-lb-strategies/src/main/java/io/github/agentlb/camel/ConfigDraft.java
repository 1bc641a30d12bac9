package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.AgentUtilization;
import io.github.agentlb.core.avn.Hysteresis;
import io.github.agentlb.core.bounded.BoundedLoad;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.health.ActiveHealthCheck;
import io.github.agentlb.core.hedge.HedgePolicy;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.orca.Saturation;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.core.retry.RetryBackoff;
import io.github.agentlb.core.retry.RetryBudget;
import io.github.agentlb.core.session.LearnedSessions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link BalancerConfig} being changed by knobs ({@link Configurable#configure}): the parts whose
 * fields are bound to each other (ejection times, saturation, {@code pid}'s and {@code avn}'s
 * configurations) as their builders, so that their knobs can be set in any order and the relation
 * is checked once, by {@link #build()}; the other parts as their records, replaced whole. Made by
 * the balancer's writer for each change, under its lock; not thread-safe.
 *
 * <p>Over 300 lines: one getter and one replacing setter per part of {@link BalancerConfig} (eighteen
 * parts), which is the point of the class: every knob edits the configuration through it.
 */
public final class ConfigDraft {

    private OutlierEjection ejectionValue;
    private OutlierEjection.Builder ejection;
    private Saturation saturationValue;
    private Saturation.Builder saturation;
    private PidWeightsConfig pidValue;
    private PidWeightsConfig.Builder pid;
    private AdaptiveVirtualNodesConfig avnValue;
    private AdaptiveVirtualNodesConfig.Builder avn;
    private final Map<String, AgentUtilization> startupUtilization;
    private double settleFactor;
    /** {@code a_c}, {@code a_m} when set one by one (checked to sum to 1 when built), else null. */
    private double[] capacityWeights;
    /** {@code b_c}, {@code b_m}, {@code b_t} when set one by one (checked to sum to 1 when built), else null. */
    private double[] loadWeights;
    private FailoverPolicy failover;
    private AnswerRules answers;
    /** Rests set since {@link #answers} was: made one {@link AnswerRules} by {@link #build}, where their relation is checked. */
    private Duration defaultRest;
    private Duration maxRest;
    private String reportFormat;
    private LearnedSessions sessions;
    private SlowStart slowStart;
    private BalancerConfig.Key key;
    private BoundedLoad boundedLoad;
    private BalancerConfig.Ring ring;
    private BalancerConfig.LeastRequest leastRequest;
    private ActiveHealthCheck healthCheck;
    private RetryBudget retryBudget;
    private FlowControl flowControl;
    private RetryBackoff retryBackoff;
    private HedgePolicy hedging;

    ConfigDraft(BalancerConfig config) {
        ejectionValue = config.ejection();
        saturationValue = config.saturation();
        pidValue = config.pid();
        avnValue = config.avn().config();
        startupUtilization = new HashMap<>(config.avn().startupUtilization());
        settleFactor = config.avn().settleFactor();
        failover = config.failover();
        answers = config.answers();
        reportFormat = config.reportFormat();
        sessions = config.sessions();
        slowStart = config.slowStart();
        key = config.key();
        boundedLoad = config.boundedLoad();
        ring = config.ring();
        leastRequest = config.leastRequest();
        healthCheck = config.healthCheck();
        retryBudget = config.retryBudget();
        flowControl = config.flowControl();
        retryBackoff = config.retryBackoff();
        hedging = config.hedging();
    }

    /**
     * The configuration drafted; a part no knob touched is the same object as before.
     *
     * @throws IllegalArgumentException naming the fields when a relation between them does not hold
     */
    BalancerConfig build() {
        if (capacityWeights != null) {
            avn().capacityWeights(capacityWeights[0], capacityWeights[1]);
        }
        if (loadWeights != null) {
            avn().loadWeights(loadWeights[0], loadWeights[1], loadWeights[2]);
        }
        AnswerRules rules = defaultRest == null && maxRest == null ? answers
                : new AnswerRules(answers.errorStatuses(), defaultRest == null ? answers.defaultRest() : defaultRest,
                        maxRest == null ? answers.maxRest() : maxRest, answers.busy503Unprocessed());
        return new BalancerConfig(ejection == null ? ejectionValue : ejection.build(), failover, rules,
                saturation == null ? saturationValue : saturation.build(), reportFormat, sessions, slowStart, key,
                boundedLoad, ring, leastRequest, pid == null ? pidValue : pid.build(),
                new BalancerConfig.Avn(avn == null ? avnValue : avn.build(), startupUtilization, settleFactor),
                healthCheck, retryBudget, flowControl, retryBackoff, hedging);
    }

    /** @return the retry budget drafted so far */
    public RetryBudget retryBudget() {
        return retryBudget;
    }

    /** Replaces the retry budget whole. */
    public ConfigDraft retryBudget(RetryBudget value) {
        retryBudget = Objects.requireNonNull(value, "retryBudget");
        return this;
    }

    /** @return the retry backoff drafted so far */
    public RetryBackoff retryBackoff() {
        return retryBackoff;
    }

    /** Replaces the retry backoff whole; {@code maxInterval >= baseInterval} is checked when built. */
    public ConfigDraft retryBackoff(RetryBackoff value) {
        retryBackoff = Objects.requireNonNull(value, "retryBackoff");
        return this;
    }

    /** @return the hedging drafted so far */
    public HedgePolicy hedging() {
        return hedging;
    }

    /** Replaces the hedging whole. */
    public ConfigDraft hedging(HedgePolicy value) {
        hedging = Objects.requireNonNull(value, "hedging");
        return this;
    }

    /** @return the active health checks drafted so far */
    public ActiveHealthCheck healthCheck() {
        return healthCheck;
    }

    /** Replaces the active health checks whole. */
    public ConfigDraft healthCheck(ActiveHealthCheck value) {
        healthCheck = Objects.requireNonNull(value, "healthCheck");
        return this;
    }

    /** Outlier ejection's knobs; {@code maxEjectionTime >= baseEjectionTime} is checked when built. */
    public OutlierEjection.Builder ejection() {
        if (ejection == null) {
            ejection = ejectionValue.toBuilder();
        }
        return ejection;
    }

    /** Replaces outlier ejection whole. */
    public ConfigDraft ejection(OutlierEjection value) {
        ejectionValue = Objects.requireNonNull(value, "outlierEjection");
        ejection = null;
        return this;
    }

    /** The saturation gate's knobs. */
    public Saturation.Builder saturation() {
        if (saturation == null) {
            saturation = saturationValue.toBuilder();
        }
        return saturation;
    }

    /** Replaces the saturation gate whole. */
    public ConfigDraft saturation(Saturation value) {
        saturationValue = Objects.requireNonNull(value, "saturation");
        saturation = null;
        return this;
    }

    /** {@code pid}'s knobs; {@code minWeight <= maxWeight} and the like are checked when built. */
    public PidWeightsConfig.Builder pid() {
        if (pid == null) {
            pid = pidValue.toBuilder();
        }
        return pid;
    }

    /** Replaces {@code pid}'s configuration whole. */
    public ConfigDraft pid(PidWeightsConfig value) {
        pidValue = Objects.requireNonNull(value, "config");
        pid = null;
        return this;
    }

    /** {@code avn}'s knobs; weights that sum to 1 and the thresholds' order are checked when built. */
    public AdaptiveVirtualNodesConfig.Builder avn() {
        if (avn == null) {
            avn = avnValue.toBuilder();
        }
        return avn;
    }

    /** Replaces {@code avn}'s configuration whole, its settle threshold as it has it. */
    public ConfigDraft avn(AdaptiveVirtualNodesConfig value) {
        avnValue = Objects.requireNonNull(value, "config");
        avn = null;
        capacityWeights = null;
        loadWeights = null;
        settleFactor = Double.NaN;
        return this;
    }

    /** {@code avn}'s {@code a_c} and {@code a_m} of eq. (1): that they sum to 1 is checked when built. */
    public ConfigDraft capacityWeights(double cpu, double memory) {
        capacityWeights = new double[] {cpu, memory};
        return this;
    }

    /** {@code avn}'s {@code b_c}, {@code b_m} and {@code b_t} of eq. (3): that they sum to 1 is checked when built. */
    public ConfigDraft loadWeights(double cpu, double memory, double requests) {
        loadWeights = new double[] {cpu, memory, requests};
        return this;
    }

    /**
     * Sets {@code avn}'s threshold on S; the settle threshold follows it at its ratio unless it was
     * set itself ({@link BalancerConfig.Avn#settleFactor()}).
     */
    public ConfigDraft imbalanceThreshold(double threshold) {
        avn().imbalanceThreshold(threshold);
        if (!Double.isNaN(settleFactor)) {
            avn().settleThreshold(settleFactor * threshold);
        }
        return this;
    }

    /** Sets {@code avn}'s settle threshold itself: it no longer follows the threshold. */
    public ConfigDraft settleThreshold(double threshold) {
        avn().settleThreshold(threshold);
        settleFactor = Double.NaN;
        return this;
    }

    /** {@code avn}'s paper rule ({@link AdaptiveVirtualNodesConfig.Builder#paperRule()}): the settle threshold is the threshold. */
    public ConfigDraft paperRule() {
        avn().paperRule();
        settleFactor = 1;
        return this;
    }

    /** The settle threshold follows {@code avn}'s threshold, set to {@code threshold}, at the default ratio again (the paper rule undone). */
    public ConfigDraft settleFollowsThreshold(double threshold) {
        settleFactor = Hysteresis.DEFAULT_SETTLE_FACTOR;
        return imbalanceThreshold(threshold);
    }

    /** {@code avn}'s agents' start-up utilization, replaced whole. */
    public ConfigDraft startupUtilization(Map<String, AgentUtilization> value) {
        startupUtilization.clear();
        startupUtilization.putAll(value);
        return this;
    }

    /** Adds one agent's start-up utilization for {@code avn}. */
    public ConfigDraft addStartupUtilization(String agentId, AgentUtilization utilization) {
        startupUtilization.put(agentId, utilization);
        return this;
    }

    public FailoverPolicy failover() {
        return failover;
    }

    public ConfigDraft failover(FailoverPolicy value) {
        failover = Objects.requireNonNull(value, "failoverPolicy");
        return this;
    }

    public AnswerRules answers() {
        return answers;
    }

    /** The answer rules, the rests set since by {@link #defaultRest} and {@link #maxRest} still applied over them at build. */
    public ConfigDraft answers(AnswerRules value) {
        answers = Objects.requireNonNull(value, "answerRules");
        return this;
    }

    /** The whole answer rules, replacing the rests set before too. */
    public ConfigDraft allAnswers(AnswerRules value) {
        answers(value);
        defaultRest = null;
        maxRest = null;
        return this;
    }

    /** The rest without a usable {@code Retry-After}; its relation to {@code maxRest} is checked by {@link #build}. */
    public ConfigDraft defaultRest(Duration value) {
        defaultRest = Check.positive("defaultRest", value);
        return this;
    }

    /** The longest rest; its relation to {@code defaultRest} is checked by {@link #build}. */
    public ConfigDraft maxRest(Duration value) {
        maxRest = Check.positive("maxRest", value);
        return this;
    }

    /**
     * @param value {@code TEXT}, {@code JSON} or {@code NONE} not to ask, any case
     * @throws IllegalArgumentException for another value (empty, blank or null included), naming {@code loadReportFormat}
     */
    public ConfigDraft reportFormat(String value) {
        reportFormat = BalancerConfig.knobReportFormat(value);
        return this;
    }

    public LearnedSessions sessions() {
        return sessions;
    }

    public ConfigDraft sessions(LearnedSessions value) {
        sessions = Objects.requireNonNull(value, "learnedSessions");
        return this;
    }

    public SlowStart slowStart() {
        return slowStart;
    }

    public ConfigDraft slowStart(SlowStart value) {
        slowStart = Objects.requireNonNull(value, "slowStart");
        return this;
    }

    public ConfigDraft key(BalancerConfig.Key value) {
        key = Objects.requireNonNull(value, "key");
        return this;
    }

    public BoundedLoad boundedLoad() {
        return boundedLoad;
    }

    public ConfigDraft boundedLoad(BoundedLoad value) {
        boundedLoad = Objects.requireNonNull(value, "boundedLoad");
        return this;
    }

    public BalancerConfig.Ring ring() {
        return ring;
    }

    public ConfigDraft ring(BalancerConfig.Ring value) {
        ring = Objects.requireNonNull(value, "ring");
        return this;
    }

    public BalancerConfig.LeastRequest leastRequest() {
        return leastRequest;
    }

    public ConfigDraft leastRequest(BalancerConfig.LeastRequest value) {
        leastRequest = Objects.requireNonNull(value, "leastRequest");
        return this;
    }

    public FlowControl flowControl() {
        return flowControl;
    }

    /** Replaces the flow control whole; its relation ({@code queueSize} needs {@code maxInFlightPerAgent}) is checked by the record. */
    public ConfigDraft flowControl(FlowControl value) {
        flowControl = Objects.requireNonNull(value, "flowControl");
        return this;
    }
}
