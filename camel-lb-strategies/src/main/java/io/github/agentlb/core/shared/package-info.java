/**
 * Learned state shared by balancer replicas: one replica (the leader) publishes a versioned
 * snapshot, the others install it whole and fall back to their own when it is missing or stale,
 * as an xDS client installs a control plane's snapshot (gRPC A119); the others send the leader
 * what they observed ({@link io.github.agentlb.core.shared.Observations}) so that it learns from
 * all the traffic. Pure: no Camel, no I/O; a
 * backend (for example {@code camel-lb-zookeeper}) implements {@link io.github.agentlb.core.shared.AllocationExchange}.
 */
package io.github.agentlb.core.shared;
