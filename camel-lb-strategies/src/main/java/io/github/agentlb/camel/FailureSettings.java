package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.Durations;
import io.github.agentlb.core.health.OutlierEjection;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The knobs of failover, answer classes and outlier ejection, on every balancer: the JavaBean face
 * of {@link BalancerConfig#failover()}, {@link BalancerConfig#answers()} and
 * {@link BalancerConfig#ejection()} (when a knob takes effect: {@link Configurable}).
 *
 * <h2>Failover</h2>
 * Each attempt runs on a fresh copy of the exchange. A failure before the request was sent
 * (refused, connect timeout) always goes to the next candidate; a failure after it was sent (read
 * timeout, reset, closed without answer) only for idempotent methods; an answer timeout only with
 * {@link #setFailOverOnAnswerTimeout} and an idempotent method; an answer, even an HTTP error, is
 * never retried ({@link FailoverPolicy}). The next candidate follows the strategy's own
 * distribution over the agents left. When every candidate failed the exchange fails with one
 * {@link NoAgentAvailableException}. Children should have no redelivery of their own
 * ({@code .errorHandler(noErrorHandler())}), or a dead agent is retried before failover sees it.
 *
 * <h2>Answers</h2>
 * A busy agent (429, 503 with {@code Retry-After}) rests until its {@code Retry-After} and the
 * request goes to another agent when that is safe; when every agent is busy the client gets the
 * busy answer with the shortest rest left as its {@code Retry-After} ({@link AgentsBusyException}
 * when no agent was asked). An error answer (500, 502, 503, 504 by default) is passed on and counts
 * toward ejection by consecutive error answers ({@link AnswerRules}).
 *
 * <h2>Outlier ejection</h2>
 * After {@link #setConsecutiveFailures consecutiveFailures} failed attempts in a row (default 1, as
 * nginx's {@code max_fails}) an agent is ejected for 10 s, doubling with each repeated ejection up
 * to 300 s; then one request tries it, and success re-admits it. Ejected agents are skipped and
 * tried only when no other agent is left, so ejection never answers 503 without trying. A new
 * ejection configuration forgets earlier ejections. Costs one emptiness check per exchange while
 * nobody is ejected.
 */
public interface FailureSettings extends Configurable {

    /** @return the outlier ejection rules in use ({@link OutlierEjection#ofDefaults()} unless set) */
    default OutlierEjection getOutlierEjection() {
        return balancerConfig().ejection();
    }

    /** Sets the outlier ejection rules; {@link OutlierEjection#disabled()} turns ejection off. */
    default void setOutlierEjection(OutlierEjection outlierEjection) {
        java.util.Objects.requireNonNull(outlierEjection, "outlierEjection");
        configure("outlierEjection", outlierEjection, d -> d.ejection(outlierEjection));
    }

    /** Failed attempts in a row that eject an agent, >= 1, default 1. */
    default void setConsecutiveFailures(int consecutiveFailures) {
        configure("consecutiveFailures", consecutiveFailures, d -> d.ejection().consecutiveFailures(consecutiveFailures));
    }

    default int getConsecutiveFailures() {
        return configured("consecutiveFailures", getOutlierEjection().consecutiveFailures());
    }

    /** Error answers in a row that eject an agent, default 5 as Envoy's {@code consecutive_5xx}, 0 for never. */
    default void setConsecutiveErrorAnswers(int consecutiveErrorAnswers) {
        configure("consecutiveErrorAnswers", consecutiveErrorAnswers,
                d -> d.ejection().consecutiveErrorAnswers(consecutiveErrorAnswers));
    }

    default int getConsecutiveErrorAnswers() {
        return configured("consecutiveErrorAnswers", getOutlierEjection().consecutiveErrorAnswers());
    }

    /** The first ejection's length, > 0, default 10 s ({@code 10s} or {@code PT10S} in YAML). */
    default void setBaseEjectionTime(Duration baseEjectionTime) {
        configure("baseEjectionTime", baseEjectionTime, d -> d.ejection().baseEjectionTime(baseEjectionTime));
    }

    /** {@link #setBaseEjectionTime(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setBaseEjectionTime(String baseEjectionTime) {
        setBaseEjectionTime(Durations.parse("baseEjectionTime", baseEjectionTime));
    }

    default Duration getBaseEjectionTime() {
        return configured("baseEjectionTime", getOutlierEjection().baseEjectionTime());
    }

    /** The longest ejection, default 300 s, at least the base ejection time. */
    default void setMaxEjectionTime(Duration maxEjectionTime) {
        configure("maxEjectionTime", maxEjectionTime, d -> d.ejection().maxEjectionTime(maxEjectionTime));
    }

    /** {@link #setMaxEjectionTime(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setMaxEjectionTime(String maxEjectionTime) {
        setMaxEjectionTime(Durations.parse("maxEjectionTime", maxEjectionTime));
    }

    default Duration getMaxEjectionTime() {
        return configured("maxEjectionTime", getOutlierEjection().maxEjectionTime());
    }

    /** The largest share of agents ejected at once, fraction 0..1 (0 turns ejection off), default 1. */
    default void setMaxEjectedShare(double maxEjectedShare) {
        configure("maxEjectedShare", maxEjectedShare, d -> d.ejection().maxEjectedShare(maxEjectedShare));
    }

    default double getMaxEjectedShare() {
        return configured("maxEjectedShare", getOutlierEjection().maxEjectedShare());
    }

    /** @return when exchanges fail over ({@link FailoverPolicy#DEFAULT} unless set) */
    default FailoverPolicy getFailoverPolicy() {
        return balancerConfig().failover();
    }

    /** Sets when exchanges fail over. */
    default void setFailoverPolicy(FailoverPolicy failoverPolicy) {
        java.util.Objects.requireNonNull(failoverPolicy, "failoverPolicy");
        configure("failoverPolicy", failoverPolicy, d -> d.failover(failoverPolicy));
    }

    /**
     * Further attempts after the first (Camel's {@code FailoverLoadBalancer} option): -1 (default)
     * tries every agent once, 0 never fails over.
     *
     * @throws IllegalArgumentException if below -1
     */
    default void setMaximumFailoverAttempts(int maximumFailoverAttempts) {
        configure("maximumFailoverAttempts", maximumFailoverAttempts,
                d -> d.failover(d.failover().withMaximumFailoverAttempts(maximumFailoverAttempts)));
    }

    default int getMaximumFailoverAttempts() {
        return getFailoverPolicy().maximumFailoverAttempts();
    }

    /**
     * No failover attempt starts later than this after the exchange's first attempt, backoff waits
     * included ({@link RetryBudgetSettings}); zero (default) for none.
     */
    default void setFailoverDeadline(Duration failoverDeadline) {
        configure("failoverDeadline", failoverDeadline, d -> d.failover(d.failover().withDeadline(failoverDeadline)));
    }

    /** {@link #setFailoverDeadline(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setFailoverDeadline(String failoverDeadline) {
        setFailoverDeadline(Durations.parse("failoverDeadline", failoverDeadline));
    }

    default Duration getFailoverDeadline() {
        return getFailoverPolicy().deadline();
    }

    /**
     * HTTP methods sent to another agent after a failure that may have reached the first (default
     * GET, HEAD, OPTIONS, TRACE, PUT, DELETE: RFC 9110 section 9.2.2).
     *
     * @throws IllegalArgumentException if null, or a method is blank or not a token
     */
    default void setIdempotentMethods(Collection<String> idempotentMethods) {
        Set<String> methods = Collections.unmodifiableSet(
                new LinkedHashSet<>(Check.notNull("idempotentMethods", idempotentMethods)));
        configure("idempotentMethods", methods, d -> d.failover(d.failover().withIdempotentMethods(methods)));
    }

    /**
     * The idempotent methods as text, comma separated ({@code GET,HEAD}): the form YAML and properties reach.
     *
     * @throws IllegalArgumentException if null, or a method is blank or not a token, naming the text as given
     */
    default void setIdempotentMethods(String idempotentMethods) {
        setIdempotentMethods(FailoverPolicy.methodsOf(idempotentMethods));
    }

    /** @return the idempotent methods, upper case */
    default Set<String> getIdempotentMethods() {
        return getFailoverPolicy().idempotentMethods();
    }

    /**
     * Whether an idempotent request whose answer did not begin within the child's first-byte
     * timeout goes to another agent (default false: a slow agent is usually a busy one, and a
     * call that may be running costs money).
     */
    default void setFailOverOnAnswerTimeout(boolean failOver) {
        configure("failOverOnAnswerTimeout", failOver, d -> d.failover(d.failover().withFailOverOnAnswerTimeout(failOver)));
    }

    default boolean isFailOverOnAnswerTimeout() {
        return getFailoverPolicy().failOverOnAnswerTimeout();
    }

    /** @return how answers are classified ({@link AnswerRules#DEFAULT} unless set) */
    default AnswerRules getAnswerRules() {
        return balancerConfig().answers();
    }

    /** Sets how answers are classified (busy, error answer). */
    default void setAnswerRules(AnswerRules answerRules) {
        java.util.Objects.requireNonNull(answerRules, "answerRules");
        configure("answerRules", answerRules, d -> d.allAnswers(answerRules));
    }

    /**
     * The HTTP statuses that are error answers, comma separated ({@code 500,502,503,504} by
     * default; a 503 with {@code Retry-After} is busy instead).
     *
     * @throws IllegalArgumentException if null, or one is not a status from 500 to 599
     */
    default void setErrorStatuses(String statuses) {
        Set<Integer> parsed = AnswerRules.parseStatuses("errorStatuses", statuses);
        configure("errorStatuses", statuses, d -> d.answers(d.answers().withErrorStatuses(parsed)));
    }

    default String getErrorStatuses() {
        return AnswerRules.formatStatuses(getAnswerRules().errorStatuses());
    }

    /** How long a busy agent rests when its answer has no usable {@code Retry-After}, > 0, default 1 s. */
    default void setDefaultRest(Duration defaultRest) {
        configure("defaultRest", defaultRest, d -> d.defaultRest(defaultRest));
    }

    /** {@link #setDefaultRest(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setDefaultRest(String defaultRest) {
        setDefaultRest(Durations.parse("defaultRest", defaultRest));
    }

    default Duration getDefaultRest() {
        return configured("defaultRest", getAnswerRules().defaultRest());
    }

    /** The longest rest a {@code Retry-After} can ask for, default 60 s, at least the default rest. */
    default void setMaxRest(Duration maxRest) {
        configure("maxRest", maxRest, d -> d.maxRest(maxRest));
    }

    /** {@link #setMaxRest(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setMaxRest(String maxRest) {
        setMaxRest(Durations.parse("maxRest", maxRest));
    }

    default Duration getMaxRest() {
        return configured("maxRest", getAnswerRules().maxRest());
    }

    /**
     * Whether an agent's 503 with {@code Retry-After} means the request was not processed, so a
     * non-idempotent request may go to another agent (default false: only idempotent ones).
     */
    default void setBusy503Unprocessed(boolean unprocessed) {
        configure("busy503Unprocessed", unprocessed, d -> d.answers(d.answers().withBusy503Unprocessed(unprocessed)));
    }

    default boolean isBusy503Unprocessed() {
        return getAnswerRules().busy503Unprocessed();
    }
}
