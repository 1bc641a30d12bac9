/**
 * The command line: the jar's main class ({@link io.github.agentlb.loadgen.cli.LoadGeneratorMain}, which
 * restarts the JVM for a {@code --url} run) and its options; it runs the scenarios and hands their results
 * to the report writers. Packages depend downwards only: cli, report, scenario, agents, run, stats, config.
 */
package io.github.agentlb.loadgen.cli;
