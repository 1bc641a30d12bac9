/**
 * The scenarios of the load test, each a {@link io.github.agentlb.loadgen.scenario.Scenario} returning a
 * {@link io.github.agentlb.loadgen.scenario.Result} per run and a {@link io.github.agentlb.loadgen.scenario.Section}
 * for the reports; what they share is {@link io.github.agentlb.loadgen.scenario.ClusterRun}'s.
 */
package io.github.agentlb.loadgen.scenario;
