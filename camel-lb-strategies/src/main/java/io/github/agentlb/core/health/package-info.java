/**
 * Passive outlier ejection: consecutive failures eject an agent for a time that grows to a cap,
 * at most a share of the agents at once, re-admitted by a one-request trial
 * ({@link io.github.agentlb.core.health.OutlierDetector}, configured by
 * {@link io.github.agentlb.core.health.OutlierEjection}; after nginx and Envoy).
 */
package io.github.agentlb.core.health;
