/**
 * An immutable consistent-hash ring of virtual nodes ({@link io.github.agentlb.core.ring.HashRing}):
 * O(log v) per key, v = total virtual nodes, and the clockwise walk of distinct owners used for
 * failover.
 */
package io.github.agentlb.core.ring;
