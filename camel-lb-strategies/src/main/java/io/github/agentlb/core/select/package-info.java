/**
 * Lock-free selection over a list of agents: strict round-robin
 * ({@link io.github.agentlb.core.select.RoundRobin}) and nginx's smooth weighted round-robin
 * ({@link io.github.agentlb.core.select.SmoothWeightedRoundRobin}).
 */
package io.github.agentlb.core.select;
