/**
 * The agents scenario, a job scenario: multi-turn conversations sent as streamed chat completions
 * through the balancer to stub agents modelling an LLM server (in this JVM), or to a running
 * balancer at {@code --url}; its results, goal check and report.
 */
package io.github.agentlb.loadgen.agents;
