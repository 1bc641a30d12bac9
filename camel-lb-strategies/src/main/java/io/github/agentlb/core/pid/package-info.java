/**
 * Utilization-driven weights with one PID controller per agent, after Dropbox's Robinhood:
 * {@link io.github.agentlb.core.pid.PidWeights} is the step function fed with utilization reports,
 * {@link io.github.agentlb.core.pid.PidWeightsConfig} its validated configuration.
 */
package io.github.agentlb.core.pid;
