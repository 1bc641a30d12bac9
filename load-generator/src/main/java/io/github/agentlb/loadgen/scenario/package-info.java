/**
 * The scenarios of the load test, each a {@link io.github.agentlb.loadgen.scenario.Scenario} (its workload,
 * agents, what it injects and its checks) returning a {@link io.github.agentlb.loadgen.scenario.Result} per
 * run and a {@link io.github.agentlb.loadgen.scenario.Section} (tables, notes, charts as data) for the
 * reports. What they share (starting the agents and proxies, the phases, the per-phase figures and lines,
 * the timeline) is {@link io.github.agentlb.loadgen.scenario.ClusterRun}'s.
 */
package io.github.agentlb.loadgen.scenario;
