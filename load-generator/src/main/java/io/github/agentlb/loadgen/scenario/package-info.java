/**
 * The scenarios beyond a plain run: the hot key and an agent's failure or hang, which return their
 * results as values for the {@code report} package to write, and the interface of the job scenarios
 * ({@link io.github.agentlb.loadgen.scenario.JobScenario}) that packages of their own provide through
 * {@link java.util.ServiceLoader}.
 */
package io.github.agentlb.loadgen.scenario;
