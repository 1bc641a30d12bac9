/**
 * Hedged requests: when an idempotent request has no answer head after a delay, the same request
 * goes to a second agent and the first answer head wins ({@link io.github.agentlb.core.hedge.HedgePolicy});
 * the delay is fixed or a percentile of recent first-byte times ({@link io.github.agentlb.core.hedge.HedgeDelay}).
 * After J. Dean and L. A. Barroso, "The Tail at Scale", CACM 56(2), 2013.
 */
package io.github.agentlb.core.hedge;
