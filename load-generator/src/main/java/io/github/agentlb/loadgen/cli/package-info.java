/**
 * The command line: the jar's main class ({@link io.github.agentlb.loadgen.cli.Launcher}, which starts
 * {@link io.github.agentlb.loadgen.cli.LoadGeneratorMain}), its options, and the jobs it runs (embedded
 * agents, paced runs, a running balancer at {@code --url}), which hand each result to the report writers.
 */
package io.github.agentlb.loadgen.cli;
