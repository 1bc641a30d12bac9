package io.github.agentlb.demo;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.BalancerState;
import java.util.Map;
import java.util.Objects;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * The proxy's readiness: DOWN while every agent of its balancer is known to be failing (ejected,
 * or kept in by the ejection cap and failed within the last base ejection time), UP as soon as
 * one is healthy, on trial or due to be tried again ({@link AgentLoadBalancerSupport#hasAgentToTry()}).
 * Camel's {@code /observe/health} and {@code /observe/health/ready} then answer 503, so an outer
 * balancer or Kubernetes can take this proxy out of rotation while its agents are all down; it
 * turns UP again by itself within a base ejection time (10 s by default), without traffic, and
 * the next request finds out. Readiness only: a proxy whose agents are down is alive and should
 * not be restarted. Details: {@code agents} (how many take requests), {@code members} (their
 * ids, draining ones included), {@code draining}, {@code ejected}, {@code generation} (of the
 * balancer's state) and {@code source} (where the agents come from, when not a fixed list).
 * Thread-safe.
 */
final class AgentsReadinessCheck extends AbstractHealthCheck {

    /** The check's id in Camel's health-check registry. */
    static final String ID = "agents";

    private final AgentLoadBalancerSupport balancer;
    private final String source;

    /** @param source where the agents come from ({@code file:...}, {@code dns:...}), or null for a fixed list */
    AgentsReadinessCheck(AgentLoadBalancerSupport balancer, String source) {
        super("agentlb", ID);
        this.balancer = Objects.requireNonNull(balancer, "balancer");
        this.source = source;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        BalancerState state = balancer.balancerState();
        builder.detail("agents", state.agentIds().size());
        builder.detail("members", String.join(",", state.members()));
        builder.detail("draining", String.join(",", state.draining()));
        builder.detail("ejected", String.join(",", balancer.ejectedAgents()));
        builder.detail("generation", state.generation());
        if (source != null) {
            builder.detail("source", source);
        }
        if (balancer.hasAgentToTry()) {
            builder.up();
        } else {
            builder.message("every agent of the " + balancer.strategyName() + " balancer is failing").down();
        }
    }
}
