/**
 * Adaptive virtual nodes: consistent hashing whose virtual nodes are shared by capacity (paper
 * eq. (2)) and moved one at a time from the most to the least loaded agent while the imbalance
 * index S exceeds a threshold (eq. (3)), after Liu Peijin et al.
 * {@link io.github.agentlb.core.avn.AdaptiveVirtualNodes} is the algorithm,
 * {@link io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig} its validated configuration.
 */
package io.github.agentlb.core.avn;
