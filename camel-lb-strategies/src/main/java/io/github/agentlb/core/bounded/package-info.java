/**
 * Consistent hashing with bounded loads (Mirrokni, Thorup and Zadimoghaddam, SODA 2018) as a
 * wrapper of any ring walk: {@link io.github.agentlb.core.bounded.BoundedLoads} decides which agent
 * of the walk takes a request, {@link io.github.agentlb.core.bounded.BoundedLoad} is its
 * configuration; the ring itself is never changed.
 */
package io.github.agentlb.core.bounded;
