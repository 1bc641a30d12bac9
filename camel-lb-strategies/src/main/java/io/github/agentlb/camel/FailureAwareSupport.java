package io.github.agentlb.camel;

import io.github.agentlb.core.Durations;
import io.github.agentlb.core.health.OutlierDetector;
import io.github.agentlb.core.health.OutlierEjection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.processor.loadbalancer.LoadBalancerSupport;
import org.apache.camel.support.ExchangeHelper;

/**
 * The failure-aware part of every balancer: when an exchange fails over and when an agent is
 * ejected, with their knobs as JavaBean properties (so YAML {@code beans:} and
 * {@code camel.beans.*} properties reach them on every strategy). The work itself is done by
 * {@link Attempts}, {@link FailureClassifier} and {@link OutlierDetector}.
 *
 * <h2>Failover</h2>
 * Each attempt runs on a fresh copy of the exchange ({@link ExchangeHelper#createCopy}) whose
 * load-report headers ({@code reportHeaders()}) are removed, so a client cannot write an agent's
 * report. {@link FailureClassifier} tells each outcome: a failure before the request was sent
 * (refused, connect timeout) always goes to the next candidate; a failure after it was sent (read
 * timeout, reset, closed without answer) only for idempotent methods; an answer, even an HTTP
 * error, is never retried ({@link FailoverPolicy}, {@link #setMaximumFailoverAttempts},
 * {@link #setFailoverDeadline}, {@link #setIdempotentMethods}). The next candidate follows the
 * strategy's own distribution over the agents left (see each strategy). When every candidate
 * failed the exchange fails with one {@link NoAgentAvailableException}. The callback runs exactly
 * once, whatever throws; no thread blocks. Children should have no redelivery of their own
 * ({@code .errorHandler(noErrorHandler())}), or a dead agent is retried before failover sees it.
 *
 * <h2>Answers</h2>
 * An answer is classified by {@link AnswerRules}: a busy agent (429, 503 with {@code Retry-After})
 * rests until its {@code Retry-After} and the request goes to another agent when that is safe;
 * when every agent is busy the client gets the busy answer with the shortest rest left as its
 * {@code Retry-After} ({@link AgentsBusyException} when no agent was asked). An error answer
 * (500, 502, 503, 504 by default) is passed on and counts toward ejection by consecutive error
 * answers (default 5, Envoy's {@code consecutive_5xx}). Knobs: {@link #setErrorStatuses},
 * {@link #setDefaultRest}, {@link #setMaxRest}, {@link #setBusy503Unprocessed},
 * {@link #setConsecutiveErrorAnswers}.
 *
 * <h2>Outlier ejection</h2>
 * After {@link OutlierEjection#consecutiveFailures()} failed attempts in a row (default 1, as
 * nginx's {@code max_fails}) an agent is ejected for 10 s, doubling with each repeated ejection
 * up to 300 s; then one request tries it, and success re-admits it ({@link OutlierDetector},
 * {@link #setOutlierEjection}). Ejected agents are skipped (ring strategies go on clockwise) and
 * tried only when no other agent is left, so ejection never answers 503 without trying. Per
 * balancer instance; costs one volatile read per exchange while nobody is ejected.
 *
 *
 * <p>The ejection knobs set one by one ({@link #setConsecutiveFailures} ...) are applied when the
 * balancer starts, so they can be set in any order; {@link #setOutlierEjection} and the failover
 * knobs take effect at once. Thread-safe. Over 300 lines: each knob is a JavaBean pair with
 * its unit and default, so that YAML, XML and properties reach it on every strategy.
 */
public abstract class FailureAwareSupport extends LoadBalancerSupport {

    private final Settings<OutlierEjection.Builder> ejectionSettings = new Settings<>(this::isRunning);
    private volatile LongSupplier nanoClock = System::nanoTime;
    private volatile LongSupplier epochClock = System::currentTimeMillis;
    private final java.util.concurrent.atomic.AtomicLong restingUntil = new java.util.concurrent.atomic.AtomicLong();
    private volatile OutlierDetector detector = new OutlierDetector(OutlierEjection.ofDefaults(), this::nanoTime);
    private volatile FailoverPolicy failoverPolicy = FailoverPolicy.DEFAULT;
    private volatile AnswerRules answerRules = AnswerRules.DEFAULT;

