/**
 * Passive outlier ejection: consecutive failures eject an agent for a time that grows to a cap,
 * at most a share of the agents at once, re-admitted by a one-request trial
 * ({@link io.github.agentlb.core.health.OutlierDetector}, configured by
 * {@link io.github.agentlb.core.health.OutlierEjection}; after nginx and Envoy), and the state
 * machine of active health checks ({@link io.github.agentlb.core.health.HealthCheckStates},
 * configured by {@link io.github.agentlb.core.health.ActiveHealthCheck}; after Envoy and HAProxy).
 */
package io.github.agentlb.core.health;
