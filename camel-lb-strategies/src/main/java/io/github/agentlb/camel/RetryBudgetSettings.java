package io.github.agentlb.camel;

import io.github.agentlb.core.Durations;
import io.github.agentlb.core.retry.RetryBackoff;
import io.github.agentlb.core.retry.RetryBudget;
import io.github.agentlb.core.retry.RetriesInFlight;
import java.time.Duration;
import java.util.Objects;

/**
 * The knobs of the retry budget, on every balancer: the JavaBean face of
 * {@link BalancerConfig#retryBudget()} (when a knob takes effect: {@link Configurable}).
 *
 * <h2>Retry budget</h2>
 * A failover attempt (any attempt of a request after its first, a busy answer's included; not one
 * after a failure before send, such as a refused connection, which the agent never saw) starts
 * only while the retries in flight of the balancer stay below {@code max(retryBudgetMinRetries,
 * retryBudgetShare x requests in flight)} (Envoy's retry budget: 20%, at least 3); otherwise the
 * request ends there: with the last busy answer when it had one, else with a
 * {@link NoAgentAvailableException} whose message says the budget was spent (a JSON 503 in the
 * demo). So when many requests fail at once, retries cannot multiply the agents' load. The cap on
 * the total time spent failing over is {@link FailureSettings#setFailoverDeadline failoverDeadline}.
 * Counts: {@link #getRetries()} and {@link #getRetryBudgetExhausted()}, also as the counters
 * {@code agentlb.retries} and {@code agentlb.retry.budget.exhausted} of {@code LoadBalancerMetrics}.
 *
 * <h2>Backoff</h2>
 * Off by default. When on ({@code retryBackoffEnabled}, or setting either interval), a failover
 * that spends the retry budget (after a failure once sent, an answer timeout or a busy answer)
 * first waits a random time: the {@code n}-th such failover of a request waits uniformly in
 * {@code [0, min(retryBackoffMaxInterval, retryBackoffBaseInterval x 2^(n-1)))} ({@link RetryBackoff}:
 * full jitter, with Envoy's retry back-off defaults 25 ms and 250 ms). A failover after a failure
 * before send (a refused connection) never waits: the agent never saw the request, so retrying at
 * once adds no load to a struggling agent. No thread waits: the attempt is a task on the balancer's
 * timer ({@code agentlb-attempts}, one thread), and the retry counts in flight for the budget while
 * it waits (as Envoy's). The wait counts toward {@code failoverDeadline}: a wait that would end at or
 * after the deadline ends the failovers there, as the deadline does (the last busy answer, else a
 * {@link NoAgentAvailableException} naming {@code failoverDeadline}). The draws are seeded
 * ({@code retryBackoffSeed}): one balancer repeats its sequence of waits for one seed.
 */
public interface RetryBudgetSettings extends Configurable {

    /** @return the balancer's requests and retries in flight and its retry totals */
    RetriesInFlight retriesInFlight();

    /** @return failover attempts (retries) started since the balancer was created */
    default long getRetries() {
        return retriesInFlight().retriesStarted();
    }

    /** @return failover attempts the retry budget refused since the balancer was created */
    default long getRetryBudgetExhausted() {
        return retriesInFlight().budgetExhausted();
    }

    /** @return the retry budget in use ({@link RetryBudget#DEFAULT} unless set) */
    default RetryBudget getRetryBudget() {
        return balancerConfig().retryBudget();
    }

    /** Sets the retry budget whole; {@link RetryBudget#UNLIMITED} turns it off. */
    default void setRetryBudget(RetryBudget retryBudget) {
        Objects.requireNonNull(retryBudget, "retryBudget");
        configure("retryBudget", retryBudget, d -> d.retryBudget(retryBudget));
    }

    /** Retries in flight allowed per request in flight, fraction 0..1, default 0.2. */
    default void setRetryBudgetShare(double share) {
        configure("retryBudgetShare", share, d -> d.retryBudget(keepSwitch(d.retryBudget(), d.retryBudget().withShare(share))));
    }

    default double getRetryBudgetShare() {
        return getRetryBudget().share();
    }