    /** The agent ids, in child order; an immutable snapshot. */
    public abstract List<String> getAgentIds();

    /** @deprecated the same as {@link #getAgentIds()}, the one name kept */
    @Deprecated
    public List<String> agentIds() {
        return getAgentIds();
    }

    /** The state requests read now. */
    public abstract BalancerState balancerState();

    /** Publishes a new state after a setting that requests read changed (ejection rules, failover policy). */
    abstract void settingsChanged();

    /**
     * Applies the JavaBean settings made since the last start, when the balancer starts and
     * before the agents are handed to the strategy again. Strategies override it (and call
     * {@code super}) to build their configuration.
     *
     * @throws IllegalArgumentException naming the field and value of a bad setting
     */
    protected void applySettings() {
        if (!ejectionSettings.isEmpty()) {
            setOutlierEjection(ejectionSettings.applyTo(getOutlierEjection().toBuilder()).build());
        }
    }

    /** @deprecated the same as {@link #getEjectedAgents()}, the one name kept */
    @Deprecated
    public Set<String> ejectedAgents() {
        return getEjectedAgents();
    }
    /**
     * Whether a request now would find an agent not known to be failing: healthy, on trial, or
     * ejected with its time up ({@link OutlierDetector#hasAgentToTry()}). False with no agent,
     * or while every agent serves an ejection or, kept in by the ejection cap, has failed within
     * the last base ejection time (requests are still sent then, in panic). A readiness check can
     * use it to take this balancer's route out of an outer balancer's rotation: it turns true
     * again by itself within a base ejection time, without traffic. O(agents); thread-safe.
     */
    public boolean hasAgentToTry() {
        return detector.hasAgentToTry();
    }

    /** The agents ejected (or on trial) now, sorted; empty while all are healthy. */
    @ManagedAttribute(description = "Agents ejected by outlier detection (or on trial) now")
    public Set<String> getEjectedAgents() {
        return detector.ejected();
    }
    /** @return the outlier ejection rules in use ({@link OutlierEjection#ofDefaults()} unless set) */
    public OutlierEjection getOutlierEjection() {
        return detector.config();
    }

    /**
     * Sets the outlier ejection rules; {@link OutlierEjection#disabled()} turns ejection off.
     * Takes effect at once, forgetting earlier ejections.
     */
    public void setOutlierEjection(OutlierEjection outlierEjection) {
        Objects.requireNonNull(outlierEjection, "outlierEjection");
        synchronized (this) {
            OutlierDetector replacement = new OutlierDetector(outlierEjection, this::nanoTime);
            replacement.setAgents(balancerState().members());
            detector = replacement;
            settingsChanged();
        }
    }

    /**
     * Failed attempts in a row that eject an agent ({@link OutlierEjection.Builder#consecutiveFailures}),
     * default 1; applied when the balancer starts.
     */
    public void setConsecutiveFailures(int consecutiveFailures) {
        ejectionSettings.put("consecutiveFailures", consecutiveFailures, b -> b.consecutiveFailures(consecutiveFailures));
    }

    public int getConsecutiveFailures() {
        return ejectionSettings.get("consecutiveFailures", getOutlierEjection().consecutiveFailures());
    }

    /**
     * Error answers in a row that eject an agent ({@link OutlierEjection.Builder#consecutiveErrorAnswers}),
     * default 5 as Envoy's {@code consecutive_5xx}, 0 for never; applied when the balancer starts.
     */
    public void setConsecutiveErrorAnswers(int consecutiveErrorAnswers) {
        ejectionSettings.put("consecutiveErrorAnswers", consecutiveErrorAnswers,
                b -> b.consecutiveErrorAnswers(consecutiveErrorAnswers));
    }

    public int getConsecutiveErrorAnswers() {
        return ejectionSettings.get("consecutiveErrorAnswers", getOutlierEjection().consecutiveErrorAnswers());
    }

    /** @return how answers are classified ({@link AnswerRules#DEFAULT} unless set) */
    public AnswerRules getAnswerRules() {
        return answerRules;
    }

