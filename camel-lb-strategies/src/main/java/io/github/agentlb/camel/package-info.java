/**
 * The Camel face of the library: one {@link org.apache.camel.processor.loadbalancer.LoadBalancer}
 * per strategy for Camel's {@code loadBalance()} EIP. {@link io.github.agentlb.camel.RoundRobinLB},
 * {@link io.github.agentlb.camel.ConsistentHashLB}, {@link io.github.agentlb.camel.PidWeightedLB},
 * {@link io.github.agentlb.camel.AdaptiveVirtualNodeLB} and {@link io.github.agentlb.camel.LeastRequestLB}
 * are the classes a route uses, in Java ({@code .loadBalance(new ConsistentHashLB())}) or as beans
 * in YAML, XML and properties (each option is a JavaBean property, checked when the route starts).
 *
 * <p>Each strategy only picks an agent; {@link io.github.agentlb.camel.AgentLoadBalancerSupport}
 * does the rest shared by all: members and their names, failover to the next agent, outlier
 * ejection, slow start, draining and listeners. The algorithms themselves are in
 * {@code io.github.agentlb.core} and know nothing of Camel.
 */
package io.github.agentlb.camel;
