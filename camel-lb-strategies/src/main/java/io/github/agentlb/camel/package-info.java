/**
 * The Camel face of the library: one {@link org.apache.camel.processor.loadbalancer.LoadBalancer}
 * for Camel's {@code loadBalance()} EIP, {@link io.github.agentlb.camel.AgentLoadBalancerSupport},
 * over a {@link io.github.agentlb.camel.Strategy} that only picks agents.
 * {@link io.github.agentlb.camel.RoundRobinLB}, {@link io.github.agentlb.camel.ConsistentHashLB},
 * {@link io.github.agentlb.camel.PidWeightedLB}, {@link io.github.agentlb.camel.AdaptiveVirtualNodeLB}
 * and {@link io.github.agentlb.camel.LeastRequestLB} are the classes a route uses, in Java
 * ({@code .loadBalance(new ConsistentHashLB())}) or as beans in YAML, XML and properties.
 *
 * <p>Everything a request reads is one {@link io.github.agentlb.camel.BalancerState}, published by
 * one writer for each change: members, the {@link io.github.agentlb.camel.BalancerConfig} (every
 * knob, as validated records), the strategy's {@link io.github.agentlb.camel.Picker} and the stores
 * built from the configuration. The knobs are the JavaBean setters of the settings interfaces
 * ({@link io.github.agentlb.camel.Configurable} says when one takes effect). The attempts of an
 * exchange (failover, outlier ejection, busy agents, slow start, load reports) run on that state.
 * The algorithms themselves are in {@code io.github.agentlb.core} and know nothing of Camel.
 */
package io.github.agentlb.camel;
