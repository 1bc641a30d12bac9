/**
 * What a run measured: request outcomes and the statistics, summaries and series computed from them
 * (latency, distribution over agents, stickiness, utilization, intervals, phases), and the result
 * value of one run ({@link io.github.agentlb.loadgen.stats.RunReport}). Values only; nothing here sends or writes.
 */
package io.github.agentlb.loadgen.stats;
