/**
 * What a run is asked to do: the load ({@link io.github.agentlb.loadgen.config.LoadTestConfig}), the
 * requests and users ({@link io.github.agentlb.loadgen.config.Workload}), the pacing and the agents
 * ({@link io.github.agentlb.loadgen.config.AgentSet}). Plain values that use no other package of the generator.
 */
package io.github.agentlb.loadgen.config;
