/**
 * The fleet scenario, a job scenario: an agent joins and another is drained and comes back during
 * the run, through the balancer's membership API; its phases, key moves, timeline and report.
 */
package io.github.agentlb.loadgen.fleet;
