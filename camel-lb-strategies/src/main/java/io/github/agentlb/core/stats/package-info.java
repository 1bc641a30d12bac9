/**
 * Summary statistics of a load distribution ({@link io.github.agentlb.core.stats.LoadStatistics}):
 * spread, variance and coefficient of variation, the one place they are computed.
 */
package io.github.agentlb.core.stats;
