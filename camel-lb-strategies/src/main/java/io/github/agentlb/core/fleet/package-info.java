/**
 * Agents as a membership source describes them ({@link io.github.agentlb.core.fleet.AgentSpec}),
 * the source and listener contracts ({@link io.github.agentlb.core.fleet.FleetSource},
 * {@link io.github.agentlb.core.fleet.FleetListener}) and slow start for joining agents
 * ({@link io.github.agentlb.core.fleet.SlowStart}). Sources themselves live in the optional
 * {@code camel-lb-fleet} and {@code camel-lb-kubernetes} modules.
 */
package io.github.agentlb.core.fleet;
