/**
 * The retry budget: how many failover attempts may be in flight for the requests in flight
 * ({@link io.github.agentlb.core.retry.RetryBudget}, counted by
 * {@link io.github.agentlb.core.retry.RetriesInFlight}; after Envoy's {@code retry_budget}).
 */
package io.github.agentlb.core.retry;
