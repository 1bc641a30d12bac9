/**
 * The Micrometer binding of a balancer ({@link io.github.agentlb.metrics.LoadBalancerMetrics}), kept
 * out of the algorithms. Needs {@code io.micrometer:micrometer-core}, an optional dependency of the
 * library (version managed by {@code agent-load-balancer-bom}).
 */
package io.github.agentlb.metrics;
