package io.github.agentlb.demo;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
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
 * not be restarted. Details: {@code agents} (how many), {@code ejected} (their ids). Thread-safe.
 */
final class AgentsReadinessCheck extends AbstractHealthCheck {

    /** The check's id in Camel's health-check registry. */
    static final String ID = "agents";

    private final AgentLoadBalancerSupport balancer;

    AgentsReadinessCheck(AgentLoadBalancerSupport balancer) {
        super("agentlb", ID);
        this.balancer = Objects.requireNonNull(balancer, "balancer");
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        builder.detail("agents", balancer.agentIds().size());
        builder.detail("ejected", String.join(",", balancer.ejectedAgents()));
        if (balancer.hasAgentToTry()) {
            builder.up();
        } else {
            builder.message("every agent of the " + balancer.strategyName() + " balancer is failing").down();
        }
    }
}
