/**
 * The command line: the jar's main class ({@link io.github.agentlb.loadgen.cli.Launcher}, which starts
 * {@link io.github.agentlb.loadgen.cli.LoadGeneratorMain}) and its options; it runs the scenarios and hands
 * their results to the report writers. Packages depend downwards only: cli, report, scenario, then agents
 * and run, then stats, then config.
 */
package io.github.agentlb.loadgen.cli;
