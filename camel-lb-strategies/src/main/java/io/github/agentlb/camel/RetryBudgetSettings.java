package io.github.agentlb.camel;

import io.github.agentlb.core.retry.RetryBudget;
import io.github.agentlb.core.retry.RetriesInFlight;
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
        configure("retryBudgetShare", share, d -> d.retryBudget(d.retryBudget().withShare(share)));
    }

    default double getRetryBudgetShare() {
        return getRetryBudget().share();
    }

    /** Retries in flight always allowed, >= 0, default 3. */
    default void setRetryBudgetMinRetries(int minRetries) {
        configure("retryBudgetMinRetries", minRetries, d -> d.retryBudget(d.retryBudget().withMinRetries(minRetries)));
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
}
