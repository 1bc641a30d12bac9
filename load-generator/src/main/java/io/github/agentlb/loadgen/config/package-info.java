/**
 * What a run is asked to do: the load ({@link io.github.agentlb.loadgen.config.LoadTestConfig}), the
 * requests and users ({@link io.github.agentlb.loadgen.config.Workload}), the pacing and the agents' setup
 * ({@link io.github.agentlb.loadgen.config.Scenario}). Plain values that use no other package of the generator.
 */
package io.github.agentlb.loadgen.config;