    /** Retries in flight always allowed, >= 0, default 3. */
    default void setRetryBudgetMinRetries(int minRetries) {
        configure("retryBudgetMinRetries", minRetries,
                d -> d.retryBudget(keepSwitch(d.retryBudget(), d.retryBudget().withMinRetries(minRetries))));
    }

    default int getRetryBudgetMinRetries() {
        return getRetryBudget().minRetries();
    }

    /** Whether the budget applies, default true. */
    default void setRetryBudgetEnabled(boolean enabled) {
        configure("retryBudgetEnabled", enabled, d -> d.retryBudget(d.retryBudget().withEnabled(enabled)));
    }

    default boolean isRetryBudgetEnabled() {
        return getRetryBudget().enabled();
    }

    /** {@code next}, on or off as {@code current} when the budget was switched by name ({@link #setRetryBudgetEnabled}), else on. */
    private RetryBudget keepSwitch(RetryBudget current, RetryBudget next) {
        return wasSet("retryBudgetEnabled") ? next.withEnabled(current.enabled()) : next;
    }

    /** @return the backoff between failover attempts in use ({@link RetryBackoff#DISABLED} unless set) */
    default RetryBackoff getRetryBackoff() {
        return balancerConfig().retryBackoff();
    }

    /** Sets the backoff between failover attempts whole; {@link RetryBackoff#DISABLED} turns it off. */
    default void setRetryBackoff(RetryBackoff retryBackoff) {
        Objects.requireNonNull(retryBackoff, "retryBackoff");
        configure("retryBackoff", retryBackoff, d -> d.retryBackoff(retryBackoff));
    }

    /** The first backoff's ceiling, > 0, default 25 ms (Envoy's {@code base_interval}); turns backoff on unless {@code retryBackoffEnabled} was set. */
    default void setRetryBackoffBaseInterval(Duration baseInterval) {
        configure("retryBackoffBaseInterval", baseInterval,
                d -> d.retryBackoff(keepSwitch(d.retryBackoff(), d.retryBackoff().withBaseInterval(baseInterval))));
    }

    /** {@link #setRetryBackoffBaseInterval(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setRetryBackoffBaseInterval(String baseInterval) {
        setRetryBackoffBaseInterval(Durations.parse("retryBackoffBaseInterval", baseInterval));
    }

    default Duration getRetryBackoffBaseInterval() {
        return configured("retryBackoffBaseInterval", getRetryBackoff().baseInterval());
    }

    /** The largest backoff ceiling, >= the base interval, default 250 ms (Envoy's {@code max_interval}); turns backoff on unless {@code retryBackoffEnabled} was set. */
    default void setRetryBackoffMaxInterval(Duration maxInterval) {
        configure("retryBackoffMaxInterval", maxInterval,
                d -> d.retryBackoff(keepSwitch(d.retryBackoff(), d.retryBackoff().withMaxInterval(maxInterval))));
    }

    /** {@link #setRetryBackoffMaxInterval(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setRetryBackoffMaxInterval(String maxInterval) {
        setRetryBackoffMaxInterval(Durations.parse("retryBackoffMaxInterval", maxInterval));
    }

    default Duration getRetryBackoffMaxInterval() {
        return configured("retryBackoffMaxInterval", getRetryBackoff().maxInterval());
    }

    /** Seeds the backoff's draws, default {@link RetryBackoff#DEFAULT_SEED}. */
    default void setRetryBackoffSeed(long seed) {
        configure("retryBackoffSeed", seed, d -> d.retryBackoff(d.retryBackoff().withSeed(seed)));
    }

    default long getRetryBackoffSeed() {
        return getRetryBackoff().seed();
    }

    /** Whether failovers back off, default false. */
    default void setRetryBackoffEnabled(boolean enabled) {
        configure("retryBackoffEnabled", enabled, d -> d.retryBackoff(d.retryBackoff().withEnabled(enabled)));
    }

    default boolean isRetryBackoffEnabled() {
        return getRetryBackoff().enabled();
    }

    /** {@code next}, on or off as {@code current} when backoff was switched by name ({@link #setRetryBackoffEnabled}), else on. */
    private RetryBackoff keepSwitch(RetryBackoff current, RetryBackoff next) {
        return wasSet("retryBackoffEnabled") ? next.withEnabled(current.enabled()) : next;
    }
}