    /** Sets how answers are classified (busy, error answer); takes effect for the next exchange. */
    public synchronized void setAnswerRules(AnswerRules answerRules) {
        this.answerRules = Objects.requireNonNull(answerRules, "answerRules");
        settingsChanged();
    }

    /**
     * The HTTP statuses that are error answers, comma separated ({@code 500,502,503,504} by
     * default; a 503 with {@code Retry-After} is busy instead).
     *
     * @throws IllegalArgumentException if one is not a status from 500 to 599
     */
    public void setErrorStatuses(String statuses) {
        setAnswerRules(answerRules.withErrorStatuses(AnswerRules.parseStatuses("errorStatuses", statuses)));
    }

    public String getErrorStatuses() {
        return AnswerRules.formatStatuses(answerRules.errorStatuses());
    }

    /** How long a busy agent rests when its answer has no usable {@code Retry-After}, default 1 s. */
    public void setDefaultRest(Duration defaultRest) {
        setAnswerRules(answerRules.withDefaultRest(defaultRest));
    }

    /**
     * {@link #setDefaultRest(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    public void setDefaultRest(String defaultRest) {
        setDefaultRest(Durations.parse("defaultRest", defaultRest));
    }

    public Duration getDefaultRest() {
        return answerRules.defaultRest();
    }

    /** The longest rest a {@code Retry-After} can ask for, default 60 s. */
    public void setMaxRest(Duration maxRest) {
        setAnswerRules(answerRules.withMaxRest(maxRest));
    }

    /**
     * {@link #setMaxRest(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    public void setMaxRest(String maxRest) {
        setMaxRest(Durations.parse("maxRest", maxRest));
    }

    public Duration getMaxRest() {
        return answerRules.maxRest();
    }

    /**
     * Whether an agent's 503 with {@code Retry-After} means the request was not processed, so a
     * non-idempotent request may go to another agent (default false: only idempotent ones).
     */
    public void setBusy503Unprocessed(boolean unprocessed) {
        setAnswerRules(answerRules.withBusy503Unprocessed(unprocessed));
    }

    public boolean isBusy503Unprocessed() {
        return answerRules.busy503Unprocessed();
    }

    /** The first ejection's length, default 10 s ({@code 10s} or {@code PT10S} in YAML); applied at start. */
    public void setBaseEjectionTime(Duration baseEjectionTime) {
        ejectionSettings.put("baseEjectionTime", baseEjectionTime, b -> b.baseEjectionTime(baseEjectionTime));
    }

    /**
     * {@link #setBaseEjectionTime(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    public void setBaseEjectionTime(String baseEjectionTime) {
        setBaseEjectionTime(Durations.parse("baseEjectionTime", baseEjectionTime));
    }

    public Duration getBaseEjectionTime() {
        return ejectionSettings.get("baseEjectionTime", getOutlierEjection().baseEjectionTime());
    }

    /** The longest ejection, default 300 s, at least the base ejection time; applied at start. */
    public void setMaxEjectionTime(Duration maxEjectionTime) {
        ejectionSettings.put("maxEjectionTime", maxEjectionTime, b -> b.maxEjectionTime(maxEjectionTime));
    }

    /**
     * {@link #setMaxEjectionTime(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    public void setMaxEjectionTime(String maxEjectionTime) {
        setMaxEjectionTime(Durations.parse("maxEjectionTime", maxEjectionTime));
    }

    public Duration getMaxEjectionTime() {
        return ejectionSettings.get("maxEjectionTime", getOutlierEjection().maxEjectionTime());
    }

    /** The largest share of agents ejected at once, fraction 0..1 (0 turns ejection off), default 1; applied at start. */
    public void setMaxEjectedShare(double maxEjectedShare) {
        ejectionSettings.put("maxEjectedShare", maxEjectedShare, b -> b.maxEjectedShare(maxEjectedShare));
    }

    public double getMaxEjectedShare() {
        return ejectionSettings.get("maxEjectedShare", getOutlierEjection().maxEjectedShare());
    }

    /** @return when exchanges fail over ({@link FailoverPolicy#DEFAULT} unless set) */
    public FailoverPolicy getFailoverPolicy() {
        return failoverPolicy;
    }

