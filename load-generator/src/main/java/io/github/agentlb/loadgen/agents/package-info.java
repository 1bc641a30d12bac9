/**
 * The agents scenario's client side: its seeded multi-turn conversations, the streamed chat client
 * that sends them, the agents' and clients' settings. Uses {@code config} and {@code stats}.
 */
package io.github.agentlb.loadgen.agents;
