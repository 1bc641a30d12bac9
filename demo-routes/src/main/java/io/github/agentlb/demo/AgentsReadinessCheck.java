package io.github.agentlb.demo;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.BalancerState;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.QueueFigures;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
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
 * balancer's state), {@code source} (where the agents come from, when not a fixed list) with
 * {@code source.problem} (why its last read was refused, the last good fleet kept, or why a part of
 * it failed, that part's agents kept, e.g. a refused AAAA query; empty when it was read whole) and, with
 * a queue ({@code BALANCER_QUEUE_SIZE}), {@code queue.waiting}, {@code queue.capacity},
 * {@code queue.bands} (band to waiting), {@code queue.rejectedFull}, {@code queue.expired} and
 * {@code queue.left}.
 *
 * <p>At start it knows before any request: when no agent accepted a TCP connection at start
 * ({@link #unprovenAtStart}), it is DOWN until an agent answers a request or a probe (a connection
 * opened and closed, at most one round per {@value #REPROBE_SECONDS} s, only while in that state)
 * finds one that accepts. Thread-safe.
 */
final class AgentsReadinessCheck extends AbstractHealthCheck {

    /** The check's id in Camel's health-check registry. */
    static final String ID = "agents";

    /** Seconds between probes of the agents while none has been seen since start. */
    static final long REPROBE_SECONDS = 5;

    private final AgentLoadBalancerSupport balancer;
    private final String source;
    private final Supplier<String> sourceProblem;
    private final UnaryOperator<String> address;
    private volatile boolean unproven;
    private BooleanSupplier anyAccepts = () -> true;
    private LongSupplier nanoClock = System::nanoTime;
    private long lastProbeNanos;

    /** @param source where the agents come from ({@code file:...}, {@code dns:...}), or null for a fixed list */
    AgentsReadinessCheck(AgentLoadBalancerSupport balancer, String source) {
        this(balancer, source, () -> null);
    }

    /**
     * @param source        where the agents come from ({@code file:...}, {@code dns:...}), or null for a fixed list
     * @param sourceProblem why the source's last read was refused, or null ({@code FleetSource.problem()})
     */
    AgentsReadinessCheck(AgentLoadBalancerSupport balancer, String source, Supplier<String> sourceProblem) {
        this(balancer, source, sourceProblem, id -> id);
    }

    /**
     * @param source        where the agents come from ({@code file:...}, {@code dns:...}), or null for a fixed list
     * @param sourceProblem why the source's last read was refused, or null ({@code FleetSource.problem()})
     * @param address       an agent id's base URL (the id itself when it is one), for the {@code addresses} detail
     */
    AgentsReadinessCheck(AgentLoadBalancerSupport balancer, String source, Supplier<String> sourceProblem,
            UnaryOperator<String> address) {
        super("agentlb", ID);
        this.balancer = Objects.requireNonNull(balancer, "balancer");
        this.source = source;
        this.sourceProblem = Objects.requireNonNull(sourceProblem, "sourceProblem");
        this.address = Objects.requireNonNull(address, "address");
    }

    /**
     * Tells the check that no agent accepted a connection at start: DOWN until an agent answers a
     * request or {@code anyAccepts} (probed at most every {@value #REPROBE_SECONDS} s) says one accepts.
     *
     * @param nanoClock the clock of the probe interval, ns
     * @return this
     */
    AgentsReadinessCheck unprovenAtStart(BooleanSupplier anyAccepts, LongSupplier nanoClock) {
        this.anyAccepts = Objects.requireNonNull(anyAccepts, "anyAccepts");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.lastProbeNanos = nanoClock.getAsLong();
        this.unproven = true;
        balancer.addAttemptListener((strategy, agent, outcome, nanos) -> {
            if (outcome == AttemptOutcome.SUCCESS) {
                unproven = false;
            }
        });
        return this;
    }

    /** Whether no agent has been seen to accept or answer since a start where none accepted. */
    private synchronized boolean stillUnproven() {
        if (!unproven) {
            return false;
        }
        long now = nanoClock.getAsLong();
        if (now - lastProbeNanos >= TimeUnit.SECONDS.toNanos(REPROBE_SECONDS)) {
            lastProbeNanos = now;
            if (anyAccepts.getAsBoolean()) {
                unproven = false;
            }
        }
        return unproven;
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
        // The balancer's meters name agents, the agent endpoints' meters and the proxy's timer their URLs: the join.
        builder.detail("addresses", state.members().stream().map(id -> id + "=" + address.apply(id)).collect(Collectors.joining(",")));
        builder.detail("draining", String.join(",", state.draining()));
        builder.detail("ejected", String.join(",", balancer.getEjectedAgents()));
        builder.detail("generation", state.generation());
        if (state.config().flowControl().queued() || balancer.queueFigures().capacity() > 0) {
            QueueFigures queue = balancer.queueFigures();
            builder.detail("queue.waiting", queue.size());
            builder.detail("queue.capacity", queue.capacity());
            builder.detail("queue.bands", queue.waiting().toString());
            builder.detail("queue.rejectedFull", queue.rejectedFull());
            builder.detail("queue.expired", queue.expired());
            builder.detail("queue.left", queue.left());
        }
        if (source != null) {
            builder.detail("source", source);
            String problem = sourceProblem.get();
            builder.detail("source.problem", problem == null ? "" : problem);
        }
        if (balancer instanceof AdaptiveVirtualNodeLB avn) {
            // A shared allocation's state (source, generation, store connected, problem, observations).
            avn.allocationDetails().forEach(builder::detail);
        }
        if (stillUnproven()) {
            builder.message("no agent accepted a connection at start, and none has answered since").down();
        } else if (balancer.hasAgentToTry()) {
            builder.up();
        } else {
            builder.message("every agent of the " + balancer.strategyName() + " balancer is failing").down();
        }
    }
}