    /** Sets when exchanges fail over; takes effect for the next exchange. */
    public synchronized void setFailoverPolicy(FailoverPolicy failoverPolicy) {
        this.failoverPolicy = Objects.requireNonNull(failoverPolicy, "failoverPolicy");
        settingsChanged();
    }

    /**
     * Further attempts after the first (Camel's {@code FailoverLoadBalancer} option): -1 (default)
     * tries every agent once, 0 never fails over.
     *
     * @throws IllegalArgumentException if below -1
     */
    public synchronized void setMaximumFailoverAttempts(int maximumFailoverAttempts) {
        setFailoverPolicy(failoverPolicy.withMaximumFailoverAttempts(maximumFailoverAttempts));
    }

    /** @return further attempts after the first; -1 for every agent once */
    public int getMaximumFailoverAttempts() {
        return failoverPolicy.maximumFailoverAttempts();
    }

    /**
     * No failover attempt starts later than this after the exchange's first attempt; zero
     * (default) for no deadline.
     *
     * @throws IllegalArgumentException if null or negative
     */
    public synchronized void setFailoverDeadline(Duration failoverDeadline) {
        setFailoverPolicy(failoverPolicy.withDeadline(failoverDeadline));
    }

    /**
     * {@link #setFailoverDeadline(Duration)} from text ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h},
     * {@code PT10S} or {@code 0}): the form YAML {@code beans:} and {@code camel.beans.*} properties
     * bind, read strictly by {@link Durations#parse}.
     *
     * @throws IllegalArgumentException naming the field and the text if it is no such duration
     */
    public void setFailoverDeadline(String failoverDeadline) {
        setFailoverDeadline(Durations.parse("failoverDeadline", failoverDeadline));
    }

    /** @return the failover deadline; zero for none */
    public Duration getFailoverDeadline() {
        return failoverPolicy.deadline();
    }

    /**
     * HTTP methods sent to another agent after a failure that may have reached the first
     * (default GET, HEAD, OPTIONS, TRACE, PUT, DELETE: RFC 9110 section 9.2.2).
     *
     * @throws IllegalArgumentException if a method is blank
     */
    public synchronized void setIdempotentMethods(Collection<String> idempotentMethods) {
        setFailoverPolicy(failoverPolicy.withIdempotentMethods(Set.copyOf(idempotentMethods)));
    }

    /**
     * The idempotent methods as text, comma separated ({@code GET,HEAD}): the form YAML and
     * properties reach.
     *
     * @throws IllegalArgumentException if a method is blank
     */
    public synchronized void setIdempotentMethods(String idempotentMethods) {
        setIdempotentMethods(List.of(idempotentMethods.split(",", -1)));
    }

    /** @return the idempotent methods, upper case */
    public Set<String> getIdempotentMethods() {
        return failoverPolicy.idempotentMethods();
    }

    /** Replaces the clock of ejection times and deadlines (ns); for tests. Forgets earlier ejections. */
    void useNanoClock(LongSupplier clock) {
        this.nanoClock = Objects.requireNonNull(clock, "clock");
        setOutlierEjection(getOutlierEjection());
    }

    long nanoTime() {
        return nanoClock.getAsLong();
    }

    /** Wall-clock time, ms since the epoch, for {@code Retry-After} dates; replaceable for tests. */
    long epochMillis() {
        return epochClock.getAsLong();
    }

    /** Replaces the wall clock read for {@code Retry-After} dates; for tests. */
    void useEpochClock(LongSupplier clock) {
        this.epochClock = Objects.requireNonNull(clock, "clock");
    }

    /** Notes that an agent rests until {@code untilNanos}, so requests look at rests until then. */
    void resting(long untilNanos) {
        restingUntil.accumulateAndGet(untilNanos, (a, b) -> a == 0 || b - a > 0 ? b : a);
    }

    /** Whether some agent may be resting: one volatile read while none does. */
    boolean anyResting() {
        long until = restingUntil.get();
        if (until == 0) {
            return false;
        }
        if (until - nanoTime() <= 0) {
            restingUntil.compareAndSet(until, 0);
            return false;
        }
        return true;
    }

    OutlierDetector detector() {
        return detector;
    }

    /** Whether the balancer is starting or started: settings are refused then. */
    protected final boolean isRunning() {
        return isStarting() || isStarted();
    }
}
