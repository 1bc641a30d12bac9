package io.github.agentlb.camel;

import io.github.agentlb.core.Durations;
import java.time.Duration;
import java.util.Objects;
import org.apache.camel.Expression;

/**
 * The knobs of what a balancer does when its agents are full ({@link FlowControl}, off by default):
 * a per-agent concurrency limit and a bounded, fair queue; when a knob takes effect: {@link Configurable}.
 *
 * <h2>The queue</h2>
 * With {@code maxInFlightPerAgent} and {@code queueSize} set, an exchange that finds every agent at
 * its limit waits in the balancer without holding a thread (its callback completes later) and is
 * released when a request of this balancer ends, by priority band (header {@link #getPriorityHeader()},
 * an integer, higher first), then within the band to the tenant ({@link #getTenantHeader()}) least
 * served so far in tokens (the Virtual Token Counter of Sheng et al., OSDI 2024: a request costs its
 * body's bytes / 4, plus the output tokens a child or route sets as exchange property
 * {@value AgentLb#OUTPUT_TOKENS_PROPERTY}, else those the answer's JSON body reports in OpenAI's
 * {@code usage}: {@link io.github.agentlb.core.queue.UsageTokens}). A released exchange is balanced as any other: its key, session or prompt takes it to its
 * agent, or under the load bound to another with room. Full queue: {@link AgentsBusyException} (429,
 * {@code Retry-After: 1}); waited past {@code queueTimeout}: {@link QueueTimeoutException} (503, or 504
 * where the route maps it first); a client that leaves ({@link QueuedExchange#leave}) is taken out at
 * once and no agent gets its request. Figures: {@link #queueFigures()}.
 */
public interface FlowControlSettings extends Configurable {

    /** @return the flow control in use ({@link FlowControl#DISABLED} unless set) */
    default FlowControl getFlowControl() {
        return balancerConfig().flowControl();
    }

    /** Sets the flow control whole. */
    default void setFlowControl(FlowControl flowControl) {
        Objects.requireNonNull(flowControl, "flowControl");
        configure("flowControl", flowControl, d -> d.flowControl(flowControl));
    }

    /** Requests in flight through this balancer an agent takes at most, >= 0 (0, the default: no limit). */
    default void setMaxInFlightPerAgent(int maxInFlight) {
        configure("maxInFlightPerAgent", maxInFlight,
                d -> d.flowControl(d.flowControl().withMaxInFlightPerAgent(maxInFlight)));
    }

    default int getMaxInFlightPerAgent() {
        return configured("maxInFlightPerAgent", getFlowControl().maxInFlightPerAgent());
    }

    /** Exchanges that wait at most when every agent is at its limit, >= 0 (0, the default: no queue); needs {@code maxInFlightPerAgent}. */
    default void setQueueSize(int queueSize) {
        configure("queueSize", queueSize, d -> d.flowControl(d.flowControl().withQueueSize(queueSize)));
    }

    default int getQueueSize() {
        return configured("queueSize", getFlowControl().queueSize());
    }

    /** The longest an exchange waits in the queue, > 0 ({@code 30s}). */
    default void setQueueTimeout(Duration timeout) {
        configure("queueTimeout", timeout, d -> d.flowControl(d.flowControl().withQueueTimeout(timeout)));
    }

    /** {@link #setQueueTimeout(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setQueueTimeout(String timeout) {
        setQueueTimeout(Durations.parse("queueTimeout", timeout));
    }

    default Duration getQueueTimeout() {
        return configured("queueTimeout", getFlowControl().queueTimeout());
    }

    /**
     * Exchanges of one tenant let through and not yet completed, at most, >= 0 (0, the default: no
     * limit); needs {@code queueSize}. While another tenant has sent within the last second, a tenant
     * at it waits in the queue even while agents have room, which stays for the other tenants: a
     * light tenant beside a heavy one finds a place at once. A tenant alone takes every place.
     */
    default void setMaxInFlightPerTenant(int maxInFlight) {
        configure("maxInFlightPerTenant", maxInFlight,
                d -> d.flowControl(d.flowControl().withMaxInFlightPerTenant(maxInFlight)));
    }

    default int getMaxInFlightPerTenant() {
        return configured("maxInFlightPerTenant", getFlowControl().maxInFlightPerTenant());
    }

    /** The header whose value is the exchange's tenant ({@value FlowControl#DEFAULT_TENANT_HEADER}). */
    default void setTenantHeader(String header) {
        configure("tenantHeader", header, d -> d.flowControl(d.flowControl().withTenantHeader(header)));
    }

    /** @return the tenant header, or the name given with {@link #setTenant} */
    default String getTenantHeader() {
        return getFlowControl().tenantName();
    }

    /** The tenant as {@code expression} evaluates it as a String (e.g. an API key's hash); {@code name} labels it. */
    default void setTenant(Expression expression, String name) {
        Objects.requireNonNull(expression, "tenant");
        configure("tenant", name, d -> d.flowControl(d.flowControl().withTenant(expression, name)));
    }

    /** The header whose integer value is the exchange's priority band ({@value FlowControl#DEFAULT_PRIORITY_HEADER}; higher first). */
    default void setPriorityHeader(String header) {
        configure("priorityHeader", header, d -> d.flowControl(d.flowControl().withPriorityHeader(header)));
    }

    default String getPriorityHeader() {
        return getFlowControl().priorityHeader();
    }

    /** @return the queue's figures now: waiting per band, released, refused when full, expired, left, wait times */
    QueueFigures queueFigures();
}
