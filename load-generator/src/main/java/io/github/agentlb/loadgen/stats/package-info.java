/**
 * What a run measured: request outcomes and the statistics, summaries and series computed from them
 * (latency, distribution over agents, stickiness, utilization, intervals, phases, key moves, the self-check).
 * Values only, computed from what they are given; nothing here sends, reads a clock or writes.
 */
package io.github.agentlb.loadgen.stats;
