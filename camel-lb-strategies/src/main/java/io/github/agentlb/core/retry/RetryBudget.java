package io.github.agentlb.core.retry;

import io.github.agentlb.core.Check;

/**
 * Immutable configuration of a retry budget (Envoy's {@code retry_budget}): a failover attempt
 * (any attempt of a request after its first) may start only while the retries in flight stay
 * below {@code max(minRetries, share x requests in flight)}, so a brown-out, when many requests
 * fail at once, cannot multiply the load on the agents left. Unlike Envoy's, a retry after a
 * failure before send (a refused connection: the agent never saw the request) spends no budget, as
 * it adds no load: a dead agent's requests all go elsewhere. The counting is {@link RetriesInFlight}'s.
 *
 * <p>Defaults are Envoy's: {@code budget_percent} 20% and {@code min_retry_concurrency} 3.
 * {@link #UNLIMITED} turns the budget off. A record: thread-safe.
 *
 * @param share      retries in flight allowed per request in flight, fraction 0..1 (0.2)
 * @param minRetries retries in flight always allowed, whatever the requests in flight, &gt;= 0 (3)
 * @param enabled    whether the budget applies
 */
public record RetryBudget(double share, int minRetries, boolean enabled) {

    /** Default share: 20%, Envoy's {@code budget_percent}. */
    public static final double DEFAULT_SHARE = 0.2;
    /** Default retries always allowed: 3, Envoy's {@code min_retry_concurrency}. */
    public static final int DEFAULT_MIN_RETRIES = 3;
    /** 20%, at least 3. */
    public static final RetryBudget DEFAULT = new RetryBudget(DEFAULT_SHARE, DEFAULT_MIN_RETRIES, true);
    /** No budget: every failover the failover policy allows starts. */
    public static final RetryBudget UNLIMITED = new RetryBudget(DEFAULT_SHARE, DEFAULT_MIN_RETRIES, false);

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public RetryBudget {
        Check.fraction("retryBudgetShare", share);
        Check.atLeast("retryBudgetMinRetries", minRetries, 0);
    }

    /**
     * The retries that may be in flight while {@code requests} requests are: {@code max(minRetries,
     * floor(share x requests))}; unbounded when the budget is off.
     */
    public long allowed(long requests) {
        return enabled ? Math.max(minRetries, (long) Math.floor(share * requests)) : Long.MAX_VALUE;
    }

    /** @return a copy with another {@link #share()}, turned on */
    public RetryBudget withShare(double value) {
        return new RetryBudget(value, minRetries, true);
    }

    /** @return a copy with another {@link #minRetries()}, turned on */
    public RetryBudget withMinRetries(int value) {
        return new RetryBudget(share, value, true);
    }

    /** @return a copy turned on or off */
    public RetryBudget withEnabled(boolean value) {
        return new RetryBudget(share, minRetries, value);
    }
}
